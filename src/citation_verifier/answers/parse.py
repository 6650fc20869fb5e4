"""Answer parsing: an LLM answer → statements, each with the URLs it cites. No LLM.

Markdown structure comes from markdown-it-py (paragraphs, list items, headings, tables, code);
sources, markers and sentences are found by rule:

- **Sources** are taken out of the text first: reference definitions anywhere (``[1]: URL``,
  ``[^1]: Title, URL``), lines under a "Sources"/"References"/"Citations" heading (``[1] URL``,
  ``1. URL``, ``- [Title](URL)``; a bullet without a number is numbered by its position), and,
  without a heading, ``[1] …URL…`` lines or numbered lines that hold only a link. A JSON answer's
  ``citations`` array numbers sources too (``[1]`` is its first entry, and wins on a clash).
- **Markers** are ``[1]``, ``[1, 2]``, ``[1-3]``, ``[^note]``, inline links ``[text](URL)`` and
  reference links ``[text][1]`` (the text stays in the claim; link text that is just a number or
  a domain is a marker), autolinks ``<URL>``, and URLs in parentheses or bare ("see" and
  "Source:" before them go too).
- **A marker cites the sentence it ends**, whether it stands before the full stop or after it;
  markers that open a sentence belong to the sentence before. At the end of a paragraph or list
  item the rule is the same: the marker cites the last sentence only, not the whole paragraph.
  That is how citation-precision evaluations (ALCE and its successors) attach citations, and it
  never credits a source with a sentence nobody attached it to: the unmarked sentences before it
  are reported ``uncited``. A paragraph that holds nothing but markers cites the statement before.
- **Statements** are the sentences of paragraphs, list items and block quotes. Headings, table
  rows and lead-ins ending with a colon are statements only when they carry a marker (otherwise
  they are structure, not claims); code blocks, HTML blocks and rules never are. A sentence of
  fewer than two words ("[1]", "See also https://…") is not a statement: its markers cite the
  statement before.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from pydantic import ValidationError

from citation_verifier.answers.models import AnswerRequest
from citation_verifier.errors import InputError, validation_message
from citation_verifier.models import validate_http_url
from citation_verifier.segment import sentence_spans


@dataclass(frozen=True)
class Marker:
    """One citation marker or link as written, and what it resolved to."""

    text: str
    urls: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    named: tuple[tuple[str, str], ...] = ()
    """(URL, the source's marker: "[2]", "[^note]") for each URL it cites by a source's number
    or footnote label."""


@dataclass(frozen=True)
class Statement:
    """One statement of an answer: as written, as a claim, and what it cites."""

    text: str
    """The statement as written (markers and links included), whitespace collapsed."""
    claim: str
    """The statement with markers, links' syntax and Markdown markup removed."""
    urls: tuple[str, ...] = ()
    """Distinct cited URLs, in the order the statement cites them."""
    markers: tuple[Marker, ...] = ()
    """Every marker and link the statement carries, in order, each with what it cites."""
    problems: tuple[str, ...] = ()
    """Markers that resolve to no usable source, each with the reason (all markers')."""


# A URL may hold balanced parentheses (Wikipedia: /wiki/Mercury_(planet)).
_URL = r"https?://(?:[^\s()<>\"'`\[\]]|\([^\s()<>]*\))+"
_URL_RE = re.compile(_URL)
_TRAILING = ".,;:!?'\"*_"

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SOURCES_HEADING = re.compile(
    r"^\s{0,3}(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:sources|references|citations|works cited|"
    r"bibliography|links)\s*:?\s*(?:\*\*|__)?\s*:?\s*$",
    re.IGNORECASE,
)
_DEFINITION = re.compile(r"^\s{0,3}(?:[-*+]\s+)?\[(\^?[^\]\s]+)\]:\s*(.*)$")
_NUMBERED_SOURCE = re.compile(r"^\s{0,3}(?:[-*+]\s+)?(?:\[(\d+)\]|(\d+)[.)])[.:]?\s+(.+)$")
_LINK_ONLY = re.compile(rf"^\s*(?:<{_URL}>|\[[^\]]*\]\(\s*<?{_URL}>?\s*\)|{_URL})\s*$")

# Inline constructs, tried in order at each position. No bracketed part may scan past the next
# "[" (or "(" in an image's target): each start then reads only up to the next one, and the
# whole scan stays linear however many unclosed brackets an answer holds ("[^" * 10000 took
# seconds when a part could run to the end of the text from every "[").
_INLINE = re.compile(
    r"(?P<code>(?P<ticks>`+).+?(?P=ticks))"
    r"|(?P<image>!\[[^\[\]]*\]\([^()]*\))"
    rf"|(?P<link>\[(?P<link_text>(?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?(?P<link_url>{_URL})>?"
    r"(?:\s+\"[^\"]*\")?\s*\))"
    # The lookahead (linear: it backtracks at most once over the text) asks for one character
    # that is not a digit, comma or dash, so "[1][2]" stays two number markers. Written as
    # "[^…]*X[^…]*" instead, it took quadratic time on "[" and a long unclosed text.
    r"|(?P<reference>\[(?=[^\[\]]*[^\d\[\],\s–-])(?P<ref_text>[^\[\]]*)\]\[(?P<ref>\^?[^\[\]\s]+)\])"
    r"|(?P<footnote>\[\^(?P<note>[^\[\]\s]+)\])"
    # A link to a page of the answer's own site ("[text](/path)", "[text](#part)"): its text
    # is the sentence's, its target cites nothing.
    r"|(?P<local_link>\[(?P<local_text>[^\[\]]*)\]\([^()\s]*\))"
    r"|(?P<numbers>\[(?P<list>\d{1,3}(?:\s*[-–,]\s*\d{1,3})*)\])"
    rf"|(?P<autolink><(?P<auto_url>{_URL})>)"
    rf"|(?P<paren>\(\s*(?:(?:sources?|see|via|from|ref)\s*:?\s*)?(?P<paren_url>{_URL})\s*\))"
    rf"|(?P<bare>{_URL})"
    r"|(?P<tag></?(?:sup|sub|cite)>)",
    re.IGNORECASE,
)
# Link text that only points (a number, a domain) is a marker, not part of the claim.
_MARKER_TEXT = re.compile(
    r"^\s*(?:\[?\^?\d+\]?|(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?:/\S*)?)\s*$"
)

CITE = "\ue000"
"""Stands for one citation construct in the sentence skeleton."""
CODE = "\ue001"
"""Stands for one code span, so that its dots never end a sentence."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NEVER_END = _words(
    "mr mrs ms dr prof sr jr st mt ft vs eg ie cf approx fig figs no nos vol vols ca al etal "
    "resp dept est jan feb mar apr jun jul aug sep sept oct nov dec pp p ed eds op"
)
_AMBIGUOUS = frozenset(["inc", "ltd", "co", "corp", "bros", "etc"])
_STARTERS = _words(
    "the this that these those it its in on at a an as he she they we you i there here but "
    "however and so thus also today since after before when while if for many most some"
)
_ACRONYM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]$")
# "…, see URL." / "Source: URL": the words that only point go with the link they point at.
_POINTER = re.compile(rf"[,;]?\s*\b(?:see(?: also)?|via|cf\.?|sources?:)\s*(?={CITE})", re.I)
_WORD = re.compile(r"[^\W_]+")


@dataclass
class _Cite:
    """A citation construct in a block: as written, and what it points at."""

    written: str
    keys: list[str] = field(default_factory=list)
    """Source numbers or footnote labels (``1``, ``^note``) to resolve."""
    urls: list[str] = field(default_factory=list)
    """URLs written inline."""


@dataclass
class _Block:
    """A block's text as a skeleton: prose, with :data:`CITE` and :data:`CODE` standing for
    constructs, and each skeleton character's span in the raw text."""

    raw: str
    skeleton: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    cites: list[_Cite] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)

    def add(self, text: str, start: int, end: int | None = None) -> None:
        """Append ``text``; every character maps to itself, or all to ``start..end``."""
        for offset, char in enumerate(text):
            self.skeleton.append(char)
            at = start + offset
            self.spans.append((start, end) if end is not None else (at, at + 1))


