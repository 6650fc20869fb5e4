"""What loading one URL ends in: a :class:`Document` to judge, or a :class:`Settled` outcome
the fetch rules reached on their own (the judge never sees it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from citation_verifier.models import Attempt, Label, Recovery


@dataclass(frozen=True)
class Document:
    """Readable text of a page that passed every rule and goes on to the judge."""

    url: str
    final_url: str
    status: int
    text: str
    kind: str
    """``html``, ``pdf`` or ``text``."""
    full_page_fallback: bool = False
    rid: str | None = None
    rendered: bool = False
    attempts: tuple[Attempt, ...] = ()
    """Every paid API request of this load (all fetch calls), in order."""
    body: bytes = b""
    """The response body the text came from (kept for the audit snapshot)."""
    content_type: str = ""
    archive_url: str | None = None
    """Set when this is the Wayback Machine's capture of a page the live web could not give:
    the capture as people open it."""
    archived_at: datetime | None = None
    live_reason: str | None = None
    """What happened to the live page when this is its archived copy."""
    wall: str | None = None
    """``paywalled`` when the page is behind a paywall: judged on its readable part, and
    unreachable/paywalled when that part does not settle the claim."""
    wall_detail: str | None = None
    recoveries: tuple[Recovery, ...] = ()
    """Steps this load took to get past a wall."""

    @property
    def credits(self) -> float:
        """Credits of all attempts of this load."""
        return sum(a.credits for a in self.attempts)


@dataclass(frozen=True)
class Settled:
    """A verdict the fetch stage reached on its own (dead link, redirect, soft 404, ...)."""

    url: str
    label: Label
    reason: str
    detail: str
    final_url: str | None = None
    status: int | None = None
    rid: str | None = None
    rendered: bool = False
    attempts: tuple[Attempt, ...] = ()
    """Every paid API request of this load (all fetch calls), in order."""
    archive_lookup: str | None = None
    """An archive lookup that could not rescue this outcome, and why."""
    retry_after_s: float | None = None
    """A rate limit's Retry-After that was too long to wait for."""
    recoveries: tuple[Recovery, ...] = ()
    """Steps this load took to get past a wall."""

    @property
    def credits(self) -> float:
        """Credits of all attempts of this load."""
        return sum(a.credits for a in self.attempts)
