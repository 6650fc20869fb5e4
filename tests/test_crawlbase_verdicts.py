"""The SPEC §3 decision sequence on the Crawlbase backend, end to end: real policy, real
extraction, real MiniLM and local judge, against the loopback fake API and origin site.

Every branch states its verdict, reason, which attempt's rid the verdict keeps, and its
credits, for both ``CRAWLBASE_FORMAT=md`` (default) and ``html``; the fake's own bill must
agree with ours.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.models import Attempt, Label, UrlVerdict
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.verifier import Verifier
from fake_crawlbase import (
    JS_TOKEN,
    NORMAL_TOKEN,
    Canned,
    FakeCrawlbase,
    cb_settings,
    origin_site,
)

BOIL = "Water boils at 100 degrees Celsius at sea level."
EVEREST = "Mount Everest is 8,849 metres tall."
PACIFIC = "The Pacific Ocean is the largest and deepest ocean on Earth."


@pytest.fixture(scope="module")
def origin() -> Iterator[LoopbackSite]:
    with origin_site() as site:
        yield site


@pytest.fixture(scope="module")
def api() -> Iterator[FakeCrawlbase]:
    with FakeCrawlbase() as server:
        yield server


@pytest.fixture
def fake(api: FakeCrawlbase) -> FakeCrawlbase:
    """The module's fake API, with a clean slate for each test."""
    return api.reset()


@dataclass(frozen=True)
class Branch:
    """One branch of the decision sequence and what SPEC §3 implies for it."""

    path: str
    claim: str
    label: Label
    reason: str | None
    md: tuple[float, int]
    """(credits, number of API requests) in md mode."""
    html: tuple[float, int]
    script: tuple[Canned, ...] = ()
    js: bool = True
    js_on_normal: bool = False
    rid_from: int | None = -1
    """Index of the attempt whose rid the verdict keeps; None: no rid."""
    html_reason: str | None = None
    """The reason in html mode when it differs: the raw HTML shows what md mode cannot."""
    html_label: Label | None = None
    """The label in html mode when it differs (a JavaScript shell was never read)."""


def _failed_cb(cb: int) -> Canned:
    return Canned(200, {"cb_status": str(cb), "original_status": "200"})


BRANCHES: dict[str, Branch] = {
    "readable": Branch("/articles/boiling", BOIL, Label.SUPPORTED, None, (1.5, 1), (1.5, 1)),
    "thin_readability_then_full_page": Branch(
        "/articles/oceans", PACIFIC, Label.SUPPORTED, None, (3.0, 2), (1.5, 1)
    ),
    "still_empty_then_javascript": Branch(
        "/app/everest", EVEREST, Label.SUPPORTED, None, (5.5, 3), (4.0, 2)
    ),
    "still_thin_after_javascript": Branch(
        "/notes/thin", BOIL, Label.NOT_FOUND, None, (8.0, 4), (4.0, 2)
    ),
    "http_520_then_javascript": Branch(
        "/articles/boiling", BOIL, Label.SUPPORTED, None, (2.5, 2), (2.5, 2), (Canned(520),)
    ),
    "cb_520_then_javascript": Branch(
        "/articles/boiling", BOIL, Label.SUPPORTED, None, (2.5, 2), (2.5, 2), (_failed_cb(520),)
    ),
    "cb_525_then_javascript": Branch(
        "/articles/boiling", BOIL, Label.SUPPORTED, None, (2.5, 2), (2.5, 2), (_failed_cb(525),)
    ),
    "http_520_javascript_on_normal_token": Branch(
        "/articles/boiling",
        BOIL,
        Label.SUPPORTED,
        None,
        (2.5, 2),
        (2.5, 2),
        (Canned(520),),
        js=False,
        js_on_normal=True,
    ),
    "http_520_without_javascript": Branch(
        "/articles/boiling",
        BOIL,
        Label.UNREACHABLE,
        "crawl_failed",
        (0.0, 1),
        (0.0, 1),
        (Canned(520),),
        js=False,
        rid_from=None,
    ),
    "http_520_twice": Branch(
        "/articles/boiling",
        BOIL,
        Label.UNREACHABLE,
        "crawl_failed",
        (0.0, 2),
        (0.0, 2),
        (Canned(520), Canned(520)),
        rid_from=None,
    ),
    "empty_without_javascript": Branch(
        "/app/everest",
        EVEREST,
        Label.NOT_FOUND,
        "empty_page",
        (3.0, 2),
        (1.5, 1),
        js=False,
        html_reason="js_required",  # the HTML loads scripts: a JS shell nothing could render
        html_label=Label.UNREACHABLE,
    ),
    "dead_link_404": Branch("/gone", BOIL, Label.UNREACHABLE, "http_404", (1.5, 1), (1.5, 1)),
    "dead_link_410": Branch("/removed", BOIL, Label.UNREACHABLE, "http_410", (1.5, 1), (1.5, 1)),
    "origin_503": Branch(
        "/error", BOIL, Label.UNREACHABLE, "http_503", (0.0, 1), (0.0, 1), rid_from=None
    ),
    "homepage_redirect": Branch(
        "/old/report", BOIL, Label.NOT_FOUND, "redirected_to_homepage", (1.5, 1), (1.5, 1)
    ),
    "redirect_to_article": Branch(
        "/moved/boiling", BOIL, Label.SUPPORTED, None, (1.5, 1), (1.5, 1)
    ),
    "soft_404": Branch("/missing", BOIL, Label.UNREACHABLE, "soft_404", (3.0, 2), (1.5, 1)),
    "pdf": Branch("/report.pdf", EVEREST, Label.SUPPORTED, None, (1.5, 1), (1.5, 1)),
    "api_429_then_ok": Branch(
        "/articles/boiling",
        BOIL,
        Label.SUPPORTED,
        None,
        (1.5, 2),
        (1.5, 2),
        (Canned(429, {"Retry-After": "0.05"}),),
    ),
    "api_500_then_ok": Branch(
        "/articles/boiling", BOIL, Label.SUPPORTED, None, (1.5, 2), (1.5, 2), (Canned(500),)
    ),
    "api_500_exhausted_no_javascript": Branch(
        "/articles/boiling",
        BOIL,
        Label.UNREACHABLE,
        "crawl_failed",
        (0.0, 3),
        (0.0, 3),
        (Canned(500), Canned(500), Canned(500)),
        rid_from=None,
    ),
    "api_timeout": Branch(
        "/articles/boiling",
        BOIL,
        Label.UNREACHABLE,
        "timeout",
        (0.0, 3),
        (0.0, 3),
        (Canned(520, {}, b"", 1.0),) * 3,  # answered too late: the client gave up
        rid_from=None,
    ),
}