def parse_answer(
    answer: str, citations: Sequence[str] = (), language: str | None = None
) -> list[Statement]:
    """Split ``answer`` into statements with the URLs each cites. ``citations`` numbers sources
    as a JSON answer's array does (``[1]`` is ``citations[0]``). ``language`` (ISO 639-1, the
    answer's) tells the sentence segmenter its abbreviations and ordinal dates ("am 5. Oktober",
    "т. е.", "2024 г."); English when not given."""
    body, sources, bare = _take_sources(answer)
    for number, url in enumerate(citations, start=1):
        sources[str(number)] = url
    statements: list[Statement] = []
    for kind, block in _blocks(body):
        for text, claim, cites in _sentences(block, language):
            if len(_WORD.findall(claim)) < (2 if kind == "text" else 1):
                # "[1]" or "See https://…" on its own: it cites the statement before
                if cites and statements:
                    statements[-1] = _with_cites(statements[-1], text, cites, sources, bare)
                continue
            if not cites and (kind != "text" or claim.endswith(":")):
                continue  # an unmarked heading, table row or lead-in is structure, not a claim
            statements.append(_with_cites(Statement(text, claim), "", cites, sources, bare))
    return statements


def answer_request_from_text(text: str) -> AnswerRequest:
    """An answer as a file or body holds it: the JSON form ``{"answer", "citations"}`` when the
    text is a JSON object, else Markdown. :class:`InputError` with a readable message if the
    JSON form is invalid."""
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(
                f"the answer looks like JSON but is not valid JSON (line {error.lineno}, "
                f"column {error.colno}: {error.msg})"
            ) from None
        try:
            return AnswerRequest.model_validate(data)
        except ValidationError as error:
            raise InputError(validation_message(error, "answer")) from None
    try:
        return AnswerRequest(answer=text)
    except ValidationError as error:
        raise InputError(validation_message(error, "answer")) from None


