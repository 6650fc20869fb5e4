"""Per-request stage timings. The service wraps the pipeline's seams (fetcher, embedder,
judge) in timed decorators; each adds its elapsed time to the current request's
:class:`StageTimes`, found through a context variable (set per request by the middleware, and
inherited by the tasks and threads the request starts)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from threading import Lock

from citation_verifier.fetch.base import FetchedPage, Fetcher
from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.passages import Passage
from citation_verifier.retrieve import Embedder, Vectors

StageObserver = Callable[[str, float], None]
"""Called with (stage, seconds) after each timed call: feeds the latency histograms."""


class StageTimes:
    """Seconds spent per stage within one request (summed over its concurrent URLs)."""

    def __init__(self) -> None:
        self._lock = Lock()  # threads (the embedder runs off the event loop) add too
        self.seconds: dict[str, float] = {}

    def add(self, stage: str, seconds: float) -> None:
        """Add ``seconds`` to ``stage``."""
        with self._lock:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def as_ms(self) -> dict[str, float]:
        """Milliseconds per stage, rounded to 0.1 ms."""
        with self._lock:
            return {stage: round(s * 1000, 1) for stage, s in self.seconds.items()}


current_stage_times: ContextVar[StageTimes | None] = ContextVar("stage_times", default=None)


@contextmanager
def _timed(stage: str, observe: StageObserver) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
        times = current_stage_times.get()
        if times is not None:
            times.add(stage, elapsed)
        observe(stage, elapsed)


class TimedFetcher:
    """A :class:`Fetcher` that times every fetch attempt as stage ``fetch``."""

    def __init__(self, inner: Fetcher, observe: StageObserver) -> None:
        self._inner = inner
        self._observe = observe

    @property
    def can_render(self) -> bool:
        """Whether the wrapped fetcher can render JavaScript."""
        return self._inner.can_render

    @property
    def can_refuse_consent(self) -> bool:
        """Whether the wrapped fetcher can refuse a consent dialog."""
        return self._inner.can_refuse_consent

    @property
    def render_hint(self) -> str:
        """What would let the wrapped fetcher render."""
        return self._inner.render_hint

    async def fetch(
        self,
        url: str,
        *,
        readability: bool = True,
        render: bool = False,
        refuse_consent: bool = False,
    ) -> FetchedPage:
        """The wrapped fetch, timed."""
        with _timed("fetch", self._observe):
            return await self._inner.fetch(
                url, readability=readability, render=render, refuse_consent=refuse_consent
            )

    async def aclose(self) -> None:
        """Close the wrapped fetcher."""
        await self._inner.aclose()


class TimedEmbedder:
    """An :class:`Embedder` timed as stage ``embed`` (retrieval and the local judge's use)."""

    def __init__(self, inner: Embedder, observe: StageObserver) -> None:
        self._inner = inner
        self._observe = observe

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The wrapped embedding, timed."""
        with _timed("embed", self._observe):
            return self._inner.embed(texts)


class TimedJudge:
    """A :class:`Judge` timed as stage ``judge``."""

    def __init__(
        self,
        inner: Judge,
        observe: StageObserver,
        on_judgement: Callable[[Judgement], None] | None = None,
    ) -> None:
        self._inner = inner
        self._observe = observe
        self._on_judgement = on_judgement

    @property
    def name(self) -> str:
        """The wrapped judge's name."""
        return self._inner.name

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The wrapped judgement, timed (and handed to ``on_judgement``)."""
        with _timed("judge", self._observe):
            judgement = await self._inner.judge(claim, passages)
        if self._on_judgement is not None:
            self._on_judgement(judgement)
        return judgement
