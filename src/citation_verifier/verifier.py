"""Orchestration of one claim: fetch every URL concurrently, then extract → passages →
retrieve → judge → guard for each page, then aggregate."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from types import TracebackType

from citation_verifier.aggregate import aggregate
from citation_verifier.errors import ConfigurationError
from citation_verifier.evidence import locate_evidence
from citation_verifier.fetch.base import Fetcher
from citation_verifier.fetch.cache import PageCache
from citation_verifier.fetch.policy import Document, PagePolicy, Settled
from citation_verifier.guard import apply_guard
from citation_verifier.judge.base import Judge
from citation_verifier.models import UrlVerdict, VerifyRequest, VerifyResult
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import Embedder, MiniLMEmbedder, top_passages
from citation_verifier.settings import Settings
from citation_verifier.verdict_cache import VerdictCache, judge_fingerprint, verdict_key


def make_fetcher(settings: Settings) -> Fetcher:
    """The fetch backend chosen by ``FETCHER``."""
    if settings.fetcher == "direct":
        from citation_verifier.fetch.direct import DirectFetcher

        return DirectFetcher(settings)
    raise ConfigurationError(f"unknown FETCHER {settings.fetcher!r}; expected: direct")


def make_judge(settings: Settings, embedder: Embedder) -> Judge:
    """The judge chosen by ``JUDGE_PROVIDER``."""
    if settings.judge_provider == "local":
        from citation_verifier.judge.local import LocalJudge

        return LocalJudge(
            embedder,
            support_threshold=settings.local_judge_support_threshold,
            relevance_threshold=settings.local_judge_relevance_threshold,
        )
    raise ConfigurationError(f"unknown JUDGE_PROVIDER {settings.judge_provider!r}; expected: local")


class Verifier:
    """Verifies claims against cited URLs. Use as an async context manager, or call
    :meth:`aclose`. One instance can serve many concurrent claims."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        fetcher: Fetcher | None = None,
        embedder: Embedder | None = None,
        judge: Judge | None = None,
        page_cache: PageCache | None = None,
        verdict_cache: VerdictCache | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.embedder = embedder or MiniLMEmbedder()
        self.judge = judge or make_judge(self.settings, self.embedder)
        self.fetcher = fetcher or make_fetcher(self.settings)
        self._policy = PagePolicy(self.fetcher, self.settings)
        self._fetch_slots = asyncio.Semaphore(self.settings.fetch_concurrency)
        # Optional reuse (single-flight + TTL pages, verdicts per claim/text/judge settings).
        self.page_cache = page_cache
        self.verdict_cache = verdict_cache
        self._judge_fingerprint = judge_fingerprint(self.judge.name, self.settings)

    async def __aenter__(self) -> Verifier:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Release the fetcher's connections."""
        await self.fetcher.aclose()

    async def verify(self, request: VerifyRequest) -> VerifyResult:
        """Verify one claim against each of its URLs (concurrently); citations keep URL order."""
        citations = await asyncio.gather(
            *(self.verify_url(request.claim, url) for url in request.urls)
        )
        return VerifyResult(
            claim=request.claim,
            overall=aggregate(c.label for c in citations),
            citations=list(citations),
        )

    async def verify_url(self, claim: str, url: str) -> UrlVerdict:
        """The verdict on one cited URL."""
        if self.page_cache is not None:
            loaded = await self.page_cache.load(url, self._load_page)
        else:
            loaded = await self._load_page(url)
        if isinstance(loaded, Settled):
            return UrlVerdict(
                url=url,
                label=loaded.label,
                confidence=1.0,
                final_url=loaded.final_url,
                original_status=loaded.status,
                rid=loaded.rid,
                reason=loaded.reason,
                detail=loaded.detail,
                rendered=loaded.rendered,
            )
        return await self.judge_document(claim, loaded)

    async def _load_page(self, url: str) -> Document | Settled:
        async with self._fetch_slots:
            return await self._policy.load(url)

    async def judge_document(self, claim: str, document: Document) -> UrlVerdict:
        """Passages → retrieve → judge → guard on an already loaded page (a verdict cache, when
        set, reuses the verdict of the same claim on the same text under the same settings)."""
        if self.verdict_cache is None:
            return await self._judge_document(claim, document)
        key = verdict_key(claim, document.text, self._judge_fingerprint)
        verdict = await self.verdict_cache.get_or_compute(
            key, lambda: self._judge_document(claim, document)
        )
        return verdict.model_copy(
            update={
                "url": document.url,
                "final_url": document.final_url,
                "original_status": document.status,
                "rid": document.rid,
            }
        )

    async def _judge_document(self, claim: str, document: Document) -> UrlVerdict:
        passages = split_passages(document.text, self.settings.passage_max_words)
        best = await asyncio.to_thread(
            top_passages, claim, passages, self.embedder, self.settings.top_k
        )
        judgement = await self.judge.judge(claim, best)
        verdict = apply_guard(judgement, best)
        return UrlVerdict(
            url=document.url,
            label=verdict.label,
            evidence_quote=verdict.evidence_quote,
            confidence=verdict.confidence,
            final_url=document.final_url,
            original_status=document.status,
            rid=document.rid,
            reason=verdict.reason,
            detail=judgement.detail,
            evidence_context=locate_evidence(verdict.evidence_quote, best),
            rendered=document.rendered,
        )


async def verify(claim: str, urls: Sequence[str], settings: Settings | None = None) -> VerifyResult:
    """Verify ``claim`` against ``urls`` with the configured components (library entry point)."""
    async with Verifier(settings) as verifier:
        return await verifier.verify(VerifyRequest(claim=claim, urls=list(urls)))
