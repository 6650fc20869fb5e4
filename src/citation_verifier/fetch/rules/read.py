"""The innermost step: fetch the page and read it. The page checks run in order, the first that
matches settles the citation: wall (a bot challenge, consent, login, age or geo notice, a rate
limit, a bare 401/403: whatever the status) → dead link → homepage redirect → content type →
(readable text, falling back to the whole page when thin) → PDF without text → soft 404 → empty
page. What passes them all is a :class:`Document` for the judge, marked ``paywalled`` when the
publisher says it is."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import TypeVar

from citation_verifier import extract
from citation_verifier.fetch.base import FetchedPage, Fetcher, FetchFailed
from citation_verifier.fetch.outcomes import Document, Settled
from citation_verifier.fetch.reading import (
    is_homepage_redirect,
    is_soft_404,
    local_text,
    page_kind,
)
from citation_verifier.fetch.rules.base import LoadState, Outcome, settle
from citation_verifier.fetch.walls import Seen, Wall, classify, paywall
from citation_verifier.models import Label, Reason, http_reason
from citation_verifier.settings import Settings
from citation_verifier.workers import extraction_pool

Finding = tuple[Label, str, str]
"""What settles a page: its label, reason and a readable detail."""
T = TypeVar("T")
PageCheck = Callable[[FetchedPage], Finding | None]
TextCheck = Callable[[FetchedPage, str, str, str, Settings], Finding | None]
# Error statuses a wall answers with: their body is read before the status settles the page.
WALL_STATUSES = frozenset({401, 403, 429, 451, 503})


def dead_link(page: FetchedPage) -> Finding | None:
    """A status other than 2xx: unreachable, ``http_<code>``."""
    if 200 <= page.status < 300:
        return None
    return Label.UNREACHABLE, http_reason(page.status), f"the origin answered HTTP {page.status}"


def homepage_redirect(page: FetchedPage) -> Finding | None:
    """A deep link that landed on the site's homepage: the page it named is gone."""
    if not is_homepage_redirect(page.requested_url, page.final_url):
        return None
    return (
        Label.NOT_FOUND,
        Reason.REDIRECTED_TO_HOMEPAGE,
        f"the deep link redirected to the homepage {page.final_url}",
    )


def unreadable_type(page: FetchedPage) -> Finding | None:
    """A body that is not HTML, text or PDF (images, archives, binaries)."""
    if page_kind(page) is not None:
        return None
    return (
        Label.NOT_FOUND,
        Reason.UNSUPPORTED_CONTENT_TYPE,
        f"cannot read content of type {page.content_type or 'unknown (binary)'}",
    )


def pdf_without_text(
    page: FetchedPage, kind: str, text: str, title: str, settings: Settings
) -> Finding | None:
    """A PDF whose text could not be extracted (scans, images)."""
    if kind != "pdf" or extract.visible_chars(text):
        return None
    return Label.NOT_FOUND, Reason.PDF_UNSUPPORTED, "the PDF has no extractable text"


def soft_404(
    page: FetchedPage, kind: str, text: str, title: str, settings: Settings
) -> Finding | None:
    """A 200 that is a short "page not found" template."""
    if not is_soft_404(text, title, settings):
        return None
    return Label.UNREACHABLE, Reason.SOFT_404, "the page is a short 'page not found' template"


def empty_page(
    page: FetchedPage, kind: str, text: str, title: str, settings: Settings
) -> Finding | None:
    """A page that loaded with no readable text."""
    if extract.visible_chars(text):
        return None
    return Label.NOT_FOUND, Reason.EMPTY_PAGE, "the page has no text"


PAGE_CHECKS: Sequence[PageCheck] = (dead_link, homepage_redirect, unreadable_type)
"""Checks on the response itself, in order."""
TEXT_CHECKS: Sequence[TextCheck] = (pdf_without_text, soft_404, empty_page)
"""Checks on the page's readable text, in order."""


def settle_wall(page: FetchedPage, wall: Wall) -> Outcome:
    """The page is a wall: unreachable with the wall's reason and evidence."""
    outcome = settle(page, Label.UNREACHABLE, wall.reason, wall.detail)
    assert isinstance(outcome.result, Settled)
    return Outcome(dataclasses.replace(outcome.result, retry_after_s=wall.retry_after_s), page)


