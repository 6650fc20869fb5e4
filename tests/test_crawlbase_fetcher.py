"""The Crawlbase client against the loopback fake API: requests sent, headers read, errors,
retries, concurrency, and replay through the Storage API."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.errors import ConfigurationError
from citation_verifier.fetch.base import FetchFailed
from citation_verifier.fetch.crawlbase import CrawlbaseFetcher, StoredPageNotFound, replay_rid
from citation_verifier.models import Reason
from citation_verifier.settings import Settings
from citation_verifier.verifier import make_fetcher
from fake_crawlbase import (
    JS_TOKEN,
    NORMAL_TOKEN,
    Canned,
    FakeCrawlbase,
    cb_settings,
    origin_site,
)


@pytest.fixture
def origin() -> Iterator[LoopbackSite]:
    with origin_site() as site:
        yield site


@pytest.fixture
def fake() -> Iterator[FakeCrawlbase]:
    with FakeCrawlbase() as api:
        yield api


def _ok(url: str, body: bytes = b"# Title\n\ntext", delay_s: float = 0.0) -> Canned:
    headers = {"original_status": "200", "cb_status": "200", "url": url}
    return Canned(200, headers, body, delay_s)


async def test_first_attempt_sends_exactly_the_documented_parameters(
    fake: FakeCrawlbase, origin: LoopbackSite
) -> None:
    target = origin.url("/articles/boiling?ref=a&b=c%20d")
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        page = await fetcher.fetch(target)
    finally:
        await fetcher.aclose()
    (call,) = fake.crawl_calls()
    assert call.params == {
        "token": NORMAL_TOKEN,
        "url": target,
        "format": "md",
        "md_readability": "true",
        "store": "true",
    }
    # The url value is encoded completely, so its own ? and & cannot leak into our query.
    assert "url=http%3A%2F%2F127.0.0.1%3A" in call.raw_query
    assert "%3Fref%3Da%26b%3Dc%2520d" in call.raw_query
    assert page.markdown is not None and "100 degrees Celsius" in page.markdown
    assert (page.status, page.rid, page.rendered) == (200, "rid0001", False)


async def test_no_readability_and_render_requests(
    fake: FakeCrawlbase, origin: LoopbackSite
) -> None:
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        await fetcher.fetch(origin.url("/app/everest"), readability=False)
        rendered = await fetcher.fetch(origin.url("/app/everest"), render=True)
    finally:
        await fetcher.aclose()
    plain, js = fake.crawl_calls()
    assert plain.params["md_readability"] == "false"
    assert plain.params["token"] == NORMAL_TOKEN
    assert js.params["token"] == JS_TOKEN
    assert "javascript" not in js.params  # the JS token renders by itself
    assert rendered.rendered and rendered.markdown and "8,849 metres" in rendered.markdown
    assert rendered.attempts[0].javascript and rendered.attempts[0].credits == 2.5


async def test_render_on_normal_token_when_configured(
    fake: FakeCrawlbase, origin: LoopbackSite
) -> None:
    fetcher = CrawlbaseFetcher(cb_settings(fake, js=False, crawlbase_js_on_normal_token=True))
    try:
        assert fetcher.can_render
        page = await fetcher.fetch(origin.url("/app/everest"), render=True)
    finally:
        await fetcher.aclose()
    (call,) = fake.crawl_calls()
    assert call.params["token"] == NORMAL_TOKEN and call.params["javascript"] == "true"
    assert page.attempts[0].token == "normal" and page.attempts[0].credits == 2.5


async def test_render_without_js_capability_is_js_required(fake: FakeCrawlbase) -> None:
    fetcher = CrawlbaseFetcher(cb_settings(fake, js=False))
    try:
        assert not fetcher.can_render
        with pytest.raises(FetchFailed) as failure:
            await fetcher.fetch("https://e.com/a", render=True)
    finally:
        await fetcher.aclose()
    assert failure.value.reason == Reason.JS_REQUIRED
    assert fake.crawl_calls() == []


async def test_rid_is_kept_and_storage_url_dropped(
    fake: FakeCrawlbase, origin: LoopbackSite
) -> None:
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        page = await fetcher.fetch(origin.url("/articles/boiling"))
    finally:
        await fetcher.aclose()
    assert page.rid == "rid0001"
    assert "storage" not in repr(page).replace("stored", "")
    assert NORMAL_TOKEN not in repr(page)


async def test_html_format_returns_the_raw_page_for_local_extraction(
    fake: FakeCrawlbase, origin: LoopbackSite
) -> None:
    fetcher = CrawlbaseFetcher(cb_settings(fake, crawlbase_format="html"))
    try:
        page = await fetcher.fetch(origin.url("/articles/oceans"))
    finally:
        await fetcher.aclose()
    (call,) = fake.crawl_calls()
    assert call.params == {
        "token": NORMAL_TOKEN,
        "url": origin.url("/articles/oceans"),
        "format": "html",
        "store": "true",
    }
    assert page.markdown is None and page.content_type == "text/html"
    assert b"fact-box" in page.body


async def test_pdf_comes_back_as_bytes_for_local_extraction(
    fake: FakeCrawlbase, origin: LoopbackSite
) -> None:
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        page = await fetcher.fetch(origin.url("/report.pdf"))
    finally:
        await fetcher.aclose()
    assert page.markdown is None and page.content_type == "application/pdf"
    assert page.body.startswith(b"%PDF-")


async def test_final_url_header_after_redirects(fake: FakeCrawlbase, origin: LoopbackSite) -> None:
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        page = await fetcher.fetch(origin.url("/moved/boiling"))
    finally:
        await fetcher.aclose()
    assert page.final_url == origin.url("/articles/boiling")
    assert page.requested_url == origin.url("/moved/boiling")


async def test_pc_status_header_is_read_when_cb_status_is_absent(origin: LoopbackSite) -> None:
    with FakeCrawlbase(status_header="pc_status") as api:
        fetcher = CrawlbaseFetcher(cb_settings(api))
        try:
            page = await fetcher.fetch(origin.url("/gone"))
        finally:
            await fetcher.aclose()
    assert page.status == 404
    assert page.attempts[0].cb_status == 404 and page.attempts[0].original_status == 404
    assert page.attempts[0].credits == 1.5


async def test_http_520_is_a_failed_crawl_not_billed(fake: FakeCrawlbase) -> None:
    fake.script("/a", Canned(520))
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        with pytest.raises(FetchFailed) as failure:
            await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert failure.value.reason == Reason.CRAWL_FAILED and failure.value.render_may_help
    (attempt,) = failure.value.attempts
    assert (attempt.http_status, attempt.cb_status, attempt.credits) == (520, None, 0.0)


@pytest.mark.parametrize("cb", [520, 525])
async def test_cb_status_520_and_525_are_failed_crawls(fake: FakeCrawlbase, cb: int) -> None:
    fake.script("/a", Canned(200, {"cb_status": str(cb), "original_status": "200"}))
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        with pytest.raises(FetchFailed) as failure:
            await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert failure.value.reason == Reason.CRAWL_FAILED and failure.value.render_may_help
    assert failure.value.attempts[0].credits == 0.0


@pytest.mark.parametrize("status", [401, 402, 403, 422])
async def test_configuration_statuses_raise_naming_the_variable_not_the_token(
    fake: FakeCrawlbase, status: int
) -> None:
    fake.script("/a", Canned(status, {}, b'{"error": "nope"}'))
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        with pytest.raises(ConfigurationError) as error:
            await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert f"HTTP {status}" in str(error.value) and "CRAWLBASE_TOKEN" in str(error.value)
    assert NORMAL_TOKEN not in str(error.value)


async def test_invalid_token_is_rejected_by_the_fake_with_401(fake: FakeCrawlbase) -> None:
    settings = cb_settings(fake, crawlbase_token=SecretStr("wrong-token-123"))
    fetcher = CrawlbaseFetcher(settings)
    try:
        with pytest.raises(ConfigurationError, match=r"HTTP 401.*CRAWLBASE_TOKEN") as error:
            await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert "wrong-token-123" not in str(error.value)


async def test_invalid_js_token_names_crawlbase_js_token(fake: FakeCrawlbase) -> None:
    fetcher = CrawlbaseFetcher(cb_settings(fake, crawlbase_js_token=SecretStr("bad-js-1")))
    try:
        with pytest.raises(ConfigurationError, match="CRAWLBASE_JS_TOKEN"):
            await fetcher.fetch("https://e.com/a", render=True)
    finally:
        await fetcher.aclose()


async def test_429_waits_retry_after_then_succeeds(fake: FakeCrawlbase) -> None:
    fake.script("/a", Canned(429, {"Retry-After": "0.3"}), _ok("https://e.com/a"))
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        started = time.monotonic()
        page = await fetcher.fetch("https://e.com/a")
        elapsed = time.monotonic() - started
    finally:
        await fetcher.aclose()
    assert elapsed >= 0.3
    assert [a.http_status for a in page.attempts] == [429, 200]
    assert [a.credits for a in page.attempts] == [0.0, 1.0]


async def test_429_wait_is_bounded(fake: FakeCrawlbase) -> None:
    fake.script("/a", *[Canned(429, {"Retry-After": "3600"})] * 3)
    settings = cb_settings(fake, crawlbase_max_retry_after_s=0.05, crawlbase_max_429_waits=2)
    fetcher = CrawlbaseFetcher(settings)
    try:
        started = time.monotonic()
        with pytest.raises(FetchFailed) as failure:
            await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert time.monotonic() - started < 2
    assert failure.value.reason == Reason.BLOCKED and not failure.value.render_may_help
    assert len(failure.value.attempts) == 3


async def test_500_is_retried_with_backoff(fake: FakeCrawlbase) -> None:
    fake.script("/a", Canned(500), Canned(503), _ok("https://e.com/a"))
    fetcher = CrawlbaseFetcher(cb_settings(fake))
    try:
        page = await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert [a.http_status for a in page.attempts] == [500, 503, 200]


async def test_500_retries_are_bounded_then_crawl_failed(fake: FakeCrawlbase) -> None:
    fake.script("/a", *[Canned(500)] * 5)
    fetcher = CrawlbaseFetcher(cb_settings(fake, crawlbase_max_retries=2))
    try:
        with pytest.raises(FetchFailed) as failure:
            await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert failure.value.reason == Reason.CRAWL_FAILED
    assert not failure.value.render_may_help  # the API is failing, not the page
    assert len(failure.value.attempts) == 3 and len(fake.crawl_calls()) == 3


async def test_slow_answer_within_the_timeout_is_awaited(fake: FakeCrawlbase) -> None:
    fake.script("/a", _ok("https://e.com/a", delay_s=0.5))
    fetcher = CrawlbaseFetcher(cb_settings(fake, crawlbase_timeout_s=3.0))
    try:
        page = await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert page.status == 200 and len(page.attempts) == 1


async def test_timeouts_are_retried_then_reported(fake: FakeCrawlbase) -> None:
    fake.script("/a", *[_ok("https://e.com/a", delay_s=1.0)] * 2)
    settings = cb_settings(fake, crawlbase_timeout_s=0.2, crawlbase_max_retries=1)
    fetcher = CrawlbaseFetcher(settings)
    try:
        with pytest.raises(FetchFailed) as failure:
            await fetcher.fetch("https://e.com/a")
    finally:
        await fetcher.aclose()
    assert failure.value.reason == Reason.TIMEOUT
    assert [a.http_status for a in failure.value.attempts] == [None, None]


def test_default_client_timeout_is_at_least_90_seconds() -> None:
    assert Settings().crawlbase_timeout_s >= 90


async def test_concurrency_per_token_is_bounded(fake: FakeCrawlbase) -> None:
    for n in range(6):
        fake.script(f"/p{n}", _ok(f"https://e.com/p{n}", delay_s=0.2))
    fetcher = CrawlbaseFetcher(cb_settings(fake, crawlbase_concurrency=2))
    try:
        await asyncio.gather(*(fetcher.fetch(f"https://e.com/p{n}") for n in range(6)))
    finally:
        await fetcher.aclose()
    assert fake.max_in_flight == 2


async def test_waiting_for_a_slot_does_not_count_against_the_timeout(
    fake: FakeCrawlbase,
) -> None:
    for n in range(3):
        fake.script(f"/q{n}", _ok(f"https://e.com/q{n}", delay_s=0.3))
    settings = cb_settings(fake, crawlbase_concurrency=1, crawlbase_timeout_s=0.6)
    fetcher = CrawlbaseFetcher(settings)
    try:
        pages = await asyncio.gather(*(fetcher.fetch(f"https://e.com/q{n}") for n in range(3)))
    finally:
        await fetcher.aclose()
    assert [len(p.attempts) for p in pages] == [1, 1, 1]
    assert fake.max_in_flight == 1


def test_fetcher_without_token_names_crawlbase_token() -> None:
    with pytest.raises(ConfigurationError, match="CRAWLBASE_TOKEN"):
        make_fetcher(Settings(fetcher="crawlbase"))


@pytest.mark.parametrize("api_url", ["api.crawlbase.com", "ftp://api.crawlbase.com", ""])
def test_malformed_api_url_is_a_configuration_error(api_url: str) -> None:
    settings = Settings(crawlbase_token=SecretStr("t"), crawlbase_api_url=api_url)
    with pytest.raises(ConfigurationError, match="CRAWLBASE_API_URL"):
        make_fetcher(settings)


def test_auto_fetcher_picks_crawlbase_only_with_a_token() -> None:
    from citation_verifier.fetch.direct import DirectFetcher

    assert isinstance(make_fetcher(Settings(fetcher="auto")), DirectFetcher)
    assert isinstance(make_fetcher(Settings(crawlbase_token=SecretStr(" "))), DirectFetcher)
    assert isinstance(make_fetcher(Settings(crawlbase_token=SecretStr("t"))), CrawlbaseFetcher)
    assert Settings().fetcher == "auto"


async def test_replay_rid_returns_the_stored_page(
    fake: FakeCrawlbase, origin: LoopbackSite
) -> None:
    settings = cb_settings(fake)
    fetcher = CrawlbaseFetcher(settings)
    try:
        page = await fetcher.fetch(origin.url("/articles/boiling"))
        assert page.rid is not None
        assert await fetcher.replay(page.rid) == page.markdown
    finally:
        await fetcher.aclose()
    assert await replay_rid(page.rid, settings) == page.markdown
    storage = [c for c in fake.calls if c.endpoint == "/storage"]
    assert storage[-1].params == {"token": NORMAL_TOKEN, "rid": page.rid}


async def test_replay_rid_works_with_the_js_token_alone(fake: FakeCrawlbase) -> None:
    fake.stored["r9"] = b"stored text"
    settings = cb_settings(fake, crawlbase_token=None)
    assert await replay_rid("r9", settings) == "stored text"
    assert fake.calls[-1].params["token"] == JS_TOKEN


async def test_replay_rid_rejects_an_empty_rid(fake: FakeCrawlbase) -> None:
    with pytest.raises(ValueError, match="rid"):
        await replay_rid("  ", cb_settings(fake))


async def test_replay_rid_without_token_names_crawlbase_token() -> None:
    with pytest.raises(ConfigurationError, match="CRAWLBASE_TOKEN"):
        await replay_rid("r1", Settings())


async def test_replay_unknown_rid_is_a_clear_error(fake: FakeCrawlbase) -> None:
    with pytest.raises(StoredPageNotFound, match="nope"):
        await replay_rid("nope", cb_settings(fake))


async def test_replay_with_a_bad_token_is_a_configuration_error(fake: FakeCrawlbase) -> None:
    settings = cb_settings(fake, crawlbase_token=SecretStr("bad-9"))
    with pytest.raises(ConfigurationError, match=r"HTTP 401.*CRAWLBASE_TOKEN") as error:
        await replay_rid("r1", settings)
    assert "bad-9" not in str(error.value)
