"""``Retry-After`` parsing, shared by every HTTP client that honours it (crawling API, archive,
judges, the wall classifier).

A site's header is untrusted input, and the number it gives is both waited on (a short one,
bounded by each caller's own setting) and shown to people and in JSON (a long one). So the
answer is always a finite number of seconds between 0 and :data:`RETRY_AFTER_CEILING_S`, or None
when the header gives no usable value: ``inf``, ``1e400``, ``nan`` are not delta-seconds (RFC
9110: digits) and read as no header at all; an HTTP date in year 9999 is a well-formed "not
soon", reported as the ceiling, never as ``2.5e+11 s``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

RETRY_AFTER_CEILING_S = 86_400.0
"""The longest wait a ``Retry-After`` is read as (a day): anything longer tells a caller only
"not within this run", and a bigger number would only be harder to read."""

# RFC 9110 delta-seconds is 1*DIGIT; a fraction and a sign are accepted (some servers send
# them), exponents, "inf" and "nan" are not. ASCII digits only: float() would take "٣" or "1_0".
_DELTA = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def retry_after_s(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date), between 0 and
    :data:`RETRY_AFTER_CEILING_S`; None when absent or not a usable value."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if _DELTA.fullmatch(value):
        return _bounded(float(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return _bounded((when - (now or datetime.now(UTC))).total_seconds())


def retry_after_ms_s(value: str | None) -> float | None:
    """Seconds to wait from a ``retry-after-ms`` header (OpenAI's, in milliseconds), with the
    same grammar and bounds as :func:`retry_after_s`; None when absent or not usable."""
    if value is None or not _DELTA.fullmatch(value.strip()):
        return None
    return _bounded(float(value.strip()) / 1000)


def _bounded(seconds: float) -> float:
    """``seconds`` within [0, ceiling]: a past date or a negative delta means now; a huge
    number (``float`` of 400 digits is ``inf``) means the ceiling."""
    return min(max(0.0, seconds), RETRY_AFTER_CEILING_S)
