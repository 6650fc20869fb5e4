"""Regex scans of long pages in windows (the wall checks' searches, off the GIL between windows)
find what one search of the whole text finds."""

from __future__ import annotations

import re
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citation_verifier import windowed_search
from citation_verifier.fetch import walls
from citation_verifier.windowed_search import finditer, search

WORDS = re.compile(r"\bsign in\b|\bconsent\b|<input\b[^>]*\btype=password\b", re.I)


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(windowed_search, "WINDOW", 16)
    monkeypatch.setattr(windowed_search, "OVERLAP", 40)


pieces = st.sampled_from(
    ["sign in", "signin", "x", " ", "consent", "Consent", "<input type=password>", "\n", "ab"]
)


@pytest.mark.usefixtures("small_windows")
@settings(max_examples=300, deadline=None)
@given(st.lists(pieces, max_size=40))
def test_windowed_matches_equal_one_whole_search(parts: list[str]) -> None:
    text = "".join(parts)
    whole = [(m.start(), m.group(0)) for m in WORDS.finditer(text)]
    assert [(m.start(), m.group(0)) for m in finditer(WORDS, text)] == whole
    first = search(WORDS, text)
    assert (first and (first.start(), first.group(0))) == (whole[0] if whole else None)


@pytest.mark.usefixtures("small_windows")
def test_a_word_cut_at_a_window_end_is_not_a_match() -> None:
    # "sign in" ends exactly where the first window's text stops; the word goes on ("sign inx").
    text = "." * (16 + 40 - 7) + "sign inx" + "." * 100
    assert search(WORDS, text) is None
    assert list(finditer(WORDS, text)) == []


@pytest.mark.usefixtures("small_windows")
def test_a_phrase_across_a_window_edge_is_found() -> None:
    text = "." * 14 + "sign in" + "." * 100
    found = search(WORDS, text)
    assert found is not None and found.start() == 14


def test_reading_a_5_mb_page_for_walls_lets_other_threads_run() -> None:
    """Each wall check searched a 5 MB page in one `re` call (about a second holding the GIL);
    a thread that wakes every 5 ms now never waits longer than a few windows' search."""
    text = "\n\n".join(f"Line {n}: rivers, hills and towns, number {n}." for n in range(100_000))
    seen = walls.Seen(200, {}, "http://x/big.txt", "http://x/big.txt", "", text)
    longest = 0.0
    done = threading.Event()

    def tick() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not done.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        assert walls.classify(seen, 300) is None
        assert walls.paywall(seen, 300) is None
    finally:
        done.set()
        ticker.join()
    # One whole-page search took 0.7-1.3 s here; a 256 KB window takes about 50 ms.
    assert longest < 0.4