async def _verify(
    fake: FakeCrawlbase,
    origin: LoopbackSite,
    embedder: MiniLMEmbedder,
    branch: Branch,
    fmt: str,
) -> UrlVerdict:
    fake.script(branch.path, *branch.script)
    settings = cb_settings(
        fake,
        js=branch.js,
        crawlbase_js_on_normal_token=branch.js_on_normal,
        crawlbase_format=fmt,
        crawlbase_max_retries=2,
        crawlbase_timeout_s=0.5 if branch.path and branch.reason == "timeout" else 5.0,
    )
    async with Verifier(settings, embedder=embedder) as verifier:
        return await verifier.verify_url(branch.claim, origin.url(branch.path))


@pytest.mark.parametrize("fmt", ["md", "html"])
@pytest.mark.parametrize("name", list(BRANCHES))
async def test_decision_sequence_branch(
    name: str, fmt: str, fake: FakeCrawlbase, origin: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    branch = BRANCHES[name]
    credits, requests = branch.md if fmt == "md" else branch.html
    verdict = await _verify(fake, origin, embedder, branch, fmt)
    reason = branch.html_reason if fmt == "html" and branch.html_reason else branch.reason
    label = branch.html_label if fmt == "html" and branch.html_label else branch.label
    assert (verdict.label, verdict.reason) == (label, reason), verdict.detail
    assert len(verdict.attempts) == requests == len(fake.crawl_calls())
    assert verdict.credits == credits == fake.charged
    assert verdict.credits == sum(a.credits for a in verdict.attempts)
    expected_rid = None if branch.rid_from is None else verdict.attempts[branch.rid_from].rid
    assert verdict.rid == expected_rid
    if branch.rid_from is not None:
        assert verdict.rid is not None and verdict.rid in fake.stored
    for attempt, call in zip(verdict.attempts, fake.crawl_calls(), strict=True):
        assert call.params == _expected_params(origin.url(branch.path), fmt, attempt)


def _expected_params(url: str, fmt: str, attempt: Attempt) -> dict[str, str]:
    """The exact query the documented API expects for ``attempt``."""
    params = {
        "token": JS_TOKEN if attempt.token == "js" else NORMAL_TOKEN,
        "url": url,
        "format": fmt,
    }
    if fmt == "md":
        params["md_readability"] = "true" if attempt.readability else "false"
    params["store"] = "true"
    if attempt.javascript and attempt.token == "normal":
        params["javascript"] = "true"
    return params


async def test_javascript_escalation_reruns_the_no_readability_retry_rendered(
    fake: FakeCrawlbase, origin: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    verdict = await _verify(fake, origin, embedder, BRANCHES["still_thin_after_javascript"], "md")
    calls = fake.crawl_calls()
    assert [(c.kind, c.params["md_readability"]) for c in calls] == [
        ("normal", "true"),
        ("normal", "false"),
        ("js", "true"),
        ("js", "false"),
    ]
    assert [a.credits for a in verdict.attempts] == [1.5, 1.5, 2.5, 2.5]


async def test_failed_no_readability_retry_escalates_to_javascript(
    fake: FakeCrawlbase, origin: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    thin = Canned(
        200,
        {"cb_status": "200", "original_status": "200", "url": origin.url("/app/everest")},
        b"# Everest",
    )
    branch = Branch(
        "/app/everest", EVEREST, Label.SUPPORTED, None, (3.5, 3), (0, 0), (thin, Canned(520))
    )
    verdict = await _verify(fake, origin, embedder, branch, "md")
    assert verdict.credits == fake.charged == 3.5  # 1 (thin, unstored) + 0 (520) + 2.5 (JS)
    assert verdict.label == Label.SUPPORTED
    assert [a.http_status for a in verdict.attempts] == [200, 520, 200]
    assert verdict.rid == verdict.attempts[-1].rid


async def test_percent_encoded_url_header_is_decoded_for_the_homepage_rule(
    fake: FakeCrawlbase, origin: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    encoded_home = origin.url("/").replace(":", "%3A").replace("/", "%2F")
    canned = Canned(
        200,
        {"cb_status": "200", "original_status": "200", "url": encoded_home, "rid": "r1"},
        b"# Home\n\nWelcome to the site. " + b"Browse our articles. " * 20,
    )
    branch = Branch("/deep/link", BOIL, Label.NOT_FOUND, "redirected_to_homepage", (0, 0), (0, 0))
    fake.script("/deep/link", canned)
    verdict = await _verify(fake, origin, embedder, branch, "md")
    assert (verdict.label, verdict.reason) == (Label.NOT_FOUND, "redirected_to_homepage")
    assert verdict.final_url == origin.url("/")
    assert (verdict.rid, verdict.credits) == ("r1", 1.5)


async def test_verify_totals_credits_over_citations(
    fake: FakeCrawlbase, origin: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    from citation_verifier.models import VerifyRequest

    urls = [origin.url("/articles/boiling"), origin.url("/gone"), origin.url("/articles/oceans")]
    async with Verifier(cb_settings(fake), embedder=embedder) as verifier:
        result = await verifier.verify(VerifyRequest(claim=BOIL, urls=urls))
    assert result.credits == 6.0 == fake.charged
    assert [c.credits for c in result.citations] == [1.5, 1.5, 3.0]
    assert result.overall == Label.SUPPORTED
    dumped = result.model_dump_json()
    for secret in (NORMAL_TOKEN, JS_TOKEN, "storage_url"):
        assert secret not in dumped


async def test_page_reused_from_cache_is_not_billed_twice(
    origin: LoopbackSite, fake: FakeCrawlbase, embedder: MiniLMEmbedder
) -> None:
    """With the service's page cache, only the citation that loaded the page reports credits."""
    from citation_verifier.reuse.pages import PageCache

    url = origin.url("/articles/boiling")
    async with Verifier(
        cb_settings(fake), embedder=embedder, page_cache=PageCache(ttl_s=60)
    ) as verifier:
        first = await verifier.verify_url(BOIL, url)
        second = await verifier.verify_url("Water boils at 50 degrees Celsius at sea level.", url)
    assert (first.credits, len(first.attempts)) == (1.5, 1)
    assert (second.credits, second.attempts) == (0.0, [])
    assert second.label == Label.CONTRADICTED
    assert second.rid == first.rid


async def test_a_dead_page_is_rescued_from_the_archive_without_paying_crawlbase_for_it(
    origin: LoopbackSite, fake: FakeCrawlbase, embedder: MiniLMEmbedder
) -> None:
    """The Crawlbase backend's unreachable outcomes go through the same archive rule; the
    capture is fetched directly, so the bill is the one crawl of the dead page."""
    from citation_verifier.demo.archive import FakeArchive
    from citation_verifier.demo.site import BOILING_HTML

    url = origin.url("/removed")
    with FakeArchive() as archive:
        archive.add(url, "20210215120000", BOILING_HTML)
        settings = cb_settings(
            fake,
            archive_url=archive.base_url,
            archive_fallback="dead",
            allow_private_urls=True,
            archive_private_urls=True,
        )
        async with Verifier(settings, embedder=embedder) as verifier:
            verdict = await verifier.verify_url(BOIL, url)
        assert len(archive.requests) == 2
    assert (verdict.label, verdict.reason, verdict.live_reason) == (
        Label.SUPPORTED,
        "archived_copy",
        "http_410",
    )
    assert len(fake.crawl_calls()) == 1
    assert verdict.credits == fake.charged
