"""The Wayback Machine client against a loopback fake of the archive (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from citation_verifier.demo.archive import FakeArchive
from citation_verifier.fetch.archive import (
    ArchiveClient,
    ArchiveUnavailable,
    Capture,
    transport_words,
    wayback_timestamp,
)
from citation_verifier.settings import Settings

PAGE = "http://example.com/"
ARTICLE = """<html><head><title>Moon</title></head><body>
<p>The Moon is <a href="https://example.com/moon">made of rock</a>.</p>
<img src="/img/moon.png"></body></html>"""


def archive_settings(fake: FakeArchive, **overrides: Any) -> Settings:
    """Small timeouts and budgets, so failure tests finish in about a second."""
    values: dict[str, Any] = {
        "archive_url": fake.base_url,
        "archive_timeout_s": 0.5,
        "archive_budget_s": 1.0,
        "archive_max_requests": 4,
        "archive_cache_ttl_s": 60.0,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="module")
def _archive_server() -> Iterator[FakeArchive]:
    # One server for the module: stopping one takes half a second (the serve loop's poll).
    with FakeArchive() as running:
        yield running


@pytest.fixture
def fake(_archive_server: FakeArchive) -> FakeArchive:
    return _archive_server.reset()


@pytest.fixture
async def client(fake: FakeArchive) -> AsyncIterator[ArchiveClient]:
    archive = ArchiveClient(archive_settings(fake))
    yield archive
    await archive.aclose()


def api_requests(fake: FakeArchive) -> list[str]:
    return [path for path in fake.requests if path.startswith("/wayback/available")]


# --- finding captures ---


async def test_the_closest_capture_is_found_with_its_fields(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)

    capture = await client.closest(PAGE, datetime(2013, 9, 20, tzinfo=UTC))

    assert capture == Capture(
        original_url=PAGE,
        timestamp="20130919044612",
        url=f"{fake.base_url}/web/20130919044612/{PAGE}",
        status=200,
    )
    assert capture.raw_url == f"{fake.base_url}/web/20130919044612id_/{PAGE}"
    assert capture.archived_at == datetime(2013, 9, 19, 4, 46, 12, tzinfo=UTC)
    assert (client.lookups, client.requests, client.hits, client.misses) == (1, 1, 1, 0)


async def test_the_capture_closest_in_time_wins_among_several(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    for stamp in ("20100101000000", "20150610120000", "20150620120000", "20200101000000"):
        fake.add(PAGE, stamp, f"<html><body>{stamp}</body></html>")

    june_12 = await client.closest(PAGE, datetime(2015, 6, 12, tzinfo=UTC))
    june_19 = await client.closest(PAGE, datetime(2015, 6, 19, tzinfo=UTC))
    latest = await client.closest(PAGE, None)

    assert june_12 is not None and june_12.timestamp == "20150610120000"
    assert june_19 is not None and june_19.timestamp == "20150620120000"
    assert latest is not None and latest.timestamp == "20200101000000"


async def test_a_capture_made_on_the_cited_day_beats_one_hours_earlier_the_day_before(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    fake.add(PAGE, "20150618235900", "<html><body>the day before</body></html>")
    fake.add(PAGE, "20150619230000", "<html><body>that day</body></html>")

    capture = await client.closest(PAGE, datetime(2015, 6, 19, 0, 5, tzinfo=UTC))

    assert capture is not None and capture.timestamp == "20150619230000"


async def test_the_lookup_asks_for_the_url_and_the_citation_day(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    await client.closest(PAGE, datetime(2015, 6, 19, 22, 30, tzinfo=timezone(timedelta(hours=-5))))
    await client.closest("http://other.example/", None)

    assert api_requests(fake) == [
        "/wayback/available?url=http%3A%2F%2Fexample.com%2F&timestamp=20150620120000",
        "/wayback/available?url=http%3A%2F%2Fother.example%2F",
    ]


async def test_an_unarchived_url_is_none(fake: FakeArchive, client: ArchiveClient) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)

    assert await client.closest("http://never.example/gone", datetime(2013, 1, 1)) is None
    assert (client.hits, client.misses, client.failures) == (0, 1, 0)


async def test_the_archived_status_of_a_capture_is_reported(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    fake.add(PAGE, "20130919044612", "<html><body>Not here</body></html>", status=404)

    capture = await client.closest(PAGE, None)

    assert capture is not None and capture.status == 404


# --- retries and failures ---


async def test_a_429_with_retry_after_is_retried_after_the_wait(fake: FakeArchive) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)
    fake.fail_next(429, retry_after="1")
    archive = ArchiveClient(archive_settings(fake, archive_budget_s=3.0))
    try:
        started = time.monotonic()
        capture = await archive.closest(PAGE, None)
        elapsed = time.monotonic() - started
    finally:
        await archive.aclose()

    assert capture is not None and capture.timestamp == "20130919044612"
    assert 0.9 <= elapsed < 2.5
    assert archive.requests == 2 and len(fake.requests) == 2
    assert archive.failures == 0


async def test_a_retry_after_beyond_the_budget_gives_up_at_once(fake: FakeArchive) -> None:
    fake.fail_next(429, retry_after="30")
    archive = ArchiveClient(archive_settings(fake, archive_budget_s=3.0))
    try:
        started = time.monotonic()
        with pytest.raises(ArchiveUnavailable, match=r"429.*retry after 30 s"):
            await archive.closest(PAGE, None)
        elapsed = time.monotonic() - started
    finally:
        await archive.aclose()

    assert elapsed < 0.5
    assert archive.requests == 1 and archive.failures == 1


async def test_a_503_is_retried_with_backoff(fake: FakeArchive, client: ArchiveClient) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)
    fake.fail_next(503)

    capture = await client.closest(PAGE, None)

    assert capture is not None
    assert client.requests == 2 and client.failures == 0


async def test_a_persistent_503_is_unavailable_within_the_budget(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    fake.fail_next(503, times=100)

    started = time.monotonic()
    with pytest.raises(ArchiveUnavailable, match="HTTP 503"):
        await client.closest(PAGE, None)

    assert time.monotonic() - started < 1.2
    assert 2 <= client.requests <= 4
    assert client.failures == 1 and client.lookups == 1


async def test_the_request_cap_ends_a_lookup(fake: FakeArchive) -> None:
    fake.fail_next(500, retry_after="0", times=100)
    archive = ArchiveClient(archive_settings(fake, archive_max_requests=3))
    try:
        with pytest.raises(ArchiveUnavailable, match=r"HTTP 500; gave up after 3 tries$"):
            await archive.closest(PAGE, None)
    finally:
        await archive.aclose()

    assert archive.requests == 3 and len(fake.requests) == 3


async def test_a_slow_archive_is_unavailable_once_the_budget_is_spent(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)
    fake.delay_s = 3.0

    started = time.monotonic()
    with pytest.raises(ArchiveUnavailable, match="did not answer"):
        await client.closest(PAGE, None)

    assert time.monotonic() - started < 1.5
    assert client.failures == 1


async def test_invalid_json_is_unavailable(fake: FakeArchive, client: ArchiveClient) -> None:
    fake.fail_next(200, body="<html><body>Service Unavailable</body></html>")

    with pytest.raises(ArchiveUnavailable, match="invalid JSON"):
        await client.closest(PAGE, None)

    assert client.requests == 1


async def test_an_unreachable_archive_is_unavailable() -> None:
    with FakeArchive() as gone:
        settings = archive_settings(gone)
    archive = ArchiveClient(settings)
    try:
        with pytest.raises(ArchiveUnavailable, match="cannot reach the archive"):
            await archive.closest(PAGE, None)
    finally:
        await archive.aclose()


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ([], "not a JSON object"),
        ({"url": PAGE}, "no archived_snapshots"),
        ({"archived_snapshots": []}, "no archived_snapshots"),
        ({"archived_snapshots": {"closest": "yes"}}, "not an object"),
        ({"archived_snapshots": {"closest": {"available": True, "timestamp": "2013"}}}, "URL"),
        (
            {
                "archived_snapshots": {
                    "closest": {"url": "http://web.archive.org/web/2013/x", "timestamp": "2013"}
                }
            },
            "14-digit",
        ),
    ],
)
async def test_an_unexpected_answer_shape_is_unavailable(payload: Any, problem: str) -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=payload))
    archive = ArchiveClient(Settings(), transport=transport)
    try:
        with pytest.raises(ArchiveUnavailable, match=problem):
            await archive.closest(PAGE, None)
    finally:
        await archive.aclose()


async def test_the_documented_answer_shapes_parse() -> None:
    answers = {
        "a": {
            "url": "a",
            "archived_snapshots": {
                "closest": {
                    "available": True,
                    "url": "http://web.archive.org/web/20130919044612/http://a/",
                    "timestamp": "20130919044612",
                    "status": "-",
                }
            },
        },
        "b": {"url": "b", "timestamp": "2013", "archived_snapshots": {}},
        "c": {"archived_snapshots": {}},
        "d": {"archived_snapshots": {"closest": {"available": False}}},
    }
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answers[request.url.params["url"]])

    archive = ArchiveClient(Settings(), transport=httpx.MockTransport(answer))
    try:
        capture = await archive.closest("a", datetime(2013, 9, 19))
        nothing = [await archive.closest(url, None) for url in "bcd"]
    finally:
        await archive.aclose()

    assert capture is not None and capture.status is None
    assert capture.raw_url == "http://web.archive.org/web/20130919044612id_/http://a/"
    assert nothing == [None, None, None]
    assert str(seen[0].url).startswith("https://archive.org/wayback/available?")
    assert seen[0].headers["user-agent"] == Settings().user_agent


# --- cache and single-flight ---


async def test_a_second_lookup_the_same_day_costs_no_request(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)

    first = await client.closest(PAGE, datetime(2013, 9, 20, 8, tzinfo=UTC))
    second = await client.closest(PAGE, datetime(2013, 9, 20, 17, tzinfo=UTC))
    missing = [await client.closest("http://never.example/", None) for _ in range(2)]

    assert second == first
    assert missing == [None, None]
    assert len(fake.requests) == 2 and client.requests == 2
    assert (client.lookups, client.cached, client.hits, client.misses) == (4, 2, 2, 2)


async def test_another_day_is_another_lookup(fake: FakeArchive, client: ArchiveClient) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)

    await client.closest(PAGE, datetime(2013, 9, 20, tzinfo=UTC))
    await client.closest(PAGE, datetime(2013, 9, 21, tzinfo=UTC))
    await client.closest(PAGE, None)

    assert client.requests == 3 and client.cached == 0


async def test_failures_are_not_cached(fake: FakeArchive, client: ArchiveClient) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)
    fake.fail_next(404)

    with pytest.raises(ArchiveUnavailable, match="HTTP 404"):
        await client.closest(PAGE, None)
    capture = await client.closest(PAGE, None)

    assert capture is not None and client.requests == 2 and client.cached == 0


async def test_an_expired_answer_is_looked_up_again(fake: FakeArchive) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)
    archive = ArchiveClient(archive_settings(fake, archive_cache_ttl_s=0.05))
    try:
        await archive.closest(PAGE, None)
        await asyncio.sleep(0.1)
        await archive.closest(PAGE, None)
    finally:
        await archive.aclose()

    assert archive.requests == 2 and archive.cached == 0


async def test_concurrent_identical_lookups_share_one_request(
    fake: FakeArchive, client: ArchiveClient
) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)
    fake.delay_s = 0.2

    captures = await asyncio.gather(
        *(client.closest(PAGE, datetime(2013, 9, 20, hour, tzinfo=UTC)) for hour in range(5))
    )

    assert len({c.url for c in captures if c is not None}) == 1 and None not in captures
    assert len(fake.requests) == 1 and client.requests == 1
    assert (client.lookups, client.hits, client.joined) == (5, 5, 4)


async def test_concurrent_lookups_share_a_failure(fake: FakeArchive) -> None:
    fake.fail_next(400)
    fake.delay_s = 0.2
    archive = ArchiveClient(archive_settings(fake))
    try:
        results = await asyncio.gather(
            *(archive.closest(PAGE, None) for _ in range(3)), return_exceptions=True
        )
    finally:
        await archive.aclose()

    assert all(isinstance(r, ArchiveUnavailable) for r in results)
    assert archive.requests == 1 and archive.failures == 3


# --- capture URLs ---


@pytest.mark.parametrize(
    ("url", "raw"),
    [
        (
            "http://web.archive.org/web/20130919044612/http://example.com/",
            "http://web.archive.org/web/20130919044612id_/http://example.com/",
        ),
        (
            "https://web.archive.org/web/20130919044612/https://example.com/a/b.html",
            "https://web.archive.org/web/20130919044612id_/https://example.com/a/b.html",
        ),
        (
            "https://web.archive.org/web/20130919044612id_/http://example.com/",
            "https://web.archive.org/web/20130919044612id_/http://example.com/",
        ),
        (
            "http://web.archive.org/web/20130919044612im_/http://example.com/x.png",
            "http://web.archive.org/web/20130919044612id_/http://example.com/x.png",
        ),
        (
            "http://web.archive.org/web/20130919044612/http://example.com/web/20200101000000/?q=a&b=/web/1#top",
            "http://web.archive.org/web/20130919044612id_/http://example.com/web/20200101000000/?q=a&b=/web/1#top",
        ),
        (
            "http://127.0.0.1:8080/prefix/web/20130919044612/http://example.com/?id=7",
            "http://127.0.0.1:8080/prefix/web/20130919044612id_/http://example.com/?id=7",
        ),
    ],
)
def test_the_raw_url_is_the_id_form_of_the_capture_url(url: str, raw: str) -> None:
    capture = Capture(PAGE, "20130919044612", url, 200)

    assert capture.raw_url == raw
    assert Capture(PAGE, "20130919044612", capture.raw_url, 200).raw_url == raw


def test_a_url_that_is_not_a_capture_url_has_no_raw_form() -> None:
    with pytest.raises(ValueError, match="not a Wayback capture URL"):
        _ = Capture(PAGE, "20130919044612", "http://example.com/page", 200).raw_url


def test_a_capture_needs_a_14_digit_timestamp() -> None:
    with pytest.raises(ValueError, match="14 digits"):
        Capture(PAGE, "2013", "http://web.archive.org/web/2013/http://example.com/", 200)


def test_wayback_timestamps_are_utc() -> None:
    assert wayback_timestamp(None) is None
    assert wayback_timestamp(datetime(2013, 9, 19, 4, 46, 12, tzinfo=UTC)) == "20130919044612"
    assert wayback_timestamp(datetime(2013, 9, 19, 4, 46, 12)) == "20130919044612"
    east = timezone(timedelta(hours=2))
    assert wayback_timestamp(datetime(2013, 9, 19, 1, 0, tzinfo=east)) == "20130918230000"


@pytest.mark.parametrize("url", ["ftp://archive.example", "archive.org", "https://"])
def test_the_archive_url_must_be_http(url: str) -> None:
    with pytest.raises(ValidationError, match="archive_url"):
        Settings(archive_url=url)


# --- the fake's replay ---


def test_the_toolbar_form_differs_from_the_raw_capture(fake: FakeArchive) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)
    base = f"{fake.base_url}/web/20130919044612"

    with httpx.Client(trust_env=False) as http:
        raw = http.get(f"{base}id_/{PAGE}")
        replay = http.get(f"{base}/{PAGE}")

    assert raw.status_code == 200 and raw.text == ARTICLE
    assert replay.status_code == 200 and replay.text != ARTICLE
    assert '<div id="wm-ipp-base"' in replay.text
    assert f"The Wayback Machine - {base}/{PAGE}" in replay.text
    assert replay.text.index("wm-ipp-base") > replay.text.index("<body>")
    assert 'href="/web/20130919044612/https://example.com/moon"' in replay.text
    assert 'src="/web/20130919044612/http://example.com/img/moon.png"' in replay.text
    assert "Memento-Datetime" in raw.headers


def test_a_capture_of_a_404_replays_as_404(fake: FakeArchive) -> None:
    fake.add(PAGE, "20130919044612", "<html><body>No such page</body></html>", status=404)

    with httpx.Client(trust_env=False) as http:
        response = http.get(f"{fake.base_url}/web/20130919044612id_/{PAGE}")

    assert response.status_code == 404 and "No such page" in response.text


def test_a_timestamp_that_is_not_a_capture_redirects_to_the_nearest(fake: FakeArchive) -> None:
    fake.add(PAGE, "20130919044612", ARTICLE)
    fake.add(PAGE, "20140101000000", "<html><body>later</body></html>")

    with httpx.Client(trust_env=False) as http:
        toolbar = http.get(f"{fake.base_url}/web/20130920/{PAGE}")
        raw = http.get(f"{fake.base_url}/web/20131230000000id_/{PAGE}")
        followed = http.get(f"{fake.base_url}/web/2013id_/{PAGE}", follow_redirects=True)
        unknown = http.get(f"{fake.base_url}/web/2013/http://never.example/")

    assert toolbar.status_code == 302
    assert toolbar.headers["location"] == f"{fake.base_url}/web/20130919044612/{PAGE}"
    assert raw.status_code == 302
    assert raw.headers["location"] == f"{fake.base_url}/web/20140101000000id_/{PAGE}"
    assert followed.status_code == 200 and followed.text == ARTICLE
    assert unknown.status_code == 404


def test_the_fake_answers_the_documented_availability_json(fake: FakeArchive) -> None:
    fake.add("https://www.example.com/", "20130919044612", ARTICLE)

    with httpx.Client(trust_env=False) as http:
        found = http.get(
            f"{fake.base_url}/wayback/available",
            params={"url": "example.com", "timestamp": "20130919"},
        )
        latest = http.get(f"{fake.base_url}/wayback/available", params={"url": "example.com"})
        none = http.get(f"{fake.base_url}/wayback/available", params={"url": "never.example"})

    assert found.headers["content-type"] == "application/json"
    assert json.loads(found.text) == {
        "url": "example.com",
        "timestamp": "20130919",
        "archived_snapshots": {
            "closest": {
                "status": "200",
                "available": True,
                "url": f"{fake.base_url}/web/20130919044612/https://www.example.com/",
                "timestamp": "20130919044612",
            }
        },
    }
    assert latest.json()["archived_snapshots"]["closest"]["timestamp"] == "20130919044612"
    assert none.json() == {"url": "never.example", "archived_snapshots": {}}
    assert len(fake.requests) == 3


async def test_an_unreachable_archive_is_said_in_words() -> None:
    # The web page and the CLI show this text as it is: no exception names, no request counts.
    with FakeArchive() as gone:
        settings = archive_settings(gone)
    archive = ArchiveClient(settings)
    try:
        with pytest.raises(ArchiveUnavailable) as failed:
            await archive.closest(PAGE, None)
    finally:
        await archive.aclose()
    message = str(failed.value)
    assert re.fullmatch(
        r"cannot reach the archive \(the connection could not be opened\)"
        r"(; gave up after (1 try|\d+ tries)|, beyond the lookup budget)",
        message,
    ), message
    assert "Error" not in message and "requests" not in message


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (httpx.ConnectError("x"), "the connection could not be opened"),
        (httpx.ConnectTimeout("x"), "no connection within the time allowed"),
        (httpx.ReadError("x"), "the connection broke while reading the answer"),
        (httpx.RemoteProtocolError("x"), "the archive's answer was cut off or malformed"),
        (httpx.UnsupportedProtocol("x"), "the network failed"),
    ],
)
def test_transport_errors_are_put_in_words(error: httpx.TransportError, words: str) -> None:
    assert transport_words(error) == words
