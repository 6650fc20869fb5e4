"""Orchestration of one claim: fetch every URL concurrently, then extract → passages →
retrieve → judge → guard for each page, then aggregate.

Observers (the audit trail) are handed in as a :class:`VerdictObserver`; the verifier never
imports them. ``citation_verifier.pipeline`` builds a verifier with the observers the settings
ask for."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol

from citation_verifier.aggregate import aggregate
from citation_verifier.deadline import Deadline, in_time, late_verdict
from citation_verifier.errors import CitationVerifierError
from citation_verifier.facts import FactSplitter
from citation_verifier.fetch.base import Fetcher
from citation_verifier.fetch.policy import Document, PagePolicy, Settled
from citation_verifier.fetch.rules.archive import ArchiveCopies, ArchiveRescue
from citation_verifier.guard import apply_guard
from citation_verifier.judge.base import Judge, judge_fields
from citation_verifier.judge.calibration import Signals, card_for, signals_of
from citation_verifier.judge.parts import claim_parts, part_passages, part_retriever
from citation_verifier.judge.routing import LanguageRouter, only
from citation_verifier.language import LanguageIdentifier, Languages
from citation_verifier.models import (
    FAILURES,
    ArchivedVerdict,
    EvidenceContext,
    Label,
    Reason,
    UrlVerdict,
    VerifyRequest,
    VerifyResult,
)
from citation_verifier.passages import Passage, locate_quote, split_passages
from citation_verifier.quote_rules import rules_for
from citation_verifier.retrieve import Embedder, MiniLMEmbedder, TermsEmbedder, top_passages
from citation_verifier.reuse.pages import PageCache
from citation_verifier.reuse.verdicts import VerdictCache, judge_fingerprint, verdict_key
from citation_verifier.settings import Settings
from citation_verifier.workers import one_at_a_time

_WARM_UP_URL = "about:warm-up"
_log = logging.getLogger("citation_verifier")
Progress = Callable[[int, int, str], Awaitable[None]]
"""``progress(done, total, message)``: told of each step of a verification as it finishes."""


class Steps:
    """Counts the steps of one verification and tells ``progress`` (if any) of each."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total = total
        self.done = 0
        self._progress = progress

    async def step(self, message: str) -> None:
        """One more step finished; ``message`` says which."""
        self.done += 1
        if self._progress is not None:
            await self._progress(self.done, self.total, message)


class VerdictObserver(Protocol):
    """Sees every verdict the verifier reaches, with what it was based on (the audit trail)."""

    async def record(
        self,
        claim: str,
        verdict: UrlVerdict,
        document: Document | None,
        passages: Sequence[Passage],
        judge_name: str | None,
    ) -> UrlVerdict:
        """Observe ``verdict`` (``document`` is None for a settled outcome); returns it,
        possibly annotated (the audit adds its record id)."""
        ...

    def close(self) -> None:
        """Release what the observer opened."""
        ...


def make_fetcher(settings: Settings) -> Fetcher:
    """The fetch backend chosen by ``FETCHER`` (``auto``: Crawlbase when a token is set)."""
    token = settings.crawlbase_token
    if settings.fetcher == "crawlbase" or (
        settings.fetcher == "auto" and token is not None and token.get_secret_value().strip()
    ):
        from citation_verifier.fetch.crawlbase import CrawlbaseFetcher

        return CrawlbaseFetcher(settings)
    from citation_verifier.fetch.direct import DirectFetcher

    return DirectFetcher(settings)


def make_wall_crawler(settings: Settings) -> Fetcher | None:
    """The Crawling API a bot wall is tried with once: when a token is set but pages are
    fetched directly (``FETCHER=direct``); with ``auto`` the token already makes it the fetcher."""
    token = settings.crawlbase_token
    if settings.fetcher != "direct" or token is None or not token.get_secret_value().strip():
        return None
    from citation_verifier.fetch.crawlbase import CrawlbaseFetcher

    return CrawlbaseFetcher(settings)


def make_archive(settings: Settings) -> ArchiveCopies:
    """Archived copies from the Wayback Machine at ``ARCHIVE_URL``, read through a direct
    fetcher's policy (the same guard, bounds, extraction and rendering; never a paid API)."""
    from citation_verifier.fetch.archive import ArchiveClient
    from citation_verifier.fetch.direct import DirectFetcher

    fetcher = DirectFetcher(settings)
    return ArchiveCopies(
        ArchiveClient(settings),
        PagePolicy(fetcher, settings).load,
        fetcher.aclose,
        private_urls=settings.archive_private_urls,
        resolve_timeout_s=settings.connect_timeout_s,
    )


