"""Durations and times given to the audit commands."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from citation_verifier.audit.timespec import parse_duration, parse_time

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_durations_in_every_unit() -> None:
    assert parse_duration("90d") == timedelta(days=90)
    assert parse_duration(" 12H ") == timedelta(hours=12)
    assert parse_duration("30m") == timedelta(minutes=30)
    assert parse_duration("45s") == timedelta(seconds=45)
    assert parse_duration("2w") == timedelta(weeks=2)
    assert parse_duration("1.5d") == timedelta(hours=36)


@pytest.mark.parametrize("bad", ["", "90", "d", "-1d", "90 days", "1y"])
def test_malformed_durations_are_value_errors(bad: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(bad)


def test_times_are_iso_in_utc_or_a_duration_ago() -> None:
    assert parse_time("2026-11-29", NOW) == datetime(2026, 11, 29, tzinfo=UTC)
    assert parse_time("2026-11-29T10:00:00+02:00", NOW) == datetime(2026, 11, 29, 8, tzinfo=UTC)
    assert parse_time("7d", NOW) == NOW - timedelta(days=7)


def test_malformed_times_are_value_errors() -> None:
    with pytest.raises(ValueError, match="not a time"):
        parse_time("yesterday", NOW)