class ReadPage:
    """Fetches with the backend and reads the page through :data:`PAGE_CHECKS`, text
    extraction and :data:`TEXT_CHECKS`."""

    def __init__(self, fetcher: Fetcher, settings: Settings) -> None:
        self._fetcher = fetcher
        self._settings = settings

    async def __call__(self, state: LoadState) -> Outcome:
        """One fetch of ``state.url`` (rendered when asked) and what it reads as."""
        page = await self._fetch(state, render=state.render, refuse_consent=state.refuse_consent)
        kind = page_kind(page)
        if page.status in WALL_STATUSES and kind in ("html", "text"):
            # An error page's text as it came: never a second (paid) fetch to read a wall.
            if page.markdown is not None:
                text = extract.page_text(page.markdown)
            else:
                text, _, _ = await self._extract(page, kind)
            wall, _ = await self._walls(page, text, paywall_too=False)
            if wall is not None:
                return settle_wall(page, wall)
        for check in PAGE_CHECKS:
            finding = check(page)
            if finding is not None:
                return settle(page, *finding)
        assert kind is not None  # unreadable_type settled it otherwise
        text, title, fallback, rid = await self._text(state, page, kind)
        # What follows is decided on that text: its page's rid is the verdict's.
        page = dataclasses.replace(page, rid=rid)
        paid = None
        if kind != "pdf":
            wall, paid = await self._walls(page, text, paywall_too=True)
            if wall is not None:
                return settle_wall(page, wall)
        for text_check in TEXT_CHECKS:
            finding = text_check(page, kind, text, title, self._settings)
            if finding is not None:
                return settle(page, *finding)
        document = Document(
            state.url,
            page.final_url,
            page.status,
            text,
            kind,
            fallback,
            page.rid,
            page.rendered,
            body=page.body,
            content_type=page.content_type,
            wall=None if paid is None else paid.reason,
            wall_detail=None if paid is None else paid.detail,
        )
        return Outcome(document, page)

    async def _text(
        self, state: LoadState, page: FetchedPage, kind: str
    ) -> tuple[str, str, bool, str | None]:
        """``(text, title, full_page_fallback, rid)`` of the page, however it came."""
        if page.markdown is not None:
            return await self._backend_markdown(state, page)
        text, title, fallback = await self._extract(page, kind)
        return text, title, fallback, page.rid

    async def _walls(
        self, page: FetchedPage, text: str, *, paywall_too: bool
    ) -> tuple[Wall | None, Wall | None]:
        """The wall in front of the page, and (``paywall_too``, when there is none) its
        paywall: read in the extraction pool (parsing a large page is no work for the loop)."""
        work = functools.partial(
            find_walls, page, text, self._settings.wall_max_outside_chars, paywall_too
        )
        return await self._in_pool(work, page, "reading the page")

    async def _extract(self, page: FetchedPage, kind: str) -> tuple[str, str, bool]:
        """The page's text, extracted in the bounded extraction pool within EXTRACT_TIMEOUT_S
        (a PDF stops itself there, with its pages so far; other work cannot be stopped, so
        the citation is a timeout while the thread finishes on its own)."""
        settings = self._settings
        work = functools.partial(
            local_text,
            page,
            kind,
            settings.readability_min_chars,
            pdf_max_pages=settings.pdf_max_pages,
        )
        return await self._in_pool(work, page, "reading the page's text")

    async def _in_pool(self, work: Callable[[], T], page: FetchedPage, what: str) -> T:
        """``work`` in the bounded extraction pool within EXTRACT_TIMEOUT_S; past it, the
        citation is a ``timeout`` saying ``what`` took too long."""
        settings = self._settings
        try:
            return await extraction_pool(settings.extract_workers).run(
                work, settings.extract_timeout_s, prepare=extract.load_libraries
            )
        except TimeoutError:
            raise FetchFailed(
                Reason.TIMEOUT,
                f"{what} took more than {settings.extract_timeout_s:g} s",
                final_url=page.final_url,
                render_may_help=False,
            ) from None

    async def _fetch(
        self,
        state: LoadState,
        *,
        readability: bool = True,
        render: bool = False,
        refuse_consent: bool = False,
    ) -> FetchedPage:
        """One fetch call; its paid attempts go to the ledger whether it succeeds or fails."""
        try:
            page = await self._fetcher.fetch(
                state.url, readability=readability, render=render, refuse_consent=refuse_consent
            )
        except FetchFailed as failure:
            state.ledger.extend(failure.attempts)
            raise
        state.ledger.extend(page.attempts)
        return page

    async def _backend_markdown(
        self, state: LoadState, page: FetchedPage
    ) -> tuple[str, str, bool, str | None]:
        """The backend's readable Markdown; its whole-page version when that is thin (fetched
        the same way, rendered or not). Returns the rid of the page whose text is used."""
        assert page.markdown is not None
        text = extract.page_text(page.markdown)  # the backend's Markdown, as the page's text
        if extract.visible_chars(text) >= self._settings.readability_min_chars:
            return text, "", False, page.rid
        full = await self._fetch(state, readability=False, render=page.rendered)
        return extract.page_text(full.markdown or ""), "", True, full.rid


def find_walls(
    page: FetchedPage,
    text: str,
    max_outside_chars: int,
    paywall_too: bool,
    deadline: float | None = None,
) -> tuple[Wall | None, Wall | None]:
    """``(wall, paywall)`` of a fetched page whose readable text is ``text`` (fetch/walls.py);
    the paywall only when asked and there is no wall."""
    del deadline  # regular expressions and one parse: bounded by the body size cap
    html = ""
    if page.markdown is None and page_kind(page) == "html":
        html = extract.decode_body(page.body, page.charset)
    seen = Seen(page.status, page.headers, page.requested_url, page.final_url, html, text)
    wall = classify(seen, max_outside_chars)
    if wall is not None or not paywall_too:
        return wall, None
    return None, paywall(seen, max_outside_chars)
