"""Walls (issue #27): on the loopback wall corpus, recall per wall reason; on the article corpus,
how many pages were taken for walls (target 0); and the time each recovery adds (median, p90).

    python bench/walls.py               # 7 runs of each recovery
    python bench/walls.py --runs 15

Every page goes through the real fetch policy (direct fetcher, Debian's Chromium for the
browser steps, the loopback Crawling API fake and the loopback Wayback Machine). Recovery times
are each step's own time as recorded in ``recoveries`` (the archive rescue: the load with the
rescue minus the load without it). Exit status 1 when a wall is missed or an article flagged.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.demo.walls import (
    ARTICLES,
    WALL_CASES,
    ConsentWalledArticle,
    short_retry_after,
    wall_routes,
)
from citation_verifier.fetch.direct import DirectFetcher
from citation_verifier.fetch.outcomes import Document, Settled
from citation_verifier.fetch.policy import PagePolicy
from citation_verifier.fetch.rules.archive import ArchiveRescue
from citation_verifier.settings import Settings
from citation_verifier.verifier import make_archive, make_fetcher
from fake_crawlbase import NORMAL_TOKEN, Canned, FakeCrawlbase, cb_settings


def _reason(loaded: Document | Settled) -> str | None:
    if isinstance(loaded, Settled):
        return loaded.reason
    return loaded.wall


async def _with_policy(settings: Settings, work: Callable[[PagePolicy], Awaitable[None]]) -> None:
    fetcher = make_fetcher(settings)  # direct, or the Crawling API when settings say so
    try:
        await work(PagePolicy(fetcher, settings))
    finally:
        await fetcher.aclose()


async def recall(site: LoopbackSite, settings: Settings) -> tuple[dict[str, list[bool]], int]:
    """Per wall reason, whether each page of the corpus got it; and the articles flagged."""
    found: dict[str, list[bool]] = {}
    flagged = 0

    async def run(policy: PagePolicy) -> None:
        nonlocal flagged
        walls = await asyncio.gather(*(policy.load(site.url(c.path)) for c in WALL_CASES))
        for case, loaded in zip(WALL_CASES, walls, strict=True):
            found.setdefault(case.reason, []).append(_reason(loaded) == case.reason)
            if _reason(loaded) != case.reason:
                print(f"  missed {case.path} ({case.name}): {_reason(loaded)}")
        articles = await asyncio.gather(*(policy.load(site.url(path)) for path in ARTICLES))
        for path, loaded in zip(ARTICLES, articles, strict=True):
            if _reason(loaded) is not None:
                flagged += 1
                print(f"  flagged {path}: {_reason(loaded)}")

    await _with_policy(settings, run)
    return found, flagged


async def step_times(settings: Settings, url: str, step: str, runs: int) -> list[float]:
    """The recorded time of ``step`` on ``runs`` loads of ``url`` (one policy per load: no
    cache, a fresh browser context each time)."""
    times: list[float] = []

    async def run(policy: PagePolicy) -> None:
        for _ in range(runs):
            loaded = await policy.load(url)
            times.extend(r.seconds for r in loaded.recoveries if r.step == step)

    await _with_policy(settings, run)
    return times


async def archive_times(settings: Settings, url: str, runs: int) -> list[float]:
    """Load time of a walled page with the archive rescue minus without it."""
    archive = make_archive(settings)
    fetcher = DirectFetcher(settings)
    plain = PagePolicy(fetcher, settings)
    rescued = PagePolicy(fetcher, settings, [ArchiveRescue(archive, "dead")])
    times = []
    try:
        for _ in range(runs):
            started = time.perf_counter()
            await plain.load(url)
            middle = time.perf_counter()
            loaded = await rescued.load(url)
            assert isinstance(loaded, Document) and loaded.archive_url, loaded
            times.append(max(0.0, (time.perf_counter() - middle) - (middle - started)))
    finally:
        await fetcher.aclose()
        await archive.aclose()
    return times


def _stats(times: list[float]) -> str:
    if not times:
        return "no runs"
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):.3f} s, p90 {p90:.3f} s (n={len(ordered)})"


async def main(runs: int) -> int:
    settings = Settings(allow_private_urls=True, fetch_timeout_s=10.0)
    consent = ConsentWalledArticle()
    routes = {**wall_routes(), "/consent-walled": consent}
    ok = True
    with LoopbackSite(routes) as site, FakeArchive() as archive, FakeCrawlbase() as crawl:
        print("Wall corpus: recall per reason (the default policy, browser steps included)")
        found, flagged = await recall(site, settings)
        total = Counter[str]()
        for reason, hits in sorted(found.items()):
            total.update({"hit": sum(hits), "all": len(hits)})
            print(f"  {reason:<15} {sum(hits)}/{len(hits)}  recall {sum(hits) / len(hits):.2f}")
            ok = ok and all(hits)
        print(f"  all walls       {total['hit']}/{total['all']}")
        print(f"Article corpus: {flagged} of {len(ARTICLES)} pages flagged as walls (target 0)")
        ok = ok and flagged == 0

        # The Crawling API as the fetcher: no origin headers, no markup, only its Markdown.
        api_only = cb_settings(crawl, allow_private_urls=True)
        print("Through the Crawling API (its Markdown only):")
        found_api, flagged_api = await recall(site, api_only)
        named = sum(sum(seen) for seen in found_api.values())
        print(f"  all walls       {named}/{sum(len(seen) for seen in found_api.values())}")
        print(f"  articles flagged {flagged_api} of {len(ARTICLES)}")
        crawl.reset()

        print(f"Time each recovery adds ({runs} runs each):")
        refuse = await step_times(settings, site.url("/consent-walled"), "refuse_consent", runs)
        print(f"  refuse consent in the browser      {_stats(refuse)}")
        browser = await step_times(settings, site.url("/cf/managed-200"), "browser", runs)
        print(f"  JavaScript challenge, browser once {_stats(browser)}")
        waits = []
        for _ in range(runs):  # each run needs a fresh 429 first
            busy = LoopbackSite({"/busy": short_retry_after(1)}).start()
            try:
                waits += await step_times(settings, busy.url("/busy"), "retry_after", 1)
            finally:
                busy.stop()
        print(f"  short Retry-After (1 s) waited     {_stats(waits)}")
        body = "# Boiling\n\n" + "Water boils at 100 degrees Celsius at sea level. " * 9
        headers = {
            "Content-Type": "text/markdown; charset=utf-8",
            "original_status": "200",
            "cb_status": "200",
            "url": site.url("/px"),
        }
        crawl.script("/px", *[Canned(200, headers, body.encode())] * runs)
        api = settings.model_copy(
            update={
                "fetcher": "direct",
                "crawlbase_token": SecretStr(NORMAL_TOKEN),
                "crawlbase_api_url": crawl.base_url,
            }
        )
        from citation_verifier.fetch.crawlbase import CrawlbaseFetcher

        crawler = CrawlbaseFetcher(api)
        fetcher = DirectFetcher(api)
        policy = PagePolicy(fetcher, api, crawler=crawler)
        api_times = []
        try:
            for _ in range(runs):
                loaded = await policy.load(site.url("/px"))
                api_times += [r.seconds for r in loaded.recoveries if r.step == "crawling_api"]
        finally:
            await fetcher.aclose()
            await crawler.aclose()
        print(f"  Crawling API (loopback fake)       {_stats(api_times)}")
        archive.add(site.url("/imperva"), "20240101000000", BOILING_HTML)
        rescue = archive_times(
            # No browser step here: the difference is the archive's alone.
            # The loopback archive may be asked about loopback pages (ARCHIVE_PRIVATE_URLS).
            settings.model_copy(
                update={
                    "archive_url": archive.base_url,
                    "archive_private_urls": True,
                    "render_js": "never",
                }
            ),
            site.url("/imperva"),
            runs,
        )
        print(f"  archived copy (loopback Wayback)   {_stats(await rescue)}")
        print(f"  consent choices the site saw: {sorted(set(consent.choices))} (never 'yes')")
        ok = ok and "yes" not in consent.choices
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each recovery")
    sys.exit(asyncio.run(main(parser.parse_args().runs)))
