"""Time arguments of the audit commands: durations (``90d``) and points in time."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$", re.I)
_UNIT = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(text: str) -> timedelta:
    """``90d``, ``12h``, ``30m``, ``45s``, ``2w`` → timedelta; ValueError otherwise."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"not a duration: {text!r} (expected e.g. 90d, 12h, 30m, 2w)")
    return timedelta(**{_UNIT[match.group(2).lower()]: float(match.group(1))})


def parse_time(text: str, now: datetime | None = None) -> datetime:
    """An ISO date or date-time (UTC when no offset is given), or a duration meaning that long
    ago (``7d``) → aware datetime; ValueError otherwise."""
    now = now or datetime.now(UTC)
    if _DURATION.match(text):
        return now - parse_duration(text)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"not a time: {text!r} (expected e.g. 2026-11-30, 2026-11-30T12:00:00+01:00 or 7d)"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
