"""A site's ``Retry-After`` is untrusted: ``inf``, ``1e400``, ``nan`` or an HTTP date in year 9999
never reach a message as "inf s" or "2.51606e+11 s", nor the JSON as ``null`` in place of a
number. Unusable values read as no header; a date years ahead reads as a day (the ceiling).
Real loopback pages, the loopback Wayback Machine and a loopback judge (issue #48 item 6)."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from citation_verifier.cli import app
from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.fetch.archive import ArchiveClient, ArchiveUnavailable
from citation_verifier.judge.providers import make_llm_judge
from citation_verifier.models import Label, Reason
from citation_verifier.net.retry_after import retry_after_s
from citation_verifier.passages import split_passages
from citation_verifier.settings import Settings
from fake_llm import FakeLLM, Status, Verdict
from llm_setup import llm_settings, make_fake

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."
YEAR_9999 = "Fri, 31 Dec 9999 23:59:59 GMT"
DAY = 86400.0
"""The ceiling (RETRY_AFTER_CEILING_S): the longest wait a Retry-After is read as."""
# What a reader must never see: infinity, not-a-number, an exponent.
UNREADABLE = re.compile(r"\binf\b|\bnan\b|infinity|\de[+-]?\d", re.I)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 120.0),
        ("0.25", 0.25),
        ("-5", 0.0),  # a negative delta: now
        ("inf", None),
        ("-inf", None),
        ("Infinity", None),
        ("nan", None),
        ("1e400", None),
        ("1e3", None),  # not delta-seconds (RFC 9110: digits)
        ("1_000", None),
        ("9" * 400, DAY),  # digits, but beyond any wait: the ceiling
        (YEAR_9999, DAY),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),  # in the past: now
        ("Fri, 31 Dec 99999 23:59:59 GMT", None),
        ("soon", None),
    ],
)
def test_a_retry_after_is_a_bounded_finite_number_or_none(
    value: str, expected: float | None
) -> None:
    seconds = retry_after_s(value, datetime(2026, 1, 1, tzinfo=UTC))
    assert seconds == expected
    assert seconds is None or (math.isfinite(seconds) and 0 <= seconds <= DAY)


@pytest.fixture
def busy(serve: Serve) -> LoopbackSite:
    routes: dict[str, Route] = {
        f"/busy/{n}": Page("<h1>Too Many Requests</h1>", status=429, headers={"Retry-After": value})
        for n, value in enumerate(("inf", "1e400", "nan", YEAR_9999))
    }
    return serve(routes)


@pytest.fixture
def local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    monkeypatch.setenv("AUDIT_ENABLED", "false")
    monkeypatch.setenv("RENDER_JS", "never")


def test_verify_reports_a_rate_limit_without_inf_nan_or_huge_exponents(
    busy: LoopbackSite, local: None
) -> None:
    urls = [busy.url(f"/busy/{n}") for n in range(4)]
    started = time.monotonic()
    as_json = CliRunner().invoke(app, ["verify", "--json", CLAIM, *urls])
    table = CliRunner().invoke(app, ["verify", CLAIM, *urls])
    assert time.monotonic() - started < 60  # nothing was slept through
    assert as_json.exit_code == 0 and table.exit_code == 0, (as_json.output, table.output)
    citations = json.loads(as_json.stdout)["citations"]
    assert [(c["label"], c["reason"]) for c in citations] == [("unreachable", "rate_limited")] * 4
    # inf, 1e400, nan: no usable Retry-After (as if none was sent); year 9999: a day.
    assert [c["retry_after_s"] for c in citations] == [None, None, None, 86400.0]
    assert "the site asked to retry after 86400 s" in table.output
    for said in (table.output, as_json.stdout):
        assert not UNREADABLE.search(said.replace(CLAIM, "")), said


@pytest.fixture
def archive() -> Iterator[FakeArchive]:
    with FakeArchive() as fake:
        yield fake


async def test_the_archive_asking_for_year_9999_gives_up_with_a_readable_wait(
    archive: FakeArchive,
) -> None:
    archive.fail_next(429, retry_after=YEAR_9999)
    client = ArchiveClient(
        Settings(archive_url=archive.base_url, archive_timeout_s=0.5, archive_budget_s=1.0)
    )
    try:
        with pytest.raises(ArchiveUnavailable) as failure:
            await client.closest("http://example.com/", None)
    finally:
        await client.aclose()
    message = str(failure.value)
    assert "asked to retry after 86400 s, beyond the lookup budget" in message
    assert not UNREADABLE.search(message), message


async def test_the_archive_asking_for_inf_is_retried_with_backoff(archive: FakeArchive) -> None:
    archive.add("http://example.com/", "20130919044612", "<p>The Moon is made of rock.</p>")
    archive.fail_next(429, retry_after="inf")
    client = ArchiveClient(
        Settings(archive_url=archive.base_url, archive_timeout_s=0.5, archive_budget_s=2.0)
    )
    try:
        capture = await client.closest("http://example.com/", None)
    finally:
        await client.aclose()
    assert capture is not None and capture.timestamp == "20130919044612"


@pytest.fixture
def judge_server() -> Iterator[FakeLLM]:
    with make_fake("openai") as fake:
        yield fake


async def test_a_judge_asking_for_inf_milliseconds_is_retried_not_failed(
    judge_server: FakeLLM,
) -> None:
    judge_server.script(
        Status(429, {"retry-after-ms": "inf"}, "rate limited"), Verdict("supported", CLAIM)
    )
    judge = make_llm_judge(llm_settings("openai", judge_server), "openai")
    judgement = await judge.judge(CLAIM, split_passages(CLAIM, 200))
    assert judgement.label == Label.SUPPORTED, judgement.detail
    assert len(judge_server.requests) == 2


async def test_a_judge_asking_for_year_9999_fails_at_once_saying_a_day(
    judge_server: FakeLLM,
) -> None:
    judge_server.script(Status(429, {"Retry-After": YEAR_9999}, "rate limited"))
    settings = llm_settings("openai", judge_server, judge_retry_after_max_s=5)
    judgement = await make_llm_judge(settings, "openai").judge(CLAIM, split_passages(CLAIM, 200))
    assert judgement.reason == Reason.JUDGE_ERROR
    assert judgement.detail and "asked to wait 86400 s" in judgement.detail, judgement.detail
