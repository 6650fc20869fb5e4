"""Rule: one bounded recovery from a wall, each step at most once per URL, in order:

1. a rate limit whose ``Retry-After`` is short (``RETRY_AFTER_MAX_S``) is waited once; a long
   one is reported, never slept through;
2. a consent wall is loaded in the browser with consent refused (DuckDuckGo's autoconsent
   rules), then read;
3. a bot challenge gets the browser once (a JavaScript challenge may pass in a real browser);
4. a bot wall, rate limit, geo block or bare refusal goes to the Crawling API when a token is
   set and the page did not already come from it.

What is still a wall after that stays one; the archive rescue (outermost, ``live_reason`` naming
the wall) may then read the archived copy. Login walls, paywalls and age gates get no recovery:
we never log in, never get around a paywall, never answer an age gate. Every step is recorded
(``recoveries``); paid requests go to the ledger like any other.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable

from citation_verifier.fetch.base import Fetcher, FetchFailed
from citation_verifier.fetch.outcomes import Settled
from citation_verifier.fetch.rules.base import LoadState, Next, Outcome
from citation_verifier.models import Reason, Recovery
from citation_verifier.settings import Settings

ReadWith = Callable[[LoadState], Awaitable[Outcome]]
"""Reads a page through another backend (the Crawling API's ``ReadPage``)."""

# Walls the Crawling API (and after it the archive) may get past: they are about who asks.
_CRAWLABLE = frozenset(
    {Reason.BOT_CHALLENGE, Reason.RATE_LIMITED, Reason.GEO_BLOCKED, Reason.BLOCKED}
)


class WallRecovery:
    """Tries the recovery steps that fit the wall, each once, and keeps the first outcome that
    is no longer a wall (or the last wall seen)."""

    def __init__(
        self,
        fetcher: Fetcher,
        settings: Settings,
        crawl: ReadWith | None = None,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._fetcher = fetcher
        self._settings = settings
        self._crawl = crawl
        self._sleep = sleep

    async def apply(self, state: LoadState, proceed: Next) -> Outcome:
        """The outcome of the load, after the recovery steps its wall calls for."""
        outcome = await proceed(state)
        if not self._settings.wall_recovery or state.render:
            return outcome  # a rendering asked for by a step of this rule is not recovered again
        tried: set[str] = set()
        while (step := self._next_step(outcome, tried)) is not None:
            tried.add(step)
            outcome = await self._attempt(step, state, proceed, outcome)
        return outcome

    def _next_step(self, outcome: Outcome, tried: set[str]) -> str | None:
        wall = _wall(outcome)
        if wall is None:
            return None
        assert isinstance(outcome.result, Settled)
        may_render = self._settings.render_js != "never" and self._fetcher.can_render
        rendered = outcome.page is not None and outcome.page.rendered
        wait = outcome.result.retry_after_s
        candidates = (
            (
                "retry_after",
                wall == Reason.RATE_LIMITED
                and wait is not None
                and wait <= self._settings.retry_after_max_s,
            ),
            (
                "refuse_consent",
                wall == Reason.CONSENT_WALL and may_render and self._fetcher.can_refuse_consent,
            ),
            ("browser", wall == Reason.BOT_CHALLENGE and may_render and not rendered),
            ("crawling_api", wall in _CRAWLABLE and self._crawl is not None),
        )
        for step, fits in candidates:
            if fits and step not in tried:
                return step
        return None

    async def _attempt(
        self, step: str, state: LoadState, proceed: Next, before: Outcome
    ) -> Outcome:
        wall = _wall(before)
        assert wall is not None and isinstance(before.result, Settled)
        started = time.monotonic()
        try:
            if step == "retry_after":
                await self._sleep(before.result.retry_after_s or 0.0)
                after = await proceed(state)
            elif step == "refuse_consent":
                after = await proceed(dataclasses.replace(state, render=True, refuse_consent=True))
            elif step == "browser":
                after = await proceed(dataclasses.replace(state, render=True))
            else:
                assert self._crawl is not None
                after = await self._crawl(dataclasses.replace(state, render=False))
            result = _wall(after) or "read"
            if isinstance(after.result, Settled) and result == "read":
                result = after.result.reason
        except FetchFailed as failure:  # the step failed: the wall stands, the failure is noted
            after, result = before, failure.reason
        state.recoveries.append(
            Recovery(
                step=step,
                wall=wall,
                outcome=result,
                seconds=round(time.monotonic() - started, 3),
            )
        )
        return after


def _wall(outcome: Outcome) -> Reason | None:
    """The wall reason of a settled outcome (None for a document or any other outcome)."""
    result = outcome.result
    if isinstance(result, Settled) and result.reason in _RECOVERABLE:
        return Reason(result.reason)
    return None


_RECOVERABLE = frozenset({*_CRAWLABLE, Reason.CONSENT_WALL})
