"""Locating an evidence quote in the page snapshot (character offsets for the audit record).

The guard compares quote and passages after normalising quotes and whitespace (SPEC §6), so a
quote that passed may differ from the page in exactly those ways; this maps the match back to
the page's own characters.
"""

from __future__ import annotations

from collections.abc import Sequence

from citation_verifier.guard import normalise_for_quote
from citation_verifier.passages import Passage


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
            chars.append(normalise_for_quote(char) or char)
            in_space = False
        offsets.append(offset)
    return "".join(chars), offsets


def locate_quote(quote: str | None, passages: Sequence[Passage]) -> tuple[int, int] | None:
    """``(start, end)`` of ``quote`` in the page text the passages were cut from (first passage
    holding it, in the order given), or None when it is empty or in none of them."""
    needle = normalise_for_quote(quote or "")
    if not needle:
        return None
    for passage in passages:
        exact = passage.text.find(quote or "")
        if quote and exact >= 0:
            return passage.start + exact, passage.start + exact + len(quote)
        haystack, offsets = _normalised_with_offsets(passage.text)
        found = haystack.find(needle)
        if found >= 0:
            start = offsets[found]
            end = offsets[found + len(needle) - 1] + 1
            return passage.start + start, passage.start + end
    return None