def make_judge(settings: Settings, embedder: Embedder) -> Judge:
    """The judge chosen by ``JUDGE_PROVIDER`` alone (whatever the language), reading a long
    claim part by part, every configured secret redacted from what it says (providers echo
    keys in their errors)."""
    return make_router(settings, embedder).routes[0].judge


def make_router(settings: Settings, embedder: Embedder) -> LanguageRouter:
    """The judges JUDGE_PROVIDER and LANGUAGE_JUDGE choose, each with the languages it reads
    (judge/routing.py), wrapped as :func:`make_judge`'s."""
    from citation_verifier.judge.providers import build_router
    from citation_verifier.judge.redacted import RedactedJudge
    from citation_verifier.redaction import Redactor

    redactor = Redactor.from_settings(settings)
    return build_router(settings, embedder).wrapped(lambda judge: RedactedJudge(judge, redactor))


class Verifier:
    """Verifies claims against cited URLs. Use as an async context manager, or call
    :meth:`aclose`. One instance can serve many concurrent claims."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        fetcher: Fetcher | None = None,
        embedder: Embedder | None = None,
        judge: Judge | LanguageRouter | None = None,
        page_cache: PageCache | None = None,
        verdict_cache: VerdictCache | None = None,
        observer: VerdictObserver | None = None,
        archive: ArchiveCopies | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.embedder = embedder or MiniLMEmbedder()
        chosen = judge or make_router(self.settings, self.embedder)
        self.router = chosen if isinstance(chosen, LanguageRouter) else only(chosen)
        """The judges and the languages each reads (a judge given alone reads any)."""
        self.languages = LanguageIdentifier()
        self.fetcher = fetcher or make_fetcher(self.settings)
        self.archive = archive or make_archive(self.settings)
        fallback = self.settings.archive_fallback
        rescue = [] if fallback == "never" else [ArchiveRescue(self.archive, fallback)]
        self._crawler = make_wall_crawler(self.settings)
        self._policy = PagePolicy(self.fetcher, self.settings, rescue, self._crawler)
        self._fetch_slots = asyncio.Semaphore(self.settings.fetch_concurrency)
        # Optional reuse (single-flight + TTL pages, verdicts per claim/text/judge settings).
        self.page_cache = page_cache
        self.verdict_cache = verdict_cache
        self._judge_fingerprint = judge_fingerprint(self.router.name, self.settings)
        self.observer = observer
        self.calibration = card_for(self.settings.calibration_path)
        self.facts = FactSplitter()
        """Splits an answer's statements into facts (``answers/support.py``)."""

    async def warm_up(self) -> None:
        """Load what a first check loads (language identification, the judge's model, the
        parsers of claims and facts) by judging a made-up claim on a made-up page, neither
        cached nor observed: a long-running process calls it once after start so that its
        first requests do not wait for the loads. Only the embedded checker judges it (an API
        judge would be sent the pair; the embedded LLM loads 1 GB for the languages it reads).
        A failure is logged, not raised: the first check loads it then, and says what fails."""
        from citation_verifier.judge.providers import resolve_provider

        claim = "The bridge was designed by one firm and built by another."
        page = Document(
            url=_WARM_UP_URL, final_url=_WARM_UP_URL, status=200, kind="text", text=claim
        )
        try:
            if resolve_provider(self.settings) == "checker":
                await self._judge_passages(claim, page)
            await asyncio.to_thread(self.facts.facts, claim, "en")
        except Exception as error:
            _log.warning("warm-up failed (%s): %s", type(error).__name__, error)

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
        """Release the fetchers' connections and close the observer."""
        try:
            await self.fetcher.aclose()
            await self.archive.aclose()
            if self._crawler is not None:
                await self._crawler.aclose()
        finally:
            if self.observer is not None:
                self.observer.close()

    async def verify(
        self,
        request: VerifyRequest,
        *,
        progress: Progress | None = None,
        deadline: Deadline | None = None,
    ) -> VerifyResult:
        """Verify one claim against each of its URLs (concurrently); citations keep URL order.
        ``progress`` hears of every page loaded and every page judged; a citation unfinished
        at ``deadline`` is ``deadline_exceeded``."""
        report = Steps(2 * len(request.urls), progress)

        async def judged(url: str, stage: list[str]) -> UrlVerdict:
            loaded = await self.load_page(url, request.cited_at)
            await report.step(f"loaded {url}")
            stage[0] = "judging"
            verdict = await self.verdict(request.claim, loaded)
            if request.compare_archive:
                verdict = await self.compare_archive(
                    request.claim, loaded, verdict, request.cited_at
                )
            await report.step(f"judged {url}: {verdict.label.value}")
            return verdict

        async def one(url: str) -> UrlVerdict:
            stage = ["loading the page"]
            verdict = await in_time(deadline, judged(url, stage))
            if verdict is None:
                assert deadline is not None  # only a deadline leaves a citation unjudged
                return late_verdict(url, deadline, stage[0])
            return verdict

        async with one_at_a_time():  # this claim's pages are extracted one at a time
            citations = await asyncio.gather(*(one(url) for url in request.urls))
        return VerifyResult(
            claim=request.claim,
            overall=aggregate(c.label for c in citations),
            citations=list(citations),
            credits=sum(c.credits for c in citations),
        )

    async def verify_url(self, claim: str, url: str) -> UrlVerdict:
        """The verdict on one cited URL, as the observer (if any) saw it."""
        return await self.verdict(claim, await self.load_page(url))

    async def load_page(self, url: str, cited_at: datetime | None = None) -> Document | Settled:
        """:meth:`load` through the page cache when there is one. A page the cache already
        held (or another caller was loading) carries no attempts: this call spent nothing.
        The cache tells citation days apart (an archived copy depends on the day)."""
        if self.page_cache is None:
            return await self.load(url, cited_at)
        loaded_here = False

        async def load(_: str) -> Document | Settled:
            nonlocal loaded_here
            loaded_here = True
            return await self.load(url, cited_at)

        key = url if cited_at is None else f"{url}\x1f{cited_at.date().isoformat()}"
        loaded = await self.page_cache.load(key, load)
        return loaded if loaded_here else dataclasses.replace(loaded, attempts=())

    async def compare_archive(
        self,
        claim: str,
        loaded: Document | Settled,
        live: UrlVerdict,
        cited_at: datetime | None,
    ) -> UrlVerdict:
        """``live`` with the verdict on the capture closest to ``cited_at`` beside it, and
        whether the two differ (``changed_since_cited``). Only a live page that was read is
        compared, and only when the citation has a date."""
        if cited_at is None or not isinstance(loaded, Document) or loaded.archive_url:
            return live
        archived = await self.archive.load(loaded.url, cited_at, None)
        if archived.document is None:
            return live.model_copy(update={"archive_lookup": archived.problem})
        then = await self.verdict(claim, archived.document)
        assert then.archive_url is not None and then.archived_at is not None
        return live.model_copy(
            update={
                "changed_since_cited": then.label != live.label,
                "archived_verdict": ArchivedVerdict(
                    label=then.label,
                    evidence_quote=then.evidence_quote,
                    confidence=then.confidence,
                    reason=then.reason,
                    archive_url=then.archive_url,
                    archived_at=then.archived_at,
                ),
            }
        )

    async def load(self, url: str, cited_at: datetime | None = None) -> Document | Settled:
        """Fetch and extract ``url`` through the policy chain, within the fetch slots."""
        async with self._fetch_slots:
            return await self._policy.load(url, cited_at)

    async def verdict(self, claim: str, loaded: Document | Settled) -> UrlVerdict:
        """The verdict on a URL already loaded by :class:`PagePolicy`: a settled outcome as it
        is, a document judged; observed either way. Lets a batch load each URL once and judge it
        for many claims."""
        if isinstance(loaded, Settled):
            verdict = UrlVerdict(
                label=loaded.label,
                confidence=1.0,
                reason=loaded.reason,
                detail=loaded.detail,
                **_page_fields(loaded),
            )
            return await self._observed(claim, verdict, None, [])
        try:
            verdict, shown = await self.judge_passages(claim, loaded)
        except CitationVerifierError:
            raise  # misconfiguration (a missing model, a refused key) stops the run, as it should
        except Exception as error:  # a bug on one citation must not take the others down
            if os.environ.get("CITATION_VERIFIER_DEBUG"):
                raise
            verdict, shown = internal_error(loaded, error), []
        return await self._observed(claim, verdict, loaded, shown)

    async def _observed(
        self, claim: str, verdict: UrlVerdict, document: Document | None, shown: list[Passage]
    ) -> UrlVerdict:
        if self.observer is None:
            return verdict
        judge_name = verdict.judge or self.router.name
        return await self.observer.record(claim, verdict, document, shown, judge_name)

    async def judge_document(self, claim: str, document: Document) -> UrlVerdict:
        """Passages → retrieve → judge → guard on an already loaded page (not observed)."""
        verdict, _ = await self.judge_passages(claim, document)
        return verdict

    async def judge_passages(
        self, claim: str, document: Document
    ) -> tuple[UrlVerdict, list[Passage]]:
        """:meth:`judge_document`, also returning the passages the judge was shown. A verdict
        cache, when set, reuses the verdict of the same claim on the same text under the same
        settings (retrieval is deterministic, so the passages shown are the same)."""
        verdict, shown = await self._reused_or_judged(claim, document)
        if document.wall == Reason.PAYWALLED:
            verdict = paywalled(document, verdict)
        if document.archive_url is not None and verdict.reason is None:
            verdict = verdict.model_copy(update={"reason": Reason.ARCHIVED_COPY})
        return verdict, shown

    async def _reused_or_judged(
        self, claim: str, document: Document
    ) -> tuple[UrlVerdict, list[Passage]]:
        if self.verdict_cache is None:
            return await self._judge_passages(claim, document)
        key = verdict_key(claim, document.text, self._judge_fingerprint)
        shown: list[Passage] | None = None

        async def judge() -> UrlVerdict:
            nonlocal shown
            verdict, shown = await self._judge_passages(claim, document)
            return verdict

        verdict = await self.verdict_cache.get_or_compute(key, judge)
        update = _page_fields(document)  # the verdict may come from another URL's page
        if shown is None:  # a reused verdict made no judge calls of its own
            update.update(judge_calls=0, judge_input_tokens=0, judge_output_tokens=0)
            update["judge_cost_usd"] = 0.0
            languages = await asyncio.to_thread(self.languages.pair, claim, document.text)
            shown = await self._retrieve(claim, document, languages)
        return verdict.model_copy(update=update), shown

    async def _retrieve(
        self, claim: str, document: Document, languages: Languages
    ) -> list[Passage]:
        """The passages the judge reads: the page's ``top_k`` for the claim, or for a long claim
        every part's ``top_k`` (the judge then reads each part on its own, judge/parts.py).
        A pair not in English is ranked lexically: the embedding model reads English only."""
        settings = self.settings
        embedder = self.embedder if languages.english else TermsEmbedder()
        retrieval = settings.retrieval if languages.english else "lexical"

        def retrieve() -> list[Passage]:
            # Splitting a long page takes a while too: off the event loop with the ranking.
            passages = split_passages(document.text, settings.passage_max_words, languages.page)
            if len(claim_parts(claim)) <= 1:
                return top_passages(
                    claim,
                    passages,
                    embedder,
                    settings.top_k,
                    retrieval,
                    settings.max_passages_embedded,
                )
            by_part = part_retriever(
                embedder, settings.top_k, retrieval, settings.max_passages_embedded
            )
            return part_passages(claim, passages, by_part, settings.max_claim_parts)

        return await asyncio.to_thread(retrieve)

    async def _judge_passages(
        self, claim: str, document: Document
    ) -> tuple[UrlVerdict, list[Passage]]:
        languages = await asyncio.to_thread(self.languages.pair, claim, document.text)
        route = self.router.route(languages)
        if route is None:
            return unsupported_language(document, languages, self.router), []
        best = await self._retrieve(claim, document, languages)
        judgement = await route.judge.judge(claim, best)
        # A long claim's supported quote is one part's: the parts' judge holds each to its part.
        whole = claim if len(claim_parts(claim)) <= 1 else None
        rules = rules_for(route.judge.name, languages.english)
        verdict = apply_guard(judgement, best, whole, languages.claim, rules)
        span = locate_quote(verdict.evidence_quote, best)
        judged = UrlVerdict(
            label=verdict.label,
            evidence_quote=verdict.evidence_quote,
            confidence=verdict.confidence,
            reason=verdict.reason,
            detail=verdict.detail,
            evidence_context=(
                None
                if span is None
                else EvidenceContext(passage=span.passage.text, start=span.start, end=span.end)
            ),
            claim_language=languages.claim,
            page_language=languages.page,
            **_page_fields(document),
            **judge_fields(route.judge.name, judgement),
        )
        signals = signals_of(
            claim,
            judge_name=route.judge.name,
            judge_label=judgement.label,
            judge_confidence=judgement.confidence,
            label=judged.label,
            quote=judged.evidence_quote,
            reason=judged.reason,
            detail=judged.detail,
            cross_check=judged.cross_check,
            english=languages.english,
            passages=[p.text for p in best],
            support=judgement.support,
            partly_read=document.wall == Reason.PAYWALLED,
        )
        return self._calibrated(judged, signals), best

    def _calibrated(self, verdict: UrlVerdict, signals: Signals) -> UrlVerdict:
        """``verdict`` with its confidence the probability it is right (calibration.py), and
        ``needs_review`` when that is under ``REVIEW_BELOW``. A verdict the judge failed to give
        is no verdict: left as it is."""
        if verdict.reason in FAILURES:
            return verdict
        confidence, why = self.calibration.assess(signals, self.settings.review_below)
        return verdict.model_copy(
            update={
                "confidence": confidence,
                "needs_review": why is not None,
                "review_reason": why,
                "confidence_signals": signals.as_json(),
            }
        )


