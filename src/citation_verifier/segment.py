"""Sentences of a text, found by a maintained multilingual segmenter (Wikimedia's ``sentencex``,
which knows each language's abbreviations: "Dr.", "u. a.", "2 Std. 40 Min.", "am 5. Oktober",
"Sr."), with two rules of ours on top:

- a line break always ends a sentence: a heading, a list item, a table row or a paragraph is
  never joined to the next;
- a piece that starts with a lowercase letter continues the sentence before it: no sentence of
  the languages we judge starts lowercase, and a segmenter that does not know an abbreviation
  ("50 б. п., т. е. с 16%", "2 сент. прошло") cuts after its full stop; so does a piece that
  starts with a digit after a short lowercase abbreviation ("2 сент. 2024 г.").

Every sentence is a (start, end) span of the text, so callers slice verbatim text from it.
"""

from __future__ import annotations

import re

import sentencex

_LINE = re.compile(r"[^\n]+")
_LEAD = re.compile(r"[\s\"'“”„«»‘’‚(\[]*")
DEFAULT_LANGUAGE = "en"
_ABBREVIATION_END = re.compile(r"(?<![^\W\d_])[^\W\d_]{1,5}\.\s*$")


def _continues(previous: str, piece: str) -> bool:
    """Whether a piece the segmenter cut off continues the sentence before it (module
    docstring)."""
    lead = _LEAD.match(piece)
    first = piece[lead.end() if lead else 0 : (lead.end() if lead else 0) + 1]
    if first.islower():
        return True
    abbreviation = _ABBREVIATION_END.search(previous)
    return first.isdigit() and abbreviation is not None and abbreviation.group()[0].islower()


WINDOW_CHARS = 2000
"""The segmenter reads a line in windows of at most this many characters: its time grows
faster than the text on a long run without spaces ("![![![…" took 1.6 s for 40,000
characters), and a hostile answer or page must not stall a request."""
_CUT = re.compile(r"[.!?…。！？][\"'”’)\]]*\s+|\s+")


def _windows(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line of ``text``, a line longer than ``WINDOW_CHARS`` cut into
    windows, each after its last sentence mark and space (else its last space, else hard)."""
    windows = []
    for line in _LINE.finditer(text):
        start, end = line.start(), line.end()
        while end - start > WINDOW_CHARS:
            limit = start + WINDOW_CHARS
            cuts = list(_CUT.finditer(text, start + WINDOW_CHARS // 2, limit))
            marks = [c for c in cuts if not c.group()[0].isspace()]
            chosen = (marks or cuts)[-1].end() if cuts else limit
            windows.append((start, chosen))
            start = chosen
        windows.append((start, end))
    return windows


def sentence_spans(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text`` in ``language`` (ISO 639-1; English when
    unknown), whitespace trimmed, pieces without a letter or digit dropped."""
    spans: list[tuple[int, int]] = []
    for window_start, window_end in _windows(text):
        offset = window_start
        first = len(spans)  # a window's first piece never continues the window before
        window = text[window_start:window_end]
        for piece in sentencex.segment(language or DEFAULT_LANGUAGE, window):
            start = text.find(piece, offset) if piece else -1
            if start < 0:
                continue
            end = start + len(piece)
            offset = end
            if len(spans) > first and _continues(text[spans[-1][0] : start], piece):
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
    trimmed = []
    for start, end in spans:
        piece = text[start:end]
        left = len(piece) - len(piece.lstrip())
        right = len(piece.rstrip())
        if any(ch.isalnum() for ch in piece):
            trimmed.append((start + left, start + right))
    return trimmed


def sentences(text: str, language: str | None = None) -> list[str]:
    """The sentences of ``text``, verbatim (:func:`sentence_spans`)."""
    return [text[a:b] for a, b in sentence_spans(text, language)]
