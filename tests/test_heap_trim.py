"""The service gives freed heap back to the system when nothing is in flight."""

from __future__ import annotations

import asyncio
import platform

import pytest

from citation_verifier.service.heap import heap_trimmer, trim_when_idle


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_small_objects_are_given_back_to_the_system() -> None:
    trim = heap_trimmer()
    assert trim is not None
    trim()
    before = _rss_mb()
    # Strings of 2 KB come from malloc's heap (not Python's own arenas, not mmap); one kept
    # after them stops glibc from trimming the heap's top by itself.
    held = ["x" * 2000 + str(n) for n in range(100_000)]
    pin = "y" * (2000 + len(held))
    grown = _rss_mb()
    del held
    kept = _rss_mb()
    trim()
    trimmed = _rss_mb()
    assert grown - before > 100
    assert trimmed < kept - 50
    assert pin


async def test_the_idle_callback_trims_on_a_worker_thread() -> None:
    calls: list[int] = []

    def trim() -> int:
        calls.append(1)
        return 1

    trim_when_idle(trim)()
    for _ in range(50):
        if calls:
            break
        await asyncio.sleep(0.01)
    assert calls == [1]
    trim_when_idle(None)()  # where the C library has no malloc_trim: nothing to do