# --- sources -------------------------------------------------------------------------------


def _source_url(text: str) -> str | None:
    match = _URL_RE.search(text)
    return None if match is None else _trim_url(match.group())


def _trim_url(url: str) -> str:
    """``url`` without the sentence punctuation and unbalanced brackets that follow it."""
    while True:
        unbalanced = url.endswith(")") and url.count("(") < url.count(")")
        if (url and url[-1] in _TRAILING) or unbalanced:
            url = url[:-1]
        else:
            return url


def _take_sources(text: str) -> tuple[str, dict[str, str], set[str]]:
    """The body without its source lines (blanked, so line numbers stay), the sources by
    number or footnote label, and labels defined without a URL."""
    body: list[str] = []
    sources: dict[str, str] = {}
    bare: set[str] = set()
    fence: str | None = None
    in_section = False
    position = 0
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is not None or opened:
            if opened and (fence is None or opened.group(1).startswith(fence)):
                fence = None if fence is not None else opened.group(1)[:3]
            body.append(line)
            continue
        definition = _DEFINITION.match(line)
        if definition:
            url = _source_url(definition.group(2))
            if url is None:
                bare.add(definition.group(1))
            else:
                sources.setdefault(definition.group(1), url)
            body.append("")
            continue
        if _SOURCES_HEADING.match(line):
            in_section, position = True, 0
            body.append("")
            continue
        numbered = _NUMBERED_SOURCE.match(line)
        url = _source_url(line)
        if in_section and url is not None:
            position += 1
            number = numbered.group(1) or numbered.group(2) if numbered else str(position)
            sources.setdefault(number, url)
            body.append("")
            continue
        if in_section and line.strip():
            in_section = False
        if numbered and url is not None and (numbered.group(1) or _LINK_ONLY.match(numbered[3])):
            sources.setdefault(numbered.group(1) or numbered.group(2), url)
            body.append("")
            continue
        body.append(line)
    return "\n".join(body), sources, bare


