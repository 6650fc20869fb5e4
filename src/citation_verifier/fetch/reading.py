"""Reading a fetched page: what kind of body it is, its readable text, and the signs that
settle it without a judge (homepage redirect, soft 404, a JavaScript shell)."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from citation_verifier import extract
from citation_verifier.fetch.base import FetchedPage
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
# JavaScript-shell signals in a raw HTML body ("the page needs a browser").
_SCRIPT_TAG = re.compile(r"<script\b", re.I)
_NOSCRIPT = re.compile(r"<noscript\b[^>]*>(.*?)</noscript\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_ENABLE_JS = re.compile(
    r"""\b(?:enable|turn\s+on|activate|allow|requires?|needs?|without)\b.{0,60}?\bjavascript\b
    |\bjavascript\b.{0,40}?\b(?:enabled|required|disabled|is\s+off|turned\s+off|needed)\b""",
    re.I | re.S | re.X,
)


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


def page_kind(page: FetchedPage) -> str | None:
    """``pdf``, ``html`` or ``text`` by content type and first bytes; None when unreadable."""
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
    if page.markdown is not None or page_kind(page) != "html":
        return False, False
    decoded = extract.decode_body(page.body, page.charset)
    notice = any(_ENABLE_JS.search(_TAG.sub(" ", block)) for block in _NOSCRIPT.findall(decoded))
    return bool(_SCRIPT_TAG.search(decoded)), notice


def local_text(
    page: FetchedPage,
    kind: str,
    readability_min_chars: int,
    *,
    pdf_max_pages: int | None = None,
    deadline: float | None = None,
) -> tuple[str, str, bool]:
    """Text of a raw body: ``(text, title, used_full_page_fallback)``. HTML gives readable
    Markdown, or the whole page's text when that is thin; a PDF its first ``pdf_max_pages``
    pages, as many as are read before ``deadline`` (``time.monotonic()``)."""
    if kind == "pdf":
        return extract.pdf_to_text(page.body, pdf_max_pages, deadline), "", False
    decoded = extract.decode_body(page.body, page.charset)
    if kind == "text":
        return decoded.strip(), "", False
    title = extract.html_title(decoded)
    text = extract.html_to_markdown(decoded, page.final_url)
    if extract.visible_chars(text) >= readability_min_chars:
        return text, title, False
    return extract.html_to_full_text(decoded), title, True
