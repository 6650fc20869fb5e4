"""Back-pressure: a bounded number of verifications in flight and a bounded, time-limited wait
for a slot. Nothing queues without limit; a request that cannot get a slot is told when to
come back (429 + Retry-After) instead."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager


class Overloaded(Exception):
    """No slot could be had: the wait queue is full, or the wait took too long."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Admission:
    """At most ``max_in_flight`` holders at once; at most ``max_waiting`` callers waiting, each
    for at most ``wait_timeout_s`` seconds. ``on_idle`` is called each time the last holder
    leaves. Use from one event loop."""

    def __init__(
        self,
        max_in_flight: int,
        max_waiting: int,
        wait_timeout_s: float,
        retry_after_s: int,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.max_in_flight = max_in_flight
        self.max_waiting = max_waiting
        self.wait_timeout_s = wait_timeout_s
        self.retry_after_s = retry_after_s
        self._slots = asyncio.Semaphore(max_in_flight)
        self.in_flight = 0
        self.waiting = 0
        self._on_idle = on_idle

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one slot for the body of the ``async with``; raises :class:`Overloaded`."""
        if self._slots.locked():
            if self.waiting >= self.max_waiting:
                raise Overloaded(
                    f"too many requests: {self.in_flight} running and {self.waiting} waiting",
                    self.retry_after_s,
                )
            self.waiting += 1
            try:
                async with asyncio.timeout(self.wait_timeout_s):
                    await self._slots.acquire()
            except TimeoutError:
                raise Overloaded(
                    f"busy: no verification slot freed within {self.wait_timeout_s:g} s",
                    self.retry_after_s,
                ) from None
            finally:
                self.waiting -= 1
        else:
            await self._slots.acquire()
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1
            self._slots.release()
            if self.in_flight == 0 and self._on_idle is not None:
                self._on_idle()
