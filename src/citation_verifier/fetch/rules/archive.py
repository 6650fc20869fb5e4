"""Rule: archive rescue. A citation the live page cannot back (``ARCHIVE_FALLBACK``) is read
from the Wayback Machine's capture closest to the citation date, through the same guard, size
and time bounds, redirect handling, extraction and rendering as any page, and judged on that.

The capture is fetched directly, never through a paid crawling API, and the lookup has its own
budget: an archive that is down, slow or empty leaves the live outcome as it was, with the
attempt recorded (``archive_lookup``). A cited page at a non-public address (loopback, private,
link-local, ``localhost``) is never looked up, whatever ``ALLOW_PRIVATE_URLS`` says: the lookup
would send its URL to the archive, a third party (``ARCHIVE_PRIVATE_URLS`` allows it, for an
archive one runs oneself)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from citation_verifier.fetch.archive import ArchiveClient, ArchiveUnavailable, Capture, not_public
from citation_verifier.fetch.outcomes import Document, Settled
from citation_verifier.fetch.rules.base import LoadState, Next, Outcome
from citation_verifier.models import Label, Reason

LoadCapture = Callable[[str], Awaitable[Document | Settled]]
"""Loads a capture's raw URL through a fetch policy (a direct fetcher's, without this rule)."""

# Outcomes that are a page gone: what ARCHIVE_FALLBACK=dead rescues (with every unreachable).
_GONE = frozenset({Reason.REDIRECTED_TO_HOMEPAGE})
# Never looked up: a URL the SSRF guard refused must not reach a third party either; a page
# behind a login, a paywall or an age gate is the publisher's to give, not the archive's.
_NEVER = frozenset(
    {Reason.FORBIDDEN_ADDRESS, Reason.LOGIN_REQUIRED, Reason.PAYWALLED, Reason.AGE_GATE}
)


def rescues(fallback: Literal["dead", "never", "always"], settled: Settled) -> bool:
    """Whether ``ARCHIVE_FALLBACK=fallback`` looks up the archive for ``settled``: ``dead``
    rescues dead pages (every unreachable outcome but a live page nothing here could render,
    and homepage redirects), ``always`` also every other outcome where the live page gave
    nothing to judge (empty, JavaScript-only, ...)."""
    if fallback == "never" or settled.reason in _NEVER:
        return False
    if fallback == "always":
        return True
    live = settled.reason == Reason.JS_REQUIRED  # unread here, but not gone
    return (settled.label == Label.UNREACHABLE and not live) or settled.reason in _GONE


@dataclass(frozen=True)
class ArchivedLoad:
    """What the archive gave for one URL and date: a document to judge, or why not."""

    document: Document | None
    problem: str | None = None
    """Why there is no document: nothing archived, an error-page capture, archive down."""
    capture: Capture | None = None
    requests: int = 0


class ArchiveCopies:
    """Loads the capture of a URL closest to a date as a :class:`Document`, through
    ``load_capture``; ``close`` releases what that loader holds. A URL at a non-public address
    is not looked up unless ``private_urls`` (``ARCHIVE_PRIVATE_URLS``); its host is resolved
    within ``resolve_timeout_s`` to tell."""

    def __init__(
        self,
        client: ArchiveClient,
        load_capture: LoadCapture,
        close: Callable[[], Awaitable[None]] | None = None,
        *,
        private_urls: bool = False,
        resolve_timeout_s: float = 10.0,
    ) -> None:
        self.client = client
        self._load_capture = load_capture
        self._close = close
        self._private_urls = private_urls
        self._resolve_timeout_s = resolve_timeout_s

    async def aclose(self) -> None:
        """Close the archive client and the capture loader."""
        try:
            await self.client.aclose()
        finally:
            if self._close is not None:
                await self._close()

    async def load(self, url: str, when: datetime | None, live_reason: str | None) -> ArchivedLoad:
        """The capture of ``url`` closest to ``when`` (None: the latest), read like any page."""
        if not self._private_urls and (why := await not_public(url, self._resolve_timeout_s)):
            return ArchivedLoad(
                None,
                f"the archive was not asked: {why}, and a lookup would send this internal URL "
                "to the archive (ARCHIVE_PRIVATE_URLS=true allows it, for an archive you run)",
            )
        try:
            capture = await self.client.closest(url, when)
        except ArchiveUnavailable as error:
            return ArchivedLoad(None, f"the archive could not be asked: {error}")
        if capture is None:
            return ArchivedLoad(None, "the archive holds no capture of this URL")
        if capture.status is not None and not 200 <= capture.status < 300:
            return ArchivedLoad(
                None,
                f"the closest capture ({capture.timestamp}) is an error page "
                f"(HTTP {capture.status})",
                capture,
            )
        loaded = await self._load_capture(capture.raw_url)
        if isinstance(loaded, Settled):
            return ArchivedLoad(
                None,
                f"the closest capture ({capture.timestamp}) could not be used: {loaded.reason} "
                f"({loaded.detail})",
                capture,
            )
        document = dataclasses.replace(
            loaded,
            url=url,
            archive_url=capture.url,
            archived_at=capture.archived_at,
            live_reason=live_reason,
        )
        return ArchivedLoad(document, None, capture)


class ArchiveRescue:
    """Looks up the archive for the outcomes :func:`rescues` names; a usable capture replaces
    the outcome, anything else leaves it as it was with the attempt noted."""

    def __init__(self, copies: ArchiveCopies, fallback: Literal["dead", "never", "always"]) -> None:
        self._copies = copies
        self._fallback = fallback

    async def apply(self, state: LoadState, proceed: Next) -> Outcome:
        """The live outcome, or the archived copy's."""
        outcome = await proceed(state)
        live = outcome.result
        if not isinstance(live, Settled) or not rescues(self._fallback, live):
            return outcome
        archived = await self._copies.load(state.url, state.cited_at, live.reason)
        if archived.document is None:
            return Outcome(dataclasses.replace(live, archive_lookup=archived.problem), outcome.page)
        return Outcome(archived.document, outcome.page)
