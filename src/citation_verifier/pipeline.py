"""The configured pipeline: a :class:`Verifier` with the observers the settings ask for (the
audit trail unless ``AUDIT_ENABLED=false``), and the library's one-call entry point. Front ends
(CLI, service, batch, eval, demo) build their verifier here; the stages never see the audit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citation_verifier.audit.recorder import make_auditor
from citation_verifier.models import VerifyRequest, VerifyResult
from citation_verifier.reuse.pages import PageCache
from citation_verifier.reuse.verdicts import VerdictCache
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier


def build_verifier(settings: Settings | None = None, **parts: Any) -> Verifier:
    """A verifier for ``settings``, audited when ``AUDIT_ENABLED``; ``parts`` are handed to
    :class:`Verifier` (fetcher, embedder, judge, caches, observer)."""
    settings = settings or Settings()
    parts.setdefault("observer", make_auditor(settings))
    return Verifier(settings, **parts)


def reuse_caches(settings: Settings) -> dict[str, Any]:
    """The page and verdict caches a long-lived verifier (the service, a ``Checker``) keeps, as
    ``settings`` size them (none where a size or TTL is 0): ``build_verifier`` parts."""
    return {
        "page_cache": (
            PageCache(settings.fetch_cache_ttl_s, settings.fetch_cache_max_entries)
            if settings.fetch_cache_ttl_s > 0
            else None
        ),
        "verdict_cache": (
            VerdictCache(settings.verdict_cache_max_entries)
            if settings.verdict_cache_max_entries > 0
            else None
        ),
    }


async def verify(claim: str, urls: Sequence[str], settings: Settings | None = None) -> VerifyResult:
    """Verify ``claim`` against ``urls`` with the configured components (library entry point)."""
    async with build_verifier(settings) as verifier:
        return await verifier.verify(VerifyRequest(claim=claim, urls=list(urls)))
