"""Extract stage: turn a fetched body (HTML, PDF, plain text) into text the judge can read."""

from __future__ import annotations

import re
import time
from codecs import lookup

import lxml.html
from lxml import etree

from citation_verifier.markdown_text import markdown_to_text

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-:.]+)""", re.I)
_BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_DROP_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "object", "head")
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
_WHITESPACE = re.compile(r"\s+")
# Characters XML (and so lxml) cannot hold: C0 controls but tab and newlines, lone surrogates,
# U+FFFE/U+FFFF. A page can carry them literally or as references (``&#1;``); lxml parses both
# into text it then refuses to take back, so they are dropped before any text is set.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# The number must end there: "&#8217;" (’) starts with "&#8" and is kept whole.
_NOT_XML_REFERENCE = re.compile(
    r"&#(?:0*(?:[0-8]|1[1-2]|1[4-9]|2[0-9]|3[01])(?!\d)"
    r"|[xX]0*(?:[0-8bBcCeEfF]|1[0-9a-fA-F])(?![0-9a-fA-F]));?"
)


def xml_safe(html: str) -> str:
    """``html`` without the characters XML cannot hold, literal or as references."""
    return _NOT_XML_REFERENCE.sub("", _NOT_XML.sub("", html))


def visible_chars(text: str) -> int:
    r"""Number of non-whitespace characters: the measure of every length threshold. (str.split
    splits on what ``\s`` matches, five times faster than a regex on a 5 MB page.)"""
    return sum(map(len, text.split()))


def _known_codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return lookup(name.strip().strip("\"'")).name
    except LookupError:
        return None


def declared_encoding(body: bytes, declared_charset: str | None) -> str | None:
    """The codec a body declares: its BOM, then the HTTP charset, then a ``<meta charset>``;
    None when it declares none (or only codecs Python does not know)."""
    for bom, codec in (
        (b"\xef\xbb\xbf", "utf-8-sig"),
        (b"\xff\xfe", "utf-16"),
        (b"\xfe\xff", "utf-16"),
    ):
        if body.startswith(bom):
            return codec
    meta = _META_CHARSET.search(body[:4096])
    for candidate in (declared_charset, meta.group(1).decode("ascii") if meta else None):
        if known := _known_codec(candidate):
            return known
    return None


def sniffed_encoding(body: bytes) -> str:
    """The codec of a body that declares none: UTF-8 when it is valid UTF-8, else statistical
    detection's best guess (UTF-8 when it has none)."""
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes  # trafilatura's dependency; only needed here

    best = from_bytes(body).best()
    return best.encoding if best is not None else "utf-8"


def decode_body(body: bytes, declared_charset: str | None) -> str:
    """Decode a text body: BOM, then the HTTP charset, then a ``<meta charset>``, then UTF-8,
    then statistical detection. Never raises; undecodable bytes become U+FFFD."""
    codec = declared_encoding(body, declared_charset) or sniffed_encoding(body)
    return body.decode(codec, errors="replace")


def load_libraries() -> None:
    """Import the extraction libraries (seconds on a busy machine the first time; nothing
    after), so the first page's extraction budget is spent on the page."""
    import pypdfium2  # noqa: F401
    import trafilatura  # noqa: F401


def html_to_markdown(html: str, url: str | None = None) -> str:
    """Readable main content as Markdown (navigation, sidebars, footers, ads removed)."""
    import trafilatura  # heavy import, deferred to first use

    text = trafilatura.extract(
        xml_safe(html),
        url=url,
        output_format="markdown",
        include_tables=True,
        include_comments=False,
        include_links=False,
        include_images=False,
        deduplicate=False,
    )
    return separate_headings(page_text(text or ""), html_headings(html))


# Headings looked for: each costs a scan of the text (a hostile page may have thousands).
_MOST_HEADINGS = 200
# What may follow a heading run into the next paragraph: a new sentence or the line's end.
_AFTER_HEADING = re.compile(r"\s+(?=[A-Z0-9\"'“‘(])|\s*$")


