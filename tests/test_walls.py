"""Pages we could not read are never judged: bot challenges, consent and login walls, paywalls,
age gates, geo blocks and rate limits end ``unreachable`` with their reason (or are rescued),
and the articles that only look like them are judged. Real loopback pages (the corpus in
citation_verifier.demo.walls), the real pipeline, Debian's Chromium for the browser steps."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from pydantic import SecretStr

from citation_verifier.audit.recorder import audit_db_url, snapshot_dir
from citation_verifier.audit.records import AuditRecord
from citation_verifier.audit.rejudge import Rejudged, rejudge
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.demo.walls import (
    ARTICLES,
    CLAIM,
    PAYWALL_STATES_CLAIM_PATH,
    WALL_CASES,
    ConsentWalledArticle,
    WallCase,
    short_retry_after,
    wall_routes,
)
from citation_verifier.fetch.browser import browser_available
from citation_verifier.fetch.direct import DirectFetcher
from citation_verifier.fetch.policy import Document, PagePolicy, Settled
from citation_verifier.fetch.walls import Seen, classify, paywall
from citation_verifier.models import (
    REASON_MEANINGS,
    WALLS,
    Label,
    Reason,
    UrlVerdict,
    VerifyRequest,
    could_not_read,
)
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier
from fake_crawlbase import NORMAL_TOKEN, Canned, FakeCrawlbase, cb_settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
WALL_IDS = [case.path for case in WALL_CASES]


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackSite]:
    with LoopbackSite(wall_routes()) as corpus:
        yield corpus


@pytest.fixture(scope="module", autouse=True)
def _chromium_installed() -> None:
    if not browser_available(Settings()):
        pytest.fail("Chromium or Playwright is missing: run `make browser install-test`")


@pytest.fixture
def settings() -> Settings:
    """Loopback allowed, the browser on (render_js auto). Generous connect timeouts: the whole
    corpus is loaded at once, more connections than the loopback server's listen backlog."""
    return Settings(allow_private_urls=True, fetch_timeout_s=10.0, connect_timeout_s=5.0)


def static(**overrides: object) -> Settings:
    """Loopback allowed, no browser: what the page itself says, quickly."""
    values: dict[str, object] = {
        "allow_private_urls": True,
        "render_js": "never",
        "fetch_timeout_s": 10.0,
        "connect_timeout_s": 5.0,
    }
    return Settings(**{**values, **overrides})  # type: ignore[arg-type]


async def load(site: LoopbackSite, path: str, settings: Settings) -> Document | Settled:
    fetcher = DirectFetcher(settings)
    try:
        return await PagePolicy(fetcher, settings).load(site.url(path))
    finally:
        await fetcher.aclose()


def verify(settings: Settings, embedder: MiniLMEmbedder, *urls: str) -> list[UrlVerdict]:
    async def go() -> list[UrlVerdict]:
        async with Verifier(settings, embedder=embedder) as verifier:
            result = await verifier.verify(VerifyRequest(claim=CLAIM, urls=list(urls)))
        return result.citations

    return asyncio.run(go())


# --- knowing what we read --------------------------------------------------------------------


@pytest.mark.parametrize("case", WALL_CASES, ids=WALL_IDS)
async def test_every_wall_of_the_corpus_is_named(site: LoopbackSite, case: WallCase) -> None:
    loaded = await load(site, case.path, static())
    if case.reason == Reason.PAYWALLED:  # judged on its readable part, marked paywalled
        assert isinstance(loaded, Document) and loaded.wall == Reason.PAYWALLED
        assert loaded.wall_detail and "isAccessibleForFree: false" in loaded.wall_detail
        return
    assert isinstance(loaded, Settled), loaded
    assert (loaded.label, loaded.reason) == (Label.UNREACHABLE, case.reason), loaded.detail
    assert loaded.detail  # the evidence, in words


@pytest.mark.parametrize("path", list(ARTICLES))
async def test_articles_that_look_like_walls_are_read_as_articles(
    site: LoopbackSite, path: str
) -> None:
    loaded = await load(site, path, static())
    assert isinstance(loaded, Document), getattr(loaded, "detail", loaded)
    assert loaded.wall is None
    assert "100 degrees Celsius" in loaded.text


