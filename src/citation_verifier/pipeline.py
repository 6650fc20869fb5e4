"""The configured pipeline: a :class:`Verifier` with the observers the settings ask for (the
audit trail unless ``AUDIT_ENABLED=false``), and the library's one-call entry point. Front ends
(CLI, service, batch, eval, demo) build their verifier here; the stages never see the audit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citation_verifier.audit.recorder import make_auditor
from citation_verifier.models import VerifyRequest, VerifyResult
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier


def build_verifier(settings: Settings | None = None, **parts: Any) -> Verifier:
    """A verifier for ``settings``, audited when ``AUDIT_ENABLED``; ``parts`` are handed to
    :class:`Verifier` (fetcher, embedder, judge, caches, observer)."""
    settings = settings or Settings()
    parts.setdefault("observer", make_auditor(settings))
    return Verifier(settings, **parts)


async def verify(claim: str, urls: Sequence[str], settings: Settings | None = None) -> VerifyResult:
    """Verify ``claim`` against ``urls`` with the configured components (library entry point)."""
    async with build_verifier(settings) as verifier:
        return await verifier.verify(VerifyRequest(claim=claim, urls=list(urls)))
