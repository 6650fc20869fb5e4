"""SingleFlight: one task per key; every concurrent caller gets its value or its exception."""

from __future__ import annotations

import asyncio

import pytest

from citation_verifier.net.singleflight import SingleFlight


async def test_concurrent_calls_for_a_key_share_one_task_and_report_the_result_once() -> None:
    stored: list[tuple[str, int]] = []
    flights: SingleFlight[str, int] = SingleFlight(lambda k, v: stored.append((k, v)))
    runs = 0

    async def compute() -> int:
        nonlocal runs
        runs += 1
        await asyncio.sleep(0.05)
        return 42

    results = await asyncio.gather(*(flights.run("k", compute) for _ in range(4)))
    assert runs == 1
    assert sorted(results) == [(42, False), (42, True), (42, True), (42, True)]
    assert stored == [("k", 42)]
    assert await flights.run("k", compute) == (42, False)  # finished tasks are not reused
    assert runs == 2


async def test_a_failure_reaches_every_caller_and_is_not_reported() -> None:
    stored: list[tuple[str, int]] = []
    flights: SingleFlight[str, int] = SingleFlight(lambda k, v: stored.append((k, v)))

    async def fail() -> int:
        await asyncio.sleep(0.02)
        raise RuntimeError("down")

    outcomes = await asyncio.gather(
        *(flights.run("k", fail) for _ in range(3)), return_exceptions=True
    )
    assert all(isinstance(o, RuntimeError) for o in outcomes)
    assert stored == []
    with pytest.raises(RuntimeError):
        await flights.run("k", fail)