# --- blocks and sentences --------------------------------------------------------------------


def _blocks(body: str) -> Iterator[tuple[str, str]]:
    """``(kind, inline Markdown)`` of each block holding prose: ``text`` for paragraphs (in
    lists and quotes too), ``heading``, and ``row`` for a table row (cells joined)."""
    tokens = _block_markdown().parse(body)
    kind = "text"
    row: list[str] = []
    for token in tokens:
        if token.type == "heading_open":
            kind = "heading"
        elif token.type == "heading_close":
            kind = "text"
        elif token.type == "tr_open":
            kind, row = "row", []
        elif token.type == "tr_close":
            kind = "text"
            yield "row", "; ".join(cell for cell in row if cell.strip())
        elif token.type == "inline":
            if kind == "row":
                row.append(token.content)
            else:
                yield kind, token.content


def _skeleton(raw: str) -> _Block:
    block = _Block(raw)
    position = 0
    for match in _INLINE.finditer(raw):
        block.add(raw[position : match.start()], position)
        position = match.end()
        start, end = match.span()
        if match["code"]:
            block.codes.append(match["code"])
            block.add(CODE, start, end)
        elif match["image"] or match["tag"]:
            continue
        elif match["link"]:
            text = match["link_text"]
            url = match["link_url"]
            if not _MARKER_TEXT.match(text):
                block.add(text, start + 1)
                block.spans[-len(text)] = (start, start + 2)  # the sentence's text keeps "["
            block.cites.append(_Cite(match["link"], urls=[url]))
            block.add(CITE, start, end)
        elif match["reference"]:  # [text][1]: a reference-style link to source 1
            block.add(match["ref_text"], start + 1)
            block.spans[-len(match["ref_text"])] = (start, start + 2)
            block.cites.append(_Cite(match["reference"], keys=[match["ref"]]))
            block.add(CITE, start, end)
        elif match["local_link"]:
            text = match["local_text"]
            if text:  # the text as written keeps the brackets and target around its words
                block.add(text, start + 1)
                block.spans[-len(text)] = (start, block.spans[-len(text)][1])
                block.spans[-1] = (block.spans[-1][0], end)
        elif match["footnote"]:
            block.cites.append(_Cite(match["footnote"], keys=["^" + match["note"]]))
            block.add(CITE, start, end)
        elif match["numbers"]:
            block.cites.append(_Cite(match["numbers"], keys=_numbers(match["list"])))
            block.add(CITE, start, end)
        else:
            url = match["auto_url"] or match["paren_url"] or _trim_url(match["bare"])
            if match["bare"]:
                position = start + len(url)  # trailing punctuation is the sentence's
                end = position
            block.cites.append(_Cite(raw[start:end], urls=[url]))
            block.add(CITE, start, end)
    block.add(raw[position:], position)
    return block


def _numbers(text: str) -> list[str]:
    """``1, 3-5`` → ``1 3 4 5`` (a reversed or huge range is kept as its two ends)."""
    out: list[str] = []
    for part in re.split(r"\s*,\s*", text):
        ends = [int(n) for n in re.split(r"\s*[-–]\s*", part)]
        if len(ends) == 2 and 0 < ends[1] - ends[0] <= 50:
            out.extend(str(n) for n in range(ends[0], ends[1] + 1))
        else:
            out.extend(str(n) for n in ends)
    return out