def test_a_keyword_alone_is_never_a_wall() -> None:
    # The wall phrases, in a long article's text, on a page without any wall markup.
    text = " ".join(
        ["Just a moment. We value your privacy. Verify you are a human. Too many requests."]
        + ["Water boils at 100 degrees Celsius at sea level."] * 20
    )
    html = f"<html><body><article><p>{text}</p></article></body></html>"
    seen = Seen(200, {}, "https://e.com/a", "https://e.com/a", html, text)
    assert classify(seen, 300) is None and paywall(seen, 300) is None


def test_bot_manager_scripts_on_an_ordinary_short_page_are_not_a_challenge() -> None:
    # Cloudflare, HUMAN and DataDome put their sensors on every page they protect.
    text = "Opening hours: Monday to Friday, 9 to 5. Closed on public holidays."
    html = (
        '<html><head><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>'
        "<script>window._pxAppId = 'PX12345';</script>"
        '<script src="https://js.datadome.co/tags.js"></script></head>'
        f"<body><p>{text}</p></body></html>"
    )
    seen = Seen(200, {"server": "cloudflare"}, "https://e.com/a", "https://e.com/a", html, text)
    assert classify(seen, 300) is None


def test_challenge_headers_are_a_wall_whatever_the_text() -> None:
    seen = Seen(403, {"CF-Mitigated": "challenge"}, "https://e.com/", "https://e.com/", "", "")
    wall = classify(seen, 300)
    assert wall is not None and wall.reason == Reason.BOT_CHALLENGE
    assert wall.evidence == ("header cf-mitigated: challenge",)


def test_every_wall_reason_is_documented_with_what_may_help() -> None:
    for reason in WALLS:
        meaning = REASON_MEANINGS[reason]
        assert (
            "What may help" in meaning
            or "nothing we do may help" in meaning
            or ("never" in meaning)
        ), reason
        assert (could_not_read(reason) or "").startswith("could not read: ")
    assert could_not_read(Reason.HTTP_404) is None


# --- the table, through the whole pipeline ----------------------------------------------


def test_every_wall_ends_unreachable_with_its_reason(
    site: LoopbackSite, embedder: MiniLMEmbedder, settings: Settings
) -> None:
    started = time.monotonic()
    citations = verify(settings, embedder, *(site.url(case.path) for case in WALL_CASES))
    for case, citation in zip(WALL_CASES, citations, strict=True):
        assert (citation.label, citation.reason) == (Label.UNREACHABLE, case.reason), (
            case.name,
            citation.detail,
        )
        assert citation.evidence_quote is None
        assert citation.could_not_read and citation.could_not_read.startswith("could not read")
    by_path = dict(zip(WALL_IDS, citations, strict=True))
    # The 200 challenge was rendered in Chromium once, and was still the challenge.
    [step] = by_path["/cf/managed-200"].recoveries
    assert (step.step, step.wall, step.outcome) == ("browser", "bot_challenge", "bot_challenge")
    # A long Retry-After is reported, never slept through.
    assert by_path["/rate"].retry_after_s == 120
    assert by_path["/rate"].recoveries == []
    assert time.monotonic() - started < 60
    # Never log in, never answer an age gate: no recovery for them.
    assert by_path["/members/reports/boiling"].recoveries == []
    assert by_path["/members/reports/boiling"].final_url == site.url(
        "/account/login?next=%2Fmembers%2Freports%2Fboiling"
    )


def test_a_paywalled_page_whose_readable_part_states_the_claim_is_supported(
    site: LoopbackSite, embedder: MiniLMEmbedder, settings: Settings
) -> None:
    [citation] = verify(settings, embedder, site.url(PAYWALL_STATES_CLAIM_PATH))
    assert (citation.label, citation.reason) == (Label.SUPPORTED, None)
    assert citation.evidence_quote and "100 degrees Celsius" in citation.evidence_quote


def test_a_paywalled_page_that_does_not_settle_it_is_unreachable_never_not_found(
    site: LoopbackSite, embedder: MiniLMEmbedder, settings: Settings
) -> None:
    [citation] = verify(settings, embedder, site.url("/paywalled"))
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.PAYWALLED)
    assert citation.detail and "readable part does not settle the claim" in citation.detail


