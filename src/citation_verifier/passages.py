"""Passages stage: split page text into passages of at most N words.

Each passage is a verbatim slice of the normalised text, with its character offsets, so a
quote found in a passage can be located in the page snapshot. A quote is compared with the
passages after normalising quote characters and whitespace (what the guard accepts), so it may
differ from the page in exactly those ways; :func:`locate_quote` maps it back to the page's own
characters (for the highlighted context and the audit's offsets).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_BLANK_LINE = re.compile(r"\n[^\S\n]*\n\s*")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Passage:
    """A slice ``text == page_text[start:end]`` of the normalised page text."""

    text: str
    start: int
    end: int
    index: int
    language: str | None = None
    """The page's language (ISO 639-1) where known: how its sentences are split."""


def normalise_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``: the text passages' offsets refer to."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _paragraph_word_spans(text: str) -> list[list[tuple[int, int]]]:
    """Word spans of each non-blank paragraph (paragraphs are separated by blank lines)."""
    paragraphs: list[list[tuple[int, int]]] = []
    start = 0
    for separator in [*_BLANK_LINE.finditer(text), None]:
        end = separator.start() if separator else len(text)
        words = [(m.start() + start, m.end() + start) for m in _WORD.finditer(text[start:end])]
        if words:
            paragraphs.append(words)
        if separator:
            start = separator.end()
    return paragraphs


def split_passages(text: str, max_words: int = 200, language: str | None = None) -> list[Passage]:
    """Split ``text`` (newlines are normalised first) into passages of at most ``max_words``
    words, counted as ``str.split()`` counts them.

    Paragraphs longer than the cap are cut on word boundaries; consecutive shorter paragraphs
    share a passage until the next one would overflow; blank blocks are dropped.
    """
    if max_words < 1:
        raise ValueError(f"max_words must be at least 1, got {max_words}")
    text = normalise_newlines(text)
    groups: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    for words in _paragraph_word_spans(text):
        if current and len(current) + len(words) > max_words:
            groups.append(current)
            current = []
        while len(words) > max_words:
            groups.append(words[:max_words])
            words = words[max_words:]
        current.extend(words)
    if current:
        groups.append(current)
    return [
        Passage(text[group[0][0] : group[-1][1]], group[0][0], group[-1][1], index, language)
        for index, group in enumerate(groups)
    ]


_QUOTES = str.maketrans(
    {"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"'}
)
_WHITESPACE = re.compile(r"\s+")


def normalise_for_quote(text: str) -> str:
    """Curly quotes become straight ones; every whitespace run becomes one space; ends trimmed."""
    return _WHITESPACE.sub(" ", text.translate(_QUOTES)).strip()


def quote_in_passages(quote: str | None, passages: Sequence[Passage]) -> bool:
    """True when the normalised, non-empty ``quote`` is a substring of one normalised passage."""
    needle = normalise_for_quote(quote or "")
    return bool(needle) and any(needle in normalise_for_quote(p.text) for p in passages)


def _normalised_with_offsets(text: str) -> tuple[str, list[int]]:
    """``text`` normalised as the guard does (ends not trimmed), and for each character of the
    result the offset of the character of ``text`` it came from."""
    chars: list[str] = []
    offsets: list[int] = []
    in_space = False
    for offset, char in enumerate(text):
        if char.isspace():
            if in_space:
                continue
            chars.append(" ")
            in_space = True
        else:
            chars.append(char.translate(_QUOTES))
            in_space = False
        offsets.append(offset)
    return "".join(chars), offsets


@dataclass(frozen=True)
class QuoteSpan:
    """Where a quote sits: ``passage.text[start:end]`` (the page's own characters)."""

    passage: Passage
    start: int
    end: int

    @property
    def page_span(self) -> tuple[int, int]:
        """The span in the page text the passage was cut from."""
        return self.passage.start + self.start, self.passage.start + self.end


def locate_quote(quote: str | None, passages: Sequence[Passage]) -> QuoteSpan | None:
    """The first passage (in the order given) holding ``quote`` with the guard's tolerance, and
    the quote's span in it; None when the quote is empty or in none of them."""
    needle = normalise_for_quote(quote or "")
    if not needle:
        return None
    for passage in passages:
        exact = passage.text.find(quote or "")
        if quote and exact >= 0:
            return QuoteSpan(passage, exact, exact + len(quote))
        haystack, offsets = _normalised_with_offsets(passage.text)
        found = haystack.find(needle)
        if found >= 0:
            return QuoteSpan(passage, offsets[found], offsets[found + len(needle) - 1] + 1)
    return None
