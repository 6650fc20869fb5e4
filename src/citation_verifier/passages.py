"""Passages stage: split page text into passages of at most N words (SPEC §4).

Each passage is a verbatim slice of the normalised text, with its character offsets, so a
quote found in a passage can be located in the page snapshot.
"""

from __future__ import annotations

import re
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


def split_passages(text: str, max_words: int = 200) -> list[Passage]:
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
        Passage(text[group[0][0] : group[-1][1]], group[0][0], group[-1][1], index)
        for index, group in enumerate(groups)
    ]
