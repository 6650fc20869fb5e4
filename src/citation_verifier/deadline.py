"""One deadline per request (``REQUEST_DEADLINE_S``): the work on a citation that has not
finished by then is given up, and the citation says so (reason ``deadline_exceeded``, not a
result, like a judge failure), so the answer comes on time with every citation that did finish.

The service and the MCP server give every request the deadline from its arrival; ``verify``,
``check-answer`` and ``batch`` take one only when the variable is set (batch: per citation).
Cancelling the work also drops what it had queued for worker threads; a model call already
running finishes on its thread, its result unused.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

from citation_verifier.models import Label, Reason, UrlVerdict
from citation_verifier.settings import Settings

T = TypeVar("T")

RESERVE_S = 0.5
"""Kept back from each citation's share of the deadline: the time to assemble the answer."""


@dataclass(frozen=True)
class Deadline:
    """A point in ``time.monotonic()`` time, and the configured length it came from."""

    at: float
    seconds: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        """The deadline ``seconds`` from now."""
        return cls(time.monotonic() + seconds, seconds)

    def remaining(self) -> float:
        """Seconds left for a citation (never negative), the reserve kept back."""
        return max(0.0, self.at - RESERVE_S - time.monotonic())


def request_deadline(settings: Settings, *, unless_unset: bool = False) -> Deadline | None:
    """The deadline of a request starting now. ``unless_unset`` (the CLI, batch): None when
    ``REQUEST_DEADLINE_S`` was not set explicitly."""
    if unless_unset and "request_deadline_s" not in settings.model_fields_set:
        return None
    return Deadline.after(settings.request_deadline_s)


async def in_time(deadline: Deadline | None, work: Awaitable[T]) -> T | None:
    """``work``'s result; None when ``deadline`` passes first (``work`` is cancelled)."""
    if deadline is None:
        return await work
    try:
        return await asyncio.wait_for(work, deadline.remaining())
    except TimeoutError:
        return None


def late_verdict(url: str, deadline: Deadline, stage: str) -> UrlVerdict:
    """The verdict of a citation the deadline stopped while ``stage`` ("loading the page",
    "judging")."""
    return UrlVerdict(
        url=url,
        label=Label.NOT_FOUND,
        confidence=0.0,
        reason=Reason.DEADLINE_EXCEEDED,
        detail=f"the request's deadline of {deadline.seconds:g} s (REQUEST_DEADLINE_S) passed "
        f"while {stage}",
    )
