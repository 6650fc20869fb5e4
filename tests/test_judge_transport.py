"""Retry timing: Retry-After parsing and bounded exponential backoff."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx

from citation_verifier.judge.transport import RetryPolicy, retry_after_seconds


def response(headers: dict[str, str]) -> httpx.Response:
    return httpx.Response(429, headers=headers)


def test_retry_after_in_seconds() -> None:
    assert retry_after_seconds(response({"Retry-After": "7"})) == 7.0


def test_retry_after_ms_wins_over_retry_after() -> None:
    assert retry_after_seconds(response({"retry-after-ms": "250", "Retry-After": "7"})) == 0.25


def test_retry_after_as_http_date() -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    seconds = retry_after_seconds(response({"Retry-After": when}))
    assert seconds is not None and 25 <= seconds <= 30


def test_missing_or_garbage_retry_after_is_none() -> None:
    assert retry_after_seconds(response({})) is None
    assert retry_after_seconds(response({"Retry-After": "soon"})) is None


def test_backoff_doubles_and_is_capped() -> None:
    policy = RetryPolicy(max_retries=5, backoff_s=1.0, backoff_max_s=4.0, retry_after_max_s=60)
    for attempt, full in [(0, 1.0), (1, 2.0), (2, 4.0), (5, 4.0)]:
        delay = policy.backoff(attempt)
        assert full / 2 <= delay <= full
