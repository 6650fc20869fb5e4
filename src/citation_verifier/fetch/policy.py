"""The fetch rules, as one ordered chain that every fetch backend runs through.

fetch → dead link → homepage redirect → content type (PDF / HTML / text) → readability text,
falling back to the whole page when thin → soft 404 → empty page. The result is either a
:class:`Document` to judge or a :class:`Settled` outcome; the judge never sees the latter.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from citation_verifier import extract
from citation_verifier.fetch.base import FetchedPage, Fetcher, FetchFailed
from citation_verifier.models import Attempt, Label, Reason, http_reason
from citation_verifier.settings import Settings

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset({"application/json", "application/xml", "application/ld+json"})
_NOT_FOUND_TEMPLATE = re.compile(
    r"""\b404\b|page\s+(?:was\s+)?not\s+found|not\s+be\s+found|(?:could|can)(?:n['’]t|\s*not)\s+be\s+found
    |no\s+longer\s+(?:exists?|available)|does(?:n['’]t|\s+not)\s+exist|page\s+(?:you|you['’]re)\s+
    (?:are\s+)?looking\s+for|page\s+(?:has\s+been|was)\s+(?:removed|deleted|moved)|nothing\s+(?:was\s+)?found
    |seite\s+nicht\s+gefunden|página\s+no\s+encontrada|page\s+introuvable""",
    re.I | re.X,
)
# Failures where the page itself may well exist: the honest label is not_found, not unreachable.
_NOT_FOUND_FAILURES = frozenset(
    {Reason.TOO_LARGE, Reason.UNSUPPORTED_CONTENT_TYPE, Reason.JS_REQUIRED}
)
# Failures of a first, cheap attempt that a rendering attempt may overcome.
_RENDER_ON_FAILURE = frozenset({Reason.CRAWL_FAILED})
# JavaScript-shell signals in a raw HTML body ("the page needs a browser").
_SCRIPT_TAG = re.compile(r"<script\b", re.I)
_NOSCRIPT = re.compile(r"<noscript\b[^>]*>(.*?)</noscript\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_ENABLE_JS = re.compile(
    r"""\b(?:enable|turn\s+on|activate|allow|requires?|needs?|without)\b.{0,60}?\bjavascript\b
    |\bjavascript\b.{0,40}?\b(?:enabled|required|disabled|is\s+off|turned\s+off|needed)\b""",
    re.I | re.S | re.X,
)


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

    @property
    def credits(self) -> float:
        """Credits of all attempts of this load."""
        return sum(a.credits for a in self.attempts)


def _path(url: str) -> str:
    return unquote(urlsplit(url).path).rstrip("/") or "/"


def is_homepage_redirect(requested_url: str, final_url: str) -> bool:
    """A deep link (path deeper than ``/``) that ended on ``/`` after redirects."""
    return _path(requested_url) != "/" and _path(final_url) == "/"


def is_soft_404(text: str, title: str, settings: Settings) -> bool:
    """A short page whose text or title reads like a "page not found" template. Long articles
    that merely mention 404 are kept (the length bound comes first)."""
    if extract.visible_chars(text) >= settings.soft_404_max_chars:
        return False
    return bool(_NOT_FOUND_TEMPLATE.search(text) or _NOT_FOUND_TEMPLATE.search(title))


def _kind(page: FetchedPage) -> str | None:
    head = page.body[:1024].lstrip()
    if page.content_type == "application/pdf" or head.startswith(b"%PDF-"):
        return "pdf"
    if page.markdown is not None or page.content_type in _HTML_TYPES:
        return "html"
    if page.content_type.startswith("text/") or page.content_type in _TEXT_TYPES:
        return "text"
    if not page.content_type or page.content_type == "application/octet-stream":
        if b"\x00" in page.body[:4096]:
            return None
        lowered = head.lower()
        return "html" if lowered.startswith((b"<!doctype html", b"<html")) else "text"
    return None


def js_signals(page: FetchedPage) -> tuple[bool, bool]:
    """``(has_script, noscript_notice)`` of an HTML body: whether it loads any ``<script>``, and
    whether a ``<noscript>`` block tells the reader to enable JavaScript."""
    if page.markdown is not None or _kind(page) != "html":
        return False, False
    decoded = extract.decode_body(page.body, page.charset)
    notice = any(_ENABLE_JS.search(_TAG.sub(" ", block)) for block in _NOSCRIPT.findall(decoded))
    return bool(_SCRIPT_TAG.search(decoded)), notice


class PagePolicy:
    """Applies the fetch rules to one URL through any :class:`Fetcher`."""

    def __init__(self, fetcher: Fetcher, settings: Settings) -> None:
        self._fetcher = fetcher
        self._settings = settings

    async def load(self, url: str) -> Document | Settled:
        """Fetch ``url`` and return its readable text, or the outcome that settles it. The
        result carries the paid attempts of every fetch call this load made."""
        ledger: list[Attempt] = []
        result = await self._load(url, ledger)
        return dataclasses.replace(result, attempts=tuple(ledger))

    async def _load(self, url: str, ledger: list[Attempt]) -> Document | Settled:
        try:
            try:
                page = await self._fetch(ledger, url)
                result = await self._interpret(url, page, ledger)
            except FetchFailed as failure:
                # A failed crawl (first attempt or its no-readability retry) may need a browser.
                if not self._render_may_help(failure):
                    raise
                return await self._interpret(
                    url, await self._fetch(ledger, url, render=True), ledger
                )
            if self._needs_rendering(page, result):
                # Same interpretation on the rendered page: it passes exactly the static checks.
                result = await self._interpret(
                    url, await self._fetch(ledger, url, render=True), ledger
                )
            elif not page.rendered and not self._may_render and self._needs_browser(page, result):
                # Judging the empty shell would be a wrong verdict; say why there is none.
                why = (
                    "rendering is off (RENDER_JS=never)"
                    if self._settings.render_js == "never"
                    else "this backend cannot render it (no browser or JavaScript token)"
                )
                return self._settle(
                    page,
                    Label.NOT_FOUND,
                    Reason.JS_REQUIRED,
                    f"the page needs JavaScript to show its text and {why}",
                )
            return result
        except FetchFailed as failure:
            label = Label.NOT_FOUND if failure.reason in _NOT_FOUND_FAILURES else Label.UNREACHABLE
            return Settled(url, label, failure.reason, failure.detail, final_url=failure.final_url)

    async def _fetch(
        self, ledger: list[Attempt], url: str, *, readability: bool = True, render: bool = False
    ) -> FetchedPage:
        """One fetch call; its paid attempts go to ``ledger`` whether it succeeds or fails."""
        try:
            page = await self._fetcher.fetch(url, readability=readability, render=render)
        except FetchFailed as failure:
            ledger.extend(failure.attempts)
            raise
        ledger.extend(page.attempts)
        return page

    def _render_may_help(self, failure: FetchFailed) -> bool:
        return failure.reason in _RENDER_ON_FAILURE and failure.render_may_help and self._may_render

    @property
    def _may_render(self) -> bool:
        """The backend can render and ``RENDER_JS`` allows it."""
        return self._settings.render_js != "never" and self._fetcher.can_render

    def _thin(self, result: Document | Settled) -> bool:
        if isinstance(result, Document):
            return result.kind == "html" and (
                extract.visible_chars(result.text) < self._settings.readability_min_chars
            )
        return result.reason == Reason.EMPTY_PAGE

    def _short_with_notice(self, page: FetchedPage, result: Document | Settled) -> bool:
        """Short readable text (under ``RENDER_NOTICE_MAX_CHARS``; navigation, a header) beside
        a ``<noscript>`` notice that asks for JavaScript: the content is not in the HTML."""
        return (
            isinstance(result, Document)
            and result.kind == "html"
            and extract.visible_chars(result.text) < self._settings.render_notice_max_chars
            and js_signals(page)[1]
        )

    def _needs_rendering(self, page: FetchedPage, result: Document | Settled) -> bool:
        """JavaScript escalation, when the backend may render: the cheap attempt left
        the page thin or empty even after the whole-page fallback, or its short text sits beside
        a ``<noscript>`` enable-JavaScript notice. ``RENDER_JS=always`` renders every HTML page
        that answered 2xx."""
        if page.rendered or not self._may_render:
            return False
        if self._settings.render_js == "always":
            if isinstance(result, Document):
                return result.kind == "html"
            return result.reason in (Reason.EMPTY_PAGE, Reason.SOFT_404)
        return self._thin(result) or self._short_with_notice(page, result)

    def _needs_browser(self, page: FetchedPage, result: Document | Settled) -> bool:
        """The static page is a JavaScript shell: thin or empty while it loads scripts, or short
        beside a ``<noscript>`` enable-JavaScript notice. A short page without scripts is not."""
        if self._short_with_notice(page, result):
            return True
        return self._thin(result) and any(js_signals(page))

    def _settle(self, page: FetchedPage, label: Label, reason: str, detail: str) -> Settled:
        return Settled(
            page.requested_url,
            label,
            reason,
            detail,
            page.final_url,
            page.status,
            page.rid,
            page.rendered,
        )

    async def _interpret(
        self, url: str, page: FetchedPage, ledger: list[Attempt]
    ) -> Document | Settled:
        if not 200 <= page.status < 300:
            return self._settle(
                page,
                Label.UNREACHABLE,
                http_reason(page.status),
                f"the origin answered HTTP {page.status}",
            )
        if is_homepage_redirect(page.requested_url, page.final_url):
            return self._settle(
                page,
                Label.NOT_FOUND,
                Reason.REDIRECTED_TO_HOMEPAGE,
                f"the deep link redirected to the homepage {page.final_url}",
            )
        kind = _kind(page)
        if kind is None:
            return self._settle(
                page,
                Label.NOT_FOUND,
                Reason.UNSUPPORTED_CONTENT_TYPE,
                f"cannot read content of type {page.content_type or 'unknown (binary)'}",
            )
        if page.markdown is not None:
            text, title, fallback, rid = await self._backend_markdown(url, page, ledger)
            # What follows is decided on that text: its page's rid is the verdict's.
            page = dataclasses.replace(page, rid=rid)
        else:
            text, title, fallback = await asyncio.to_thread(
                local_text, page, kind, self._settings.readability_min_chars
            )
        if kind == "pdf" and not extract.visible_chars(text):
            return self._settle(
                page, Label.NOT_FOUND, Reason.PDF_UNSUPPORTED, "the PDF has no extractable text"
            )
        if is_soft_404(text, title, self._settings):
            return self._settle(
                page,
                Label.UNREACHABLE,
                Reason.SOFT_404,
                "the page is a short 'page not found' template",
            )
        if not extract.visible_chars(text):
            return self._settle(page, Label.NOT_FOUND, Reason.EMPTY_PAGE, "the page has no text")
        return Document(
            url,
            page.final_url,
            page.status,
            text,
            kind,
            fallback,
            page.rid,
            page.rendered,
            body=page.body,
            content_type=page.content_type,
        )

    async def _backend_markdown(
        self, url: str, page: FetchedPage, ledger: list[Attempt]
    ) -> tuple[str, str, bool, str | None]:
        """The backend's readable Markdown; its whole-page version when that is thin (fetched
        the same way, rendered or not). Returns the rid of the page whose text is used."""
        assert page.markdown is not None
        if extract.visible_chars(page.markdown) >= self._settings.readability_min_chars:
            return page.markdown, "", False, page.rid
        full = await self._fetch(ledger, url, readability=False, render=page.rendered)
        return full.markdown or "", "", True, full.rid


def local_text(page: FetchedPage, kind: str, readability_min_chars: int) -> tuple[str, str, bool]:
    """Text of a raw body: ``(text, title, used_full_page_fallback)``. HTML gives readable
    Markdown, or the whole page's text when that is thin."""
    if kind == "pdf":
        return extract.pdf_to_text(page.body), "", False
    decoded = extract.decode_body(page.body, page.charset)
    if kind == "text":
        return decoded.strip(), "", False
    title = extract.html_title(decoded)
    text = extract.html_to_markdown(decoded, page.final_url)
    if extract.visible_chars(text) >= readability_min_chars:
        return text, title, False
    return extract.html_to_full_text(decoded), title, True