def test_the_article_corpus_is_judged_supported(
    site: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    citations = verify(static(), embedder, *(site.url(path) for path in ARTICLES))
    flagged = {c.url: c.reason for c in citations if c.label != Label.SUPPORTED}
    assert flagged == {}


# --- one bounded recovery -----------------------------------------------------------------------


def test_a_consent_wall_is_refused_in_the_browser_and_the_article_judged(
    serve: Serve, embedder: MiniLMEmbedder, settings: Settings
) -> None:
    walled = ConsentWalledArticle()
    site = serve({"/news/boiling": walled})
    [citation] = verify(settings, embedder, site.url("/news/boiling"))
    assert (citation.label, citation.reason) == (Label.SUPPORTED, None), citation.detail
    [step] = citation.recoveries
    assert (step.step, step.wall, step.outcome) == ("refuse_consent", "consent_wall", "read")
    assert citation.rendered
    assert walled.choices and set(walled.choices) == {"no"}  # refused, never accepted


def test_a_consent_wall_without_a_browser_stays_a_consent_wall(
    serve: Serve, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/news/boiling": ConsentWalledArticle()})
    [citation] = verify(static(), embedder, site.url("/news/boiling"))
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.CONSENT_WALL)
    assert citation.recoveries == []


def test_a_short_retry_after_is_waited_once_and_the_page_read(
    serve: Serve, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/busy": short_retry_after(1)})
    [citation] = verify(static(), embedder, site.url("/busy"))
    assert (citation.label, citation.reason) == (Label.SUPPORTED, None)
    [step] = citation.recoveries
    assert (step.step, step.wall, step.outcome) == ("retry_after", "rate_limited", "read")
    assert 0.9 <= step.seconds < 3
    assert site.hits["/busy"] == 2


def test_a_bot_wall_goes_to_the_crawling_api_when_a_token_is_set(
    site: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    with FakeCrawlbase() as fake:
        fake.script(
            "/px",
            Canned(
                200,
                {
                    "Content-Type": "text/markdown; charset=utf-8",
                    "original_status": "200",
                    "cb_status": "200",
                    "url": site.url("/px"),
                },
                (
                    "# Boiling\n\n" + "Water boils at 100 degrees Celsius at sea level. " * 8
                ).encode(),
            ),
        )
        settings = static(
            fetcher="direct",
            crawlbase_token=SecretStr(NORMAL_TOKEN),
            crawlbase_api_url=fake.base_url,
        )
        [citation] = verify(settings, embedder, site.url("/px"))
    assert (citation.label, citation.reason) == (Label.SUPPORTED, None)
    [step] = citation.recoveries
    assert (step.step, step.wall, step.outcome) == ("crawling_api", "bot_challenge", "read")
    [attempt] = citation.attempts  # the paid request is accounted like any other
    assert attempt.credits > 0 and citation.credits == attempt.credits


def test_a_bot_wall_is_rescued_from_the_archive_with_live_reason_naming_the_wall(
    site: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    with FakeArchive() as archive:
        archive.add(site.url("/imperva"), "20240101000000", BOILING_HTML)
        archive.add(site.url("/members/reports/boiling"), "20240101000000", BOILING_HTML)
        settings = static(
            archive_url=archive.base_url, archive_fallback="dead", archive_private_urls=True
        )
        rescued, login = verify(
            settings, embedder, site.url("/imperva"), site.url("/members/reports/boiling")
        )
        lookups = len(archive.requests)
    assert (rescued.label, rescued.reason, rescued.live_reason) == (
        Label.SUPPORTED,
        Reason.ARCHIVED_COPY,
        Reason.BOT_CHALLENGE,
    )
    # A login wall is the publisher's: never read from the archive instead.
    assert (login.label, login.reason, login.archive_url) == (
        Label.UNREACHABLE,
        Reason.LOGIN_REQUIRED,
        None,
    )
    assert lookups == 2  # the rescue's availability lookup and capture, nothing for the login


def test_recovery_can_be_switched_off(
    site: LoopbackSite, serve: Serve, embedder: MiniLMEmbedder
) -> None:
    busy = serve({"/busy": short_retry_after(1)})
    [citation] = verify(static(wall_recovery=False), embedder, busy.url("/busy"))
    assert (citation.label, citation.reason, citation.recoveries) == (
        Label.UNREACHABLE,
        Reason.RATE_LIMITED,
        [],
    )
    assert citation.retry_after_s == 1


def test_a_bare_error_page_is_not_a_wall(serve: Serve, embedder: MiniLMEmbedder) -> None:
    site = serve({"/down": Page("<html><body>oops</body></html>", status=503)})
    [citation] = verify(static(), embedder, site.url("/down"))
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, "http_503")
    assert citation.could_not_read is None


def test_every_recovery_step_is_in_the_audit_record(
    serve: Serve, embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    site = serve({"/busy": short_retry_after(1), "/geo": wall_routes()["/geo"]})
    audited = static(audit_enabled=True, cache_dir=tmp_path)

    async def go() -> list[AuditRecord]:
        async with build_verifier(audited, embedder=embedder) as verifier:
            request = VerifyRequest(claim=CLAIM, urls=[site.url("/busy"), site.url("/geo")])
            result = await verifier.verify(request)
        store = SqlAuditStore(audit_db_url(audited))
        try:
            records = [store.get(c.audit_id or "") for c in result.citations]
        finally:
            store.close()
        assert all(records)
        return [r for r in records if r is not None]

    busy, geo = asyncio.run(go())
    [step] = busy.extra["recoveries"]
    assert (step["step"], step["wall"], step["outcome"]) == ("retry_after", "rate_limited", "read")
    assert (geo.label, geo.reason) == (Label.UNREACHABLE, Reason.GEO_BLOCKED)
    assert geo.detail and "not available in your country" in geo.detail
    assert geo.extra["could_not_read"] == could_not_read(Reason.GEO_BLOCKED)


def test_a_paywalled_verdict_is_rejudged_the_same_from_its_audit_record(
    site: LoopbackSite, embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    audited = static(audit_enabled=True, cache_dir=tmp_path)

    async def go() -> Rejudged:
        async with build_verifier(audited, embedder=embedder) as verifier:
            request = VerifyRequest(claim=CLAIM, urls=[site.url("/paywalled")])
            [citation] = (await verifier.verify(request)).citations
            assert citation.reason == Reason.PAYWALLED and citation.audit_id
            store = SqlAuditStore(audit_db_url(audited))
            record = store.get(citation.audit_id)
            store.close()
            assert record is not None and record.snapshot_id is not None
            return await rejudge(record, verifier, SnapshotStore(snapshot_dir(audited)))

    again = asyncio.run(go())
    assert again.reproduced
    assert again.record.reason == Reason.PAYWALLED


def test_walls_are_named_through_the_crawling_api_from_its_markdown(
    site: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    # The API passes on neither the origin's headers nor (format=md) its markup: the status and
    # the wall's own words must do. Imperva's iframe page and AWS WAF's script page have no
    # words: their Markdown is empty and the citation ends empty_page (not_found), the two walls
    # of the corpus this backend cannot see.
    cases = [case for case in WALL_CASES if case.path not in ("/imperva", "/aws-waf")]
    with FakeCrawlbase() as fake:
        settings = cb_settings(fake, allow_private_urls=True, archive_fallback="never")
        citations = verify(settings, embedder, *(site.url(c.path) for c in cases))
        articles = verify(settings, embedder, *(site.url(path) for path in ARTICLES))
    for case, citation in zip(cases, citations, strict=True):
        assert (citation.label, citation.reason) == (Label.UNREACHABLE, case.reason), (
            case.name,
            citation.detail,
        )
    assert {c.url: c.reason for c in articles if c.label != Label.SUPPORTED} == {}


def test_a_paywalled_page_that_does_not_settle_it_is_never_marked_for_review(
    site: LoopbackSite, embedder: MiniLMEmbedder, settings: Settings
) -> None:
    # Every verdict is under REVIEW_BELOW 1.0; a page not read is no verdict to review.
    marking = settings.model_copy(update={"review_below": 1.0})
    [citation] = verify(marking, embedder, site.url("/paywalled"))
    assert citation.label == Label.UNREACHABLE
    assert (citation.needs_review, citation.review_reason) == (False, None)
    [read] = verify(marking, embedder, site.url(PAYWALL_STATES_CLAIM_PATH))
    assert read.label == Label.SUPPORTED and read.needs_review
    assert read.review_reason and read.review_reason.startswith("page only partly read")