def _boundaries(skeleton: str, language: str | None = None) -> list[tuple[int, int]]:
    """Sentence spans of ``skeleton``; markers right after an end mark stay with its sentence.
    A full stop ends a sentence only where the segmenter of pages (:mod:`citation_verifier.
    segment`) ends one too: one mechanism knows each language's abbreviations for both."""
    spans: list[tuple[int, int]] = []
    start = 0
    segmented = {end for _, end in sentence_spans(skeleton.replace(CITE, " "), language)}
    for match in re.finditer(r"[.!?…]+[\"'”’)\]*_]*", skeleton):
        end = match.end()
        while True:  # markers after the full stop: ". [1][2]"
            ahead = end
            while ahead < len(skeleton) and skeleton[ahead] in " \t":
                ahead += 1
            if ahead < len(skeleton) and skeleton[ahead] == CITE:
                end = ahead + 1
            else:
                break
        if end < len(skeleton) and not skeleton[end].isspace() and end == match.end():
            continue  # "3.14", "U.S.A", "e.g.x": no space, no boundary
        following = end
        while following < len(skeleton) and skeleton[following].isspace():
            following += 1
        if following >= len(skeleton) or skeleton[following].islower():
            continue
        # A marker after the full stop and a capital after it ends the sentence, whatever word
        # the stop follows: "… boils at 100 C. [1] The …" (one letter before it reads as an
        # initial otherwise); nobody cites half a sentence after an abbreviation's dot.
        cited_after = end != match.end()
        if (
            (not cited_after)
            and match.group().startswith(".")
            and (
                not _ends_sentence(skeleton, match.start(), following)
                or not any(match.start() < e <= following for e in segmented)
            )
        ):
            continue
        spans.append((start, end))
        start = following
    if start < len(skeleton):
        spans.append((start, len(skeleton)))
    return spans


def _word_before(skeleton: str, dot: int) -> str:
    """The word (letters and dots, starting with a letter) that ends at ``dot``. Walked back
    from ``dot``: a regex anchored at the end would try every start of the text before it,
    quadratic over an answer of many short sentences."""
    start = dot
    while start > 0 and (skeleton[start - 1] == "." or _ascii_letter(skeleton[start - 1])):
        start -= 1
    return skeleton[start:dot].lstrip(".")


def _ascii_letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


def _ends_sentence(skeleton: str, dot: int, following: int) -> bool:
    """Whether the full stop at ``dot`` ends a sentence, given the word before it and the one
    after (abbreviations, initials, acronyms)."""
    word = _word_before(skeleton, dot)
    if not word:
        return True
    plain = word.replace(".", "").lower()
    if plain in _NEVER_END or (len(word) == 1 and word.isupper()):
        return False  # "Dr. Smith", "e.g. The", "J. K. Rowling"
    if plain in _AMBIGUOUS or _ACRONYM.search(word):
        after = re.match(r"[A-Za-z]+", skeleton[following:])
        return after is not None and after.group().lower() in _STARTERS  # "the U.S. The ..."
    return True


def _sentences(raw: str, language: str | None = None) -> Iterator[tuple[str, str, list[_Cite]]]:
    """``(text as written, claim, cites)`` of each sentence of one block. Markers that open a
    sentence are moved to the sentence before; opening the block, they come first, on their own
    (``("", "", cites)``), for the statement before the block."""
    block = _skeleton(raw)
    skeleton = "".join(block.skeleton)
    spans: list[tuple[int, int]] = []
    for start, end in _boundaries(skeleton, language):
        lead = start
        while lead < end and skeleton[lead] in (CITE, " ", "\t", "\n"):
            lead += 1
        if CITE in skeleton[start:lead]:
            last = skeleton.rindex(CITE, start, lead) + 1
            if spans:
                spans[-1] = (spans[-1][0], last)
            else:
                yield "", "", block.cites[: skeleton.count(CITE, 0, last)]
        while end > lead and skeleton[end - 1].isspace():
            end -= 1
        if end > lead:
            spans.append((lead, end))
    for start, end in spans:
        first_cite = skeleton.count(CITE, 0, start)
        cites = block.cites[first_cite : first_cite + skeleton.count(CITE, start, end)]
        text = " ".join(raw[block.spans[start][0] : block.spans[end - 1][1]].split())
        codes = block.codes[skeleton.count(CODE, 0, start) :]
        yield text, _claim(skeleton[start:end], codes), cites


