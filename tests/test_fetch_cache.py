"""PageCache: single-flight for concurrent identical URLs, TTL reuse, transient failures never
kept, bounded size. Pages are real loopback pages loaded through the real PagePolicy."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from contextlib import aclosing

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.fetch.direct import DirectFetcher
from citation_verifier.fetch.policy import Document, PagePolicy, Settled
from citation_verifier.models import Label, Reason
from citation_verifier.reuse.pages import PageCache, is_cacheable
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]


async def test_concurrent_identical_urls_are_fetched_once(serve: Serve, settings: Settings) -> None:
    site = serve({"/slow": Page(BOILING_HTML, delay_s=0.3)})
    cache = PageCache(ttl_s=60)
    async with aclosing(DirectFetcher(settings)) as fetcher:
        policy = PagePolicy(fetcher, settings)
        results = await asyncio.gather(
            *(cache.load(site.url("/slow"), policy.load) for _ in range(10))
        )
    assert site.hits["/slow"] == 1
    assert all(isinstance(r, Document) for r in results)
    assert len({id(r) for r in results}) == 1
    assert (cache.misses, cache.shared) == (1, 9)


async def test_a_repeated_url_is_served_from_cache_within_the_ttl(
    serve: Serve, settings: Settings
) -> None:
    site = serve({"/page": Page(BOILING_HTML), "/gone": Page("gone", status=404)})
    cache = PageCache(ttl_s=60)
    async with aclosing(DirectFetcher(settings)) as fetcher:
        policy = PagePolicy(fetcher, settings)
        for _ in range(3):
            await cache.load(site.url("/page"), policy.load)
            dead = await cache.load(site.url("/gone"), policy.load)
    assert site.hits == {"/page": 1, "/gone": 1}
    assert isinstance(dead, Settled) and dead.reason == Reason.HTTP_404
    assert cache.hits == 4


async def test_an_entry_older_than_the_ttl_is_fetched_again(
    serve: Serve, settings: Settings
) -> None:
    site = serve({"/page": Page(BOILING_HTML)})
    now = [1000.0]
    cache = PageCache(ttl_s=5, clock=lambda: now[0])
    async with aclosing(DirectFetcher(settings)) as fetcher:
        policy = PagePolicy(fetcher, settings)
        await cache.load(site.url("/page"), policy.load)
        now[0] += 4.9
        await cache.load(site.url("/page"), policy.load)
        assert site.hits["/page"] == 1
        now[0] += 0.2
        await cache.load(site.url("/page"), policy.load)
    assert site.hits["/page"] == 2


async def test_a_timeout_is_shared_but_never_cached(serve: Serve) -> None:
    settings = Settings(allow_private_urls=True, fetch_timeout_s=0.2, connect_timeout_s=0.2)
    site = serve({"/stall": Page(BOILING_HTML, delay_s=1.0)})
    cache = PageCache(ttl_s=60)
    async with aclosing(DirectFetcher(settings)) as fetcher:
        policy = PagePolicy(fetcher, settings)
        first = await asyncio.gather(
            *(cache.load(site.url("/stall"), policy.load) for _ in range(3))
        )
        second = await cache.load(site.url("/stall"), policy.load)
    assert all(isinstance(r, Settled) and r.reason == Reason.TIMEOUT for r in [*first, second])
    assert cache.misses == 2 and len(cache) == 0


def test_only_page_outcomes_are_cacheable() -> None:
    dead = Settled("http://x/a", Label.UNREACHABLE, Reason.HTTP_404, "404")
    slow = Settled("http://x/a", Label.UNREACHABLE, Reason.TIMEOUT, "timeout")
    assert is_cacheable(dead)
    assert not is_cacheable(slow)


async def test_the_cache_keeps_at_most_max_entries(serve: Serve, settings: Settings) -> None:
    site = serve({f"/p{i}": Page(BOILING_HTML) for i in range(4)})
    cache = PageCache(ttl_s=60, max_entries=2)
    async with aclosing(DirectFetcher(settings)) as fetcher:
        policy = PagePolicy(fetcher, settings)
        for i in range(4):
            await cache.load(site.url(f"/p{i}"), policy.load)
        await cache.load(site.url("/p0"), policy.load)  # evicted: fetched again
    assert len(cache) == 2
    assert site.hits["/p0"] == 2


async def test_a_cancelled_caller_does_not_cancel_the_shared_load(
    serve: Serve, settings: Settings
) -> None:
    site = serve({"/slow": Page(BOILING_HTML, delay_s=0.3)})
    cache = PageCache(ttl_s=60)
    async with aclosing(DirectFetcher(settings)) as fetcher:
        policy = PagePolicy(fetcher, settings)
        impatient = asyncio.ensure_future(cache.load(site.url("/slow"), policy.load))
        await asyncio.sleep(0.05)
        patient = asyncio.ensure_future(cache.load(site.url("/slow"), policy.load))
        await asyncio.sleep(0.05)
        impatient.cancel()
        result = await patient
    assert isinstance(result, Document)
    assert site.hits["/slow"] == 1
