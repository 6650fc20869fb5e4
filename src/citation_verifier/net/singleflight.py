"""Single-flight: concurrent calls for the same key share one running task.

The task runs on its own, so a caller that is cancelled (a client that hung up) does not
cancel it for the others still waiting. Used by the page cache, the verdict cache and the
archive client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SingleFlight(Generic[K, V]):
    """One task per key at a time. ``on_result(key, value)`` runs once per successful task
    (not for failures or cancellations), before later callers can start a new one."""

    def __init__(self, on_result: Callable[[K, V], None]) -> None:
        self._on_result = on_result
        self._tasks: dict[K, asyncio.Task[V]] = {}

    async def run(self, key: K, compute: Callable[[], Awaitable[V]]) -> tuple[V, bool]:
        """``(value, joined)``: the value of the task for ``key``, started here unless one was
        already running (then ``joined`` is True). Exceptions reach every caller."""
        task = self._tasks.get(key)
        joined = task is not None
        if task is None:
            task = asyncio.ensure_future(compute())
            self._tasks[key] = task
            task.add_done_callback(lambda done: self._finish(key, done))
        return await asyncio.shield(task), joined

    def _finish(self, key: K, task: asyncio.Task[V]) -> None:
        if self._tasks.get(key) is task:
            del self._tasks[key]
        if not task.cancelled() and task.exception() is None:
            self._on_result(key, task.result())