def _claim(skeleton: str, codes: Sequence[str]) -> str:
    """The sentence as plain text: markers gone, Markdown markup rendered away."""
    text = _POINTER.sub("", skeleton).replace(CITE, "")
    # One split, not a replace per code span: that rescans the text each time (quadratic).
    parts = _plain(text).split(CODE)
    spans = [code.strip("`").strip() for code in codes[: len(parts) - 1]]
    spans += [CODE] * (len(parts) - 1 - len(spans))
    plain = "".join(part + span for part, span in zip(parts, [*spans, ""], strict=True))
    plain = re.sub(r"\(\s*\)", "", plain)
    plain = re.sub(r"\s+", " ", plain).strip()
    return re.sub(r"\s+([.,;:!?…)\]])", r"\1", plain)


@functools.cache
def _block_markdown() -> MarkdownIt:
    """The block structure only (tables on), built once. Inline parsing is off: the blocks'
    inline text is all we read, and markdown-it's link-label scan is quadratic on unclosed
    brackets ("[[[[…")."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("inline")


@functools.cache
def _inline_markdown() -> MarkdownIt:
    """Emphasis, strikethrough, code, escapes, entities and inline HTML, built once. Links and
    images are off: the answer's own have been taken out as markers by then, and the link-label
    scan is quadratic on unclosed brackets."""
    return MarkdownIt("commonmark").enable(["strikethrough"]).disable(["link", "image"])


def _plain(text: str) -> str:
    """Inline Markdown as its text: emphasis, escapes, entities and inline HTML removed."""
    out: list[str] = []
    for token in _inline_markdown().parseInline(text):
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                out.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                out.append(" ")
    return "".join(out)


# --- resolution ------------------------------------------------------------------------------


def _with_cites(
    statement: Statement,
    extra_text: str,
    cites: Sequence[_Cite],
    sources: dict[str, str],
    bare: set[str],
) -> Statement:
    """``statement`` with ``cites`` resolved and added (``extra_text`` appended to its text)."""
    markers = [*statement.markers, *(_resolve(cite, sources, bare) for cite in cites)]
    text = f"{statement.text} {extra_text}".strip() if extra_text else statement.text
    return Statement(
        text=text,
        claim=statement.claim,
        urls=tuple(dict.fromkeys(url for marker in markers for url in marker.urls)),
        markers=tuple(markers),
        problems=tuple(problem for marker in markers for problem in marker.problems),
    )


def _resolve(cite: _Cite, sources: dict[str, str], bare: set[str]) -> Marker:
    """The URLs ``cite`` names (inline, or by source number or footnote label), each checked
    to be an http(s) URL; what cannot be resolved is a problem."""
    candidates = list(cite.urls)
    problems = []
    named = []
    for key in cite.keys:
        url = sources.get(key) or (sources.get(key[1:]) if key.startswith("^") else None)
        if url is not None:
            candidates.append(url)
            named.append((url, f"[{key}]"))
        elif key in bare:
            problems.append(f"[{key}] names a source without a URL")
        else:
            problems.append(f"[{key}] matches no source in the answer")
    urls = []
    valid = {}
    for url in candidates:
        try:
            valid[url] = validate_http_url(url)
            urls.append(valid[url])
        except ValueError as error:
            problems.append(f"{cite.written}: {error}")
    names = tuple((valid[url], name) for url, name in named if url in valid)
    return Marker(cite.written, tuple(dict.fromkeys(urls)), tuple(problems), names)


def source_names(statements: Sequence[Statement]) -> dict[str, str]:
    """How the answer names each URL its statements cite by number or footnote ("[2]"): the
    first name a marker gives it."""
    names: dict[str, str] = {}
    for statement in statements:
        for marker in statement.markers:
            for url, name in marker.named:
                names.setdefault(url, name)
    return names