def html_headings(html: str) -> list[str]:
    """The text of the page's ``<h1>``–``<h6>`` elements of two words or more, in page order."""
    root = parse_html(html)
    if root is None:
        return []
    texts = (_WHITESPACE.sub(" ", h.text_content()).strip() for h in root.iter(*_HEADINGS))
    return [t for t in texts if len(t.split()) >= 2]


def separate_headings(text: str, headings: list[str]) -> str:
    """``text`` with each heading that an extractor ran into the paragraph after it (or into
    the heading before it) made a paragraph of its own: a quote must never glue a heading to
    the sentence under it. A heading is only split off where it opens a line or follows a
    sentence's end, and a new sentence or the line's end follows it."""
    for heading in list(dict.fromkeys(headings))[:_MOST_HEADINGS]:
        if heading not in text:
            continue
        pattern = re.compile(rf"(?:^|(?<=[.!?:]\s)){re.escape(heading)}")  # read per line
        lines = []
        for line in text.split("\n"):
            if line.strip() != heading and heading in line:
                line = _split_at(line, pattern)
            lines.append(line)
        text = "\n".join(lines)
    return text


def _split_at(line: str, pattern: re.Pattern[str]) -> str:
    parts, start = [], 0
    for m in pattern.finditer(line):
        after = _AFTER_HEADING.match(line, m.end())
        if after is None:
            continue
        parts += [line[start : m.start()].rstrip(), line[m.start() : m.end()]]
        start = after.end()
    parts.append(line[start:])
    return "\n\n".join(p for p in parts if p.strip())


def page_text(markdown: str) -> str:
    """The page's own text from Markdown (trafilatura's, a crawling API's): no heading, list,
    quote or table markers, no emphasis, link brackets or HTML tags, escapes undone, each heading
    a paragraph of its own (:func:`citation_verifier.markdown_text.markdown_to_text`), so a quote
    is what a reader of the page can find on it ("long [citation needed]." not
    "long \\[citation needed\\].")."""
    return markdown_to_text(markdown)


def parse_html(html: str) -> etree._Element | None:
    """The page as an lxml tree (None when lxml cannot parse it)."""
    try:
        return lxml.html.document_fromstring(xml_safe(html))
    except (etree.ParserError, ValueError):
        return None


def html_to_full_text(html: str) -> str:
    """Every visible text of the page, one block per paragraph: the no-readability fallback."""
    root = parse_html(html)
    if root is None:
        return ""
    for element in list(root.iter(*_DROP_TAGS)):
        if element.getparent() is not None:
            element.drop_tree()
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        text, tail = _NOT_XML.sub("", element.text or ""), _NOT_XML.sub("", element.tail or "")
        if element.tag.lower() != "pre":  # source line breaks are spaces, except in <pre>
            text = _WHITESPACE.sub(" ", text)
        element.text, element.tail = text, _WHITESPACE.sub(" ", tail)
        if element.tag.lower() in _BLOCK_TAGS:
            element.text = "\n\n" + element.text
            element.tail = "\n\n" + element.tail
    text = root.text_content()
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def html_title(html: str) -> str:
    """The page's ``<title>``, or an empty string."""
    root = parse_html(html)
    if root is None:
        return ""
    title = root.find(".//title")
    return _SPACES.sub(" ", title.text_content()).strip() if title is not None else ""


def pdf_to_text(body: bytes, max_pages: int | None = None, deadline: float | None = None) -> str:
    """Text of the pages of a PDF, separated by blank lines: every page, or the first
    ``max_pages``, or those read before ``time.monotonic()`` passes ``deadline`` (a page costs
    what its content streams cost, and 500 pages can share one of 4 MB). Empty when the PDF
    has no extractable text (scanned images) or cannot be opened."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(body)
    except pdfium.PdfiumError:
        return ""
    try:
        pages: list[str] = []
        count = len(document) if max_pages is None else min(len(document), max_pages)
        for index in range(count):
            if deadline is not None and time.monotonic() > deadline:
                break
            page = document[index]
            textpage = page.get_textpage()
            pages.append(textpage.get_text_range().replace("\r\n", "\n").strip())
            textpage.close()
            page.close()
    finally:
        document.close()
    return "\n\n".join(p for p in pages if p)
