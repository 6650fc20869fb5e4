"""``Checker``: the library's one object for scripts, notebooks and evaluation plug-ins.

It builds one verifier (models loaded once, pages and verdicts reused while it lives) on an event
loop of its own, in a daemon thread. Synchronous calls wait for that loop; ``async`` calls await
it from any other loop. Either way the verifier's connections and locks stay on the loop that
made them, so the same object works in a plain script, inside Jupyter's running loop, and from
several threads at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar

from citation_verifier.answers.check import check_answer
from citation_verifier.answers.models import AnswerRequest, AnswerResult
from citation_verifier.models import VerifyRequest, VerifyResult
from citation_verifier.pipeline import build_verifier, reuse_caches
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.reuse.embeddings import CachingEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

_T = TypeVar("_T")


class CheckerClosedError(RuntimeError):
    """The checker was closed; make a new one."""


class Checker:
    """Check claims and whole answers against the pages they cite.

    >>> with Checker(allow_private_urls=True) as checker:        # doctest: +SKIP
    ...     result = checker.check("Water boils at 100 °C.", ["http://127.0.0.1:8080/water"])
    ...     result.overall, result.citations[0].evidence_quote

    ``settings`` (default: read from the environment like the CLI), with ``overrides`` applied
    by field name (``judge_provider="checker"``, ``review_below=0.8``). A page cited by many
    claims is fetched once while it is fresh (``FETCH_CACHE_TTL_S``) and the same claim on the
    same text is judged once (``VERDICT_CACHE_MAX_ENTRIES``), as in the service. Close it (or
    use ``with`` / ``async with``) to release the models, the browser and the connections.
    """

    def __init__(self, settings: Settings | None = None, **overrides: Any) -> None:
        base = settings or Settings()
        # Overrides are validated as the environment's values are.
        self.settings = (
            Settings.model_validate({**base.model_dump(), **overrides}) if overrides else base
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="citation-verifier-checker", daemon=True
        )
        self._thread.start()
        self._closed = False
        self._warming: concurrent.futures.Future[None] | None = None
        self._verifier: Verifier = self._wait(self._open())

    async def _open(self) -> Verifier:
        # As in the service: a page cited by many claims has its passages embedded once while
        # they stay among the most recently used.
        embedder = CachingEmbedder(MiniLMEmbedder(), self.settings.batch_embed_cache)
        verifier = build_verifier(self.settings, embedder=embedder, **reuse_caches(self.settings))
        return await verifier.__aenter__()

    def _wait(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError("a Checker's synchronous calls cannot run on its own loop")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    async def _await(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        return await asyncio.wrap_future(future)

    def _live(self) -> Verifier:
        if self._closed:
            raise CheckerClosedError("this Checker is closed")
        return self._verifier

    # The requests are built here, in the caller's thread: a bad URL or an empty claim raises
    # pydantic's ValidationError at once, as constructing the request yourself would.
    def _claim(
        self, claim: str, urls: Sequence[str], cited_at: datetime | None
    ) -> Coroutine[Any, Any, VerifyResult]:
        request = VerifyRequest(claim=claim, urls=list(urls), cited_at=cited_at)
        return self._live().verify(request)

    def _answer(
        self, answer: str, citations: Sequence[str], cited_at: datetime | None
    ) -> Coroutine[Any, Any, AnswerResult]:
        request = AnswerRequest(answer=answer, citations=list(citations) or None, cited_at=cited_at)
        return check_answer(self._live(), request)

    def check(
        self, claim: str, urls: Sequence[str], *, cited_at: datetime | None = None
    ) -> VerifyResult:
        """Verify ``claim`` against each of ``urls``: one verdict per URL and the overall
        label (as ``citation-verifier verify``)."""
        return self._wait(self._claim(claim, urls, cited_at))

    async def acheck(
        self, claim: str, urls: Sequence[str], *, cited_at: datetime | None = None
    ) -> VerifyResult:
        """:meth:`check`, awaited from any event loop."""
        return await self._await(self._claim(claim, urls, cited_at))

    def check_answer(
        self, answer: str, citations: Sequence[str] = (), *, cited_at: datetime | None = None
    ) -> AnswerResult:
        """Split ``answer`` into statements with their citation markers and verify each
        statement against the URLs it cites (``citations``: what ``[1]``, ``[2]`` … point to
        when the answer has no Sources list), as ``citation-verifier check-answer``."""
        return self._wait(self._answer(answer, citations, cited_at))

    async def acheck_answer(
        self, answer: str, citations: Sequence[str] = (), *, cited_at: datetime | None = None
    ) -> AnswerResult:
        """:meth:`check_answer`, awaited from any event loop."""
        return await self._await(self._answer(answer, citations, cited_at))

    def warm_up(self, *, wait: bool = True) -> None:
        """Load the models a first check loads (language identification, the embedded checker,
        the claim parsers) now. ``wait=False`` loads them in the background: a framework that
        makes its metric before it starts overlaps its own start with the loads, and a check
        made meanwhile waits only for what it needs. A failure is logged, not raised."""
        future = asyncio.run_coroutine_threadsafe(self._live().warm_up(), self._loop)
        self._warming = future
        if wait:
            future.result()

    def close(self) -> None:
        """Release the models, browser and connections; later calls raise. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._warming is not None:
            self._warming.cancel()
        try:
            self._wait(self._verifier.aclose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            if not self._loop.is_running():
                self._loop.close()

    async def aclose(self) -> None:
        """:meth:`close` without blocking the caller's event loop."""
        await asyncio.to_thread(self.close)

    def __enter__(self) -> Checker:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Checker:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
