"""The shape every fetch rule has, and what flows through the chain."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from citation_verifier.fetch.base import FetchedPage
from citation_verifier.fetch.outcomes import Document, Settled
from citation_verifier.models import Attempt, Label, Recovery


@dataclass
class LoadState:
    """One load of one URL, as the rules see it."""

    url: str
    cited_at: datetime | None = None
    """When the URL was cited (the archive rule looks for the capture closest to it)."""
    render: bool = False
    """Ask the backend for the page after JavaScript ran."""
    ledger: list[Attempt] = field(default_factory=list)
    """Every paid request of this load, whichever rule made it (shared by copies)."""
    recoveries: list[Recovery] = field(default_factory=list)
    """Every step taken to get past a wall (shared by copies)."""
    refuse_consent: bool = False
    """Render with consent refused (the wall recovery asks for it)."""


@dataclass(frozen=True)
class Outcome:
    """Where a load stands: the result, and the page it came from (None when no page came)."""

    result: Document | Settled
    page: FetchedPage | None = None


Next = Callable[[LoadState], Awaitable[Outcome]]
"""The rest of the chain."""


class Rule(Protocol):
    """One fetch rule. It may call ``proceed`` (once, again with another state, or not at all)
    and return its outcome, or one of its own."""

    async def apply(self, state: LoadState, proceed: Next) -> Outcome:
        """The outcome of ``state`` under this rule and the ones after it."""
        ...


def settle(page: FetchedPage, label: Label, reason: str, detail: str) -> Outcome:
    """An outcome that settles the citation from what ``page`` is (no judge needed)."""
    return Outcome(
        Settled(
            page.requested_url,
            label,
            reason,
            detail,
            page.final_url,
            page.status,
            page.rid,
            page.rendered,
        ),
        page,
    )
