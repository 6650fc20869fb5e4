"""A bounded pool of threads for CPU work that must not run on the event loop (page text
extraction), kept apart from the loop's default executor, and shared fairly between requests.

The default executor also resolves host names (``getaddrinfo``) for every fetch: six slow PDF
extractions in it made another user's tiny page time out queueing for DNS. Here the work has
threads of its own, at most ``workers`` of them; and a request that holds a
:func:`one_at_a_time` share extracts one page at a time, so its six PDFs wait for each other
rather than take every thread from the next user.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import TypeVar

_T = TypeVar("_T")

_share: ContextVar[asyncio.Semaphore | None] = ContextVar("extraction_share", default=None)


class WorkerPool:
    """At most ``workers`` threads; :meth:`run` awaits one call in them."""

    def __init__(self, workers: int, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)

    async def run(
        self,
        work: Callable[..., _T],
        budget_s: float,
        prepare: Callable[[], object] | None = None,
    ) -> _T:
        """``work(deadline=...)`` in a pool thread, once one is free (and this request's
        share, if it holds one), with ``budget_s`` from the moment it starts. TimeoutError
        when it has not returned a second after that (the thread then finishes on its own).
        ``prepare`` runs first, off the clock (a library's first import on a busy machine is
        no page's fault)."""
        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def timed() -> _T:
            if prepare is not None:
                prepare()
            loop.call_soon_threadsafe(started.set)
            return work(deadline=time.monotonic() + budget_s)

        share = _share.get()
        async with share if share is not None else contextlib.nullcontext():
            future = loop.run_in_executor(self._executor, timed)
            await started.wait()
            # The grace second lets work that stops itself at the deadline return what it has.
            # asyncio.timeout, not wait_for: Python 3.11's wait_for swallows a cancellation that
            # lands as the work finishes, and a batch then ignored Ctrl-C and ran to the end.
            async with asyncio.timeout(budget_s + 1.0):
                return await future


@functools.cache
def extraction_pool(workers: int) -> WorkerPool:
    """The process's text-extraction pool of ``workers`` threads (one per size asked for)."""
    return WorkerPool(workers, "extract")


@contextlib.asynccontextmanager
async def one_at_a_time() -> AsyncIterator[None]:
    """Within this block (one request, and the tasks it starts), pool work runs one call at a
    time; a block inside another shares the outer one's turn."""
    if _share.get() is not None:
        yield
        return
    token = _share.set(asyncio.Semaphore(1))
    try:
        yield
    finally:
        _share.reset(token)
