"""Regular-expression scans of long text in windows.

``re`` holds the GIL for a whole call: one search over a 5 MB page takes about a second, and
the service's event loop (``/health`` included) waits for it however it is threaded. Searching
in windows of ``WINDOW`` characters lets other threads run between calls. Windows overlap by
``OVERLAP``, and a match that touches a window's artificial end is left to the next window, so
every match shorter than ``OVERLAP`` is found exactly as a search of the whole text finds it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

WINDOW = 256 * 1024
OVERLAP = 8 * 1024


def _windows(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    while True:
        end = min(len(text), start + WINDOW + OVERLAP)
        yield start, end
        if end == len(text):
            return
        start += WINDOW


def _real(match: re.Match[str], end: int, length: int) -> bool:
    # At a window's artificial end, `\b` and `$` see an end of text that is not there.
    return match.end() < end or end == length


def search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """``pattern.search(text)``, letting other threads run between windows."""
    for start, end in _windows(text):
        for match in pattern.finditer(text, start, end):
            if _real(match, end, len(text)):
                return match
            break  # touches the window's end: the next window holds it whole
    return None


def finditer(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``, letting other threads run between windows."""
    done = 0  # where the matches already given end: overlapping windows find them twice
    for start, end in _windows(text):
        for match in pattern.finditer(text, max(start, done), end):
            if not _real(match, end, len(text)):
                break
            done = match.end() if match.end() > match.start() else match.end() + 1
            yield match
