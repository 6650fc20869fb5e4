"""Admission: bounded in-flight work, a bounded wait queue, a bounded wait; never unbounded."""

from __future__ import annotations

import asyncio

import pytest

from citation_verifier.service.admission import Admission, Overloaded


async def _hold(admission: Admission, seconds: float) -> str:
    async with admission.slot():
        await asyncio.sleep(seconds)
    return "done"


async def test_work_beyond_the_limit_waits_for_a_slot() -> None:
    admission = Admission(max_in_flight=2, max_waiting=4, wait_timeout_s=5, retry_after_s=3)
    tasks = [asyncio.ensure_future(_hold(admission, 0.1)) for _ in range(5)]
    await asyncio.sleep(0.02)
    assert (admission.in_flight, admission.waiting) == (2, 3)
    assert await asyncio.gather(*tasks) == ["done"] * 5
    assert (admission.in_flight, admission.waiting) == (0, 0)


async def test_a_full_wait_queue_refuses_at_once_with_retry_after() -> None:
    admission = Admission(max_in_flight=1, max_waiting=1, wait_timeout_s=5, retry_after_s=7)
    running = asyncio.ensure_future(_hold(admission, 0.2))
    waiting = asyncio.ensure_future(_hold(admission, 0.0))
    await asyncio.sleep(0.02)
    with pytest.raises(Overloaded) as refused:
        await _hold(admission, 0.0)
    assert refused.value.retry_after_s == 7
    assert list(await asyncio.gather(running, waiting)) == ["done", "done"]


async def test_a_wait_longer_than_the_timeout_is_refused() -> None:
    admission = Admission(max_in_flight=1, max_waiting=5, wait_timeout_s=0.05, retry_after_s=1)
    running = asyncio.ensure_future(_hold(admission, 0.3))
    await asyncio.sleep(0.01)
    with pytest.raises(Overloaded, match="no verification slot freed"):
        await _hold(admission, 0.0)
    assert admission.waiting == 0
    await running


def test_at_least_one_slot_is_required() -> None:
    with pytest.raises(ValueError):
        Admission(max_in_flight=0, max_waiting=1, wait_timeout_s=1, retry_after_s=1)


async def test_the_idle_callback_runs_when_the_last_request_leaves() -> None:
    idle: list[int] = []
    admission = Admission(
        max_in_flight=2,
        max_waiting=4,
        wait_timeout_s=5,
        retry_after_s=3,
        on_idle=lambda: idle.append(1),
    )
    await asyncio.gather(*(_hold(admission, 0.05 * n) for n in (1, 2, 3)))
    # Three requests overlapping: the service went idle once, after the last.
    assert idle == [1]
    await _hold(admission, 0)
    assert idle == [1, 1]