def unsupported_language(
    document: Document, languages: Languages, router: LanguageRouter
) -> UrlVerdict:
    """The verdict of a pair no configured judge reads: ``unreachable`` with reason
    ``unsupported_language`` (not a result, like a judge failure), never a guessed label."""
    return UrlVerdict(
        label=Label.UNREACHABLE,
        confidence=0.0,
        reason=Reason.UNSUPPORTED_LANGUAGE,
        detail=router.unsupported(languages),
        claim_language=languages.claim,
        page_language=languages.page,
        **_page_fields(document),
    )


NOT_SETTLED = "; the readable part does not settle the claim"
"""How a paywalled verdict's detail ends (after the paywall's evidence)."""


def paywalled(document: Document, verdict: UrlVerdict) -> UrlVerdict:
    """A paywalled page keeps a verdict its readable part settles (supported, contradicted);
    any other judged verdict becomes unreachable / ``paywalled``: we did not read the rest, so
    "the page does not say it" would be a claim we cannot make. Failures stay failures."""
    if verdict.label != Label.NOT_FOUND or verdict.reason in FAILURES:
        return verdict
    return verdict.model_copy(
        update={
            "label": Label.UNREACHABLE,
            "reason": Reason.PAYWALLED,
            "evidence_quote": None,
            "evidence_context": None,
            "confidence": 1.0,
            "detail": f"{document.wall_detail}{NOT_SETTLED}",
            # A page not read is no verdict: nothing for a reviewer to weigh.
            "needs_review": False,
            "review_reason": None,
        }
    )


def internal_error(document: Document, error: Exception) -> UrlVerdict:
    """The verdict of a citation whose judging raised: not_found with reason ``internal_error``
    (not a result), the error named in ``detail``."""
    return UrlVerdict(
        label=Label.NOT_FOUND,
        confidence=0.0,
        reason=Reason.INTERNAL_ERROR,
        detail=f"internal error while judging: {type(error).__name__}: {error}"[:500],
        **_page_fields(document),
    )


def _page_fields(loaded: Document | Settled) -> dict[str, Any]:
    """The verdict fields that describe the loaded page, not the judgement."""
    if isinstance(loaded, Document):
        archive: dict[str, Any] = {
            "archive_url": loaded.archive_url,
            "archived_at": loaded.archived_at,
            "live_reason": loaded.live_reason,
        }
    else:
        archive = {"archive_lookup": loaded.archive_lookup, "retry_after_s": loaded.retry_after_s}
    return {
        **archive,
        "url": loaded.url,
        "final_url": loaded.final_url,
        "original_status": loaded.status,
        "rid": loaded.rid,
        "credits": loaded.credits,
        "attempts": list(loaded.attempts),
        "recoveries": list(loaded.recoveries),
        "rendered": loaded.rendered,
    }
