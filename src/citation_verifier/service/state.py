"""What the service holds while it runs: the verifier (built at startup from settings, with the
caches and timed seams) or the configuration error that prevented building it."""

from __future__ import annotations

import asyncio
import logging

from citation_verifier.errors import ConfigurationError
from citation_verifier.judge.base import Judgement
from citation_verifier.judge.providers import judge_choice
from citation_verifier.models import Reason
from citation_verifier.pipeline import build_verifier, reuse_caches
from citation_verifier.retrieve import Embedder, MiniLMEmbedder
from citation_verifier.reuse.embeddings import CachingEmbedder
from citation_verifier.service.metrics import ServiceMetrics
from citation_verifier.service.stages import TimedEmbedder, TimedFetcher, TimedJudge
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier, make_fetcher, make_router

log = logging.getLogger("citation_verifier.service")


class ServiceState:
    """Builds the verifier on :meth:`start`; a :class:`ConfigurationError` is kept (never
    raised) so the process stays up, ``/health`` answers and ``/ready`` and ``/verify`` can
    name the problem with a 503."""

    def __init__(
        self,
        settings: Settings,
        metrics: ServiceMetrics,
        embedder: Embedder | None = None,
        *,
        warm_up: bool = False,
    ) -> None:
        self.settings = settings
        self.warm_up = warm_up
        """Whether :meth:`start` loads the judge's model and parsers in the background."""
        self.metrics = metrics
        self._embedder = embedder
        self.verifier: Verifier | None = None
        self.error: str | None = "the service is starting"
        self._warming: asyncio.Task[None] | None = None
        self.judge_failure: str | None = None
        """The last judge failure, until a judgement succeeds again (``/ready`` says 503)."""

    async def start(self) -> None:
        """Build the pipeline and load the embedding model (so the first request is not slow)."""
        settings, observe = self.settings, self.metrics.observe_stage
        try:
            # Statements of one answer, and requests citing a popular page, share passages:
            # each is embedded once while it stays among the most recently used.
            embedder = CachingEmbedder(
                self._embedder or MiniLMEmbedder(), settings.batch_embed_cache
            )
            await asyncio.to_thread(embedder.embed, ["warm-up"])
            timed_embedder = TimedEmbedder(embedder, observe)
            judge = make_router(settings, timed_embedder).wrapped(
                lambda inner: TimedJudge(inner, observe, self._judged)
            )
            fetcher = TimedFetcher(make_fetcher(settings), observe)
        except ConfigurationError as error:
            self.error = str(error)
            log.error("not ready: %s", self.error)
            return
        log.info("%s", judge_choice(settings))
        self.verifier = build_verifier(
            settings,
            fetcher=fetcher,
            embedder=timed_embedder,
            judge=judge,
            **reuse_caches(settings),
        )
        self.metrics.watch_archive(self.verifier.archive.client)
        self.error = None
        if self.warm_up:  # ready now; the models load meanwhile, not in the first requests
            self._warming = asyncio.create_task(self.verifier.warm_up())

    def _judged(self, judgement: Judgement) -> None:
        if judgement.reason == Reason.JUDGE_ERROR:
            if self.judge_failure is None:
                log.error("judge failing: %s", judgement.detail)
            self.judge_failure = judgement.detail or "the judge failed"
        else:
            self.judge_failure = None

    async def stop(self) -> None:
        """Release the fetcher's connections."""
        if self._warming is not None:
            self._warming.cancel()
        if self.verifier is not None:
            await self.verifier.aclose()
            self.verifier = None
