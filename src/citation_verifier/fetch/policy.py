"""The fetch policy: one ordered chain of rules that every fetch backend runs through.

Outermost first: archive rescue (added by the verifier when ``ARCHIVE_FALLBACK`` allows) →
fetch failures → wall recovery (consent refused, browser, Crawling API) → JavaScript rendering →
read the page (wall → dead link → homepage redirect → content type → readable text, falling back
to the whole page when thin → PDF without text → soft 404 → empty page).
Each rule is one unit in ``fetch/rules/``, the same small shape; the order lives
here. The result is either a :class:`Document` to judge or a :class:`Settled` outcome; the
judge never sees the latter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime

from citation_verifier.fetch.base import Fetcher
from citation_verifier.fetch.outcomes import Document, Settled
from citation_verifier.fetch.rules.base import LoadState, Outcome, Rule
from citation_verifier.fetch.rules.failures import FetchFailures
from citation_verifier.fetch.rules.read import ReadPage
from citation_verifier.fetch.rules.rendering import JavaScriptRendering
from citation_verifier.fetch.rules.walls import WallRecovery
from citation_verifier.settings import Settings

__all__ = ["Document", "PagePolicy", "Settled"]


class PagePolicy:
    """Applies the fetch rules to one URL through any :class:`Fetcher`. ``outer`` rules run
    before the standard ones (the verifier adds the archive rescue there); ``crawler``, when
    given, is the Crawling API a bot wall is tried with once."""

    def __init__(
        self,
        fetcher: Fetcher,
        settings: Settings,
        outer: Sequence[Rule] = (),
        crawler: Fetcher | None = None,
    ) -> None:
        crawl = None if crawler is None else ReadPage(crawler, settings)
        self._rules: tuple[Rule, ...] = (
            *outer,
            FetchFailures(),
            WallRecovery(fetcher, settings, crawl),
            JavaScriptRendering(fetcher, settings),
        )
        self._read = ReadPage(fetcher, settings)

    async def load(self, url: str, cited_at: datetime | None = None) -> Document | Settled:
        """Fetch ``url`` and return its readable text, or the outcome that settles it. The
        result carries the paid attempts of every fetch call this load made."""
        state = LoadState(url, cited_at)
        outcome = await self._run(0, state)
        return dataclasses.replace(
            outcome.result, attempts=tuple(state.ledger), recoveries=tuple(state.recoveries)
        )

    async def _run(self, index: int, state: LoadState) -> Outcome:
        if index == len(self._rules):
            return await self._read(state)
        return await self._rules[index].apply(
            state, lambda next_state: self._run(index + 1, next_state)
        )
