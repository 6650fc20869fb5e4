"""Where an accepted evidence quote sits in the passages the judge saw, so a reader (the web
page, a report) can show the quote highlighted in its context.

The guard compares quote and passage after normalising quotes and whitespace (SPEC §6), so the
quote need not be a literal substring of the raw passage: a line break in the passage may be a
space in the quote, a curly quote a straight one. The span is found with the same tolerance.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citation_verifier.models import EvidenceContext
from citation_verifier.passages import Passage

_SINGLE = "'‘’‚‛"
_DOUBLE = '"“”„‟'


def _quote_pattern(quote: str) -> re.Pattern[str] | None:
    """A regex matching ``quote`` with any whitespace run for its whitespace runs and any
    quote character for its quote characters."""
    words = quote.split()
    if not words:
        return None
    parts = []
    for word in words:
        escaped = []
        for ch in word:
            if ch in _SINGLE:
                escaped.append(f"[{re.escape(_SINGLE)}]")
            elif ch in _DOUBLE:
                escaped.append(f"[{re.escape(_DOUBLE)}]")
            else:
                escaped.append(re.escape(ch))
        parts.append("".join(escaped))
    return re.compile(r"\s+".join(parts))


def locate_evidence(quote: str | None, passages: Sequence[Passage]) -> EvidenceContext | None:
    """The first passage containing ``quote`` (guard-normalised) and the quote's span in it;
    None when there is no quote or no passage holds it."""
    pattern = _quote_pattern(quote or "")
    if pattern is None:
        return None
    for passage in passages:
        match = pattern.search(passage.text)
        if match is not None:
            return EvidenceContext(passage=passage.text, start=match.start(), end=match.end())
    return None
