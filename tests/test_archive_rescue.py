"""Dead and changed pages judged on their archived copy: the real verifier, loopback pages, and
a loopback Wayback Machine that speaks the real wire format (citation_verifier.demo.archive)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from citation_verifier.audit.recorder import audit_db_url, snapshot_dir
from citation_verifier.audit.rejudge import Rejudged, rejudge
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite, Page, Route, redirect
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.models import Label, Reason, UrlVerdict, VerifyRequest, VerifyResult
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from test_cli import run

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
WATER_100 = "Water boils at 100 degrees Celsius at sea level."
CITED_AT = datetime(2021, 3, 1, tzinfo=UTC)
NINETY_HTML = BOILING_HTML.replace("100 degrees", "90 degrees")
HOME_HTML = "<html><body><h1>Welcome</h1><p>Our homepage.</p></body></html>"


@pytest.fixture
def archive() -> Iterator[FakeArchive]:
    with FakeArchive() as fake:
        yield fake


@pytest.fixture
def site(serve: Serve) -> LoopbackSite:
    return serve(
        {
            "/gone": Page("<html><body>Not Found</body></html>", status=404),
            "/removed": Page("<html><body>Gone</body></html>", status=410),
            "/moved": redirect("/"),
            "/": Page(HOME_HTML),
            "/now": Page(NINETY_HTML),
            "/empty": Page("<html><body></body></html>"),
        }
    )


def verify(
    settings: Settings,
    embedder: MiniLMEmbedder,
    archive: FakeArchive,
    *urls: str,
    overrides: Mapping[str, object] | None = None,
    **request: object,
) -> VerifyResult:
    settings = settings.model_copy(
        update={
            "archive_url": archive.base_url,
            "archive_fallback": "dead",
            # the cited pages and the archive are both on loopback: nothing leaves the machine
            "archive_private_urls": True,
            **(overrides or {}),
        }
    )

    async def go() -> VerifyResult:
        async with build_verifier(settings, embedder=embedder) as verifier:
            return await verifier.verify(VerifyRequest(claim=WATER_100, urls=list(urls), **request))

    return asyncio.run(go())


def only(result: VerifyResult) -> UrlVerdict:
    [citation] = result.citations
    return citation


def test_a_dead_page_is_judged_on_its_capture(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/gone"), "20210215120000", BOILING_HTML)
    citation = only(verify(settings, embedder, archive, site.url("/gone"), cited_at=CITED_AT))
    assert (citation.label, citation.reason, citation.live_reason) == (
        Label.SUPPORTED,
        Reason.ARCHIVED_COPY,
        "http_404",
    )
    assert citation.archive_url == f"{archive.base_url}/web/20210215120000/{site.url('/gone')}"
    assert citation.archived_at == datetime(2021, 2, 15, 12, tzinfo=UTC)
    assert citation.evidence_quote and "100 degrees" in citation.evidence_quote
    assert citation.final_url and "20210215120000id_/" in citation.final_url
    # One availability lookup and one raw capture: two requests for a rescue.
    assert len(archive.requests) == 2
    assert "timestamp=20210301" in archive.requests[0]


def test_a_dead_page_with_nothing_archived_stays_unreachable(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    citation = only(verify(settings, embedder, archive, site.url("/removed")))
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, "http_410")
    assert citation.archive_lookup == "the archive holds no capture of this URL"
    assert citation.archive_url is None


def test_a_homepage_redirect_is_rescued(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/moved"), "20200101000000", BOILING_HTML)
    citation = only(verify(settings, embedder, archive, site.url("/moved")))
    assert (citation.label, citation.reason, citation.live_reason) == (
        Label.SUPPORTED,
        Reason.ARCHIVED_COPY,
        Reason.REDIRECTED_TO_HOMEPAGE,
    )


def test_an_archive_that_is_down_leaves_the_live_verdict(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/gone"), "20210215120000", BOILING_HTML)
    archive.fail_next(503, times=50)
    citation = only(
        verify(
            settings,
            embedder,
            archive,
            site.url("/gone"),
            overrides={"archive_budget_s": 2.0, "archive_max_requests": 2},
        )
    )
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, "http_404")
    assert citation.archive_lookup and "archive could not be asked" in citation.archive_lookup


def test_a_capture_that_is_an_error_page_is_not_used(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/gone"), "20210215120000", "<html><body>Not Found</body></html>", 404)
    citation = only(verify(settings, embedder, archive, site.url("/gone")))
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, "http_404")
    assert citation.archive_lookup and "error page" in citation.archive_lookup


def test_a_page_changed_since_it_was_cited_is_flagged(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/now"), "20210220000000", BOILING_HTML)  # said 100 °C back then
    citation = only(
        verify(
            settings, embedder, archive, site.url("/now"), cited_at=CITED_AT, compare_archive=True
        )
    )
    assert citation.label == Label.CONTRADICTED  # the live page now says 90 °C
    assert citation.reason is None and citation.archive_url is None
    assert citation.changed_since_cited is True
    assert citation.archived_verdict is not None
    assert citation.archived_verdict.label == Label.SUPPORTED
    assert citation.archived_verdict.archived_at == datetime(2021, 2, 20, tzinfo=UTC)
    assert "100 degrees" in (citation.archived_verdict.evidence_quote or "")


def test_a_page_that_did_not_change_is_not_flagged(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/now"), "20210220000000", NINETY_HTML)
    citation = only(
        verify(
            settings, embedder, archive, site.url("/now"), cited_at=CITED_AT, compare_archive=True
        )
    )
    assert citation.changed_since_cited is False


def test_fallback_never_makes_no_lookup_and_always_rescues_empty_pages(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/empty"), "20210215120000", BOILING_HTML)
    never = only(
        verify(
            settings, embedder, archive, site.url("/gone"), overrides={"archive_fallback": "never"}
        )
    )
    assert never.reason == "http_404" and archive.requests == []
    dead = only(verify(settings, embedder, archive, site.url("/empty")))
    assert dead.reason == Reason.EMPTY_PAGE and archive.requests == []
    always = only(
        verify(
            settings,
            embedder,
            archive,
            site.url("/empty"),
            overrides={"archive_fallback": "always"},
        )
    )
    assert (always.reason, always.live_reason) == (Reason.ARCHIVED_COPY, Reason.EMPTY_PAGE)


def test_a_refused_address_is_never_looked_up(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    citation = only(
        verify(
            settings, embedder, archive, site.url("/gone"), overrides={"allow_private_urls": False}
        )
    )
    assert citation.reason == Reason.FORBIDDEN_ADDRESS
    assert archive.requests == []


def test_a_second_lookup_of_the_same_day_is_cached(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/gone"), "20210215120000", BOILING_HTML)
    result = verify(
        settings,
        embedder,
        archive,
        site.url("/gone"),
        site.url("/gone") + "?again",
        cited_at=CITED_AT,
    )
    assert [c.reason for c in result.citations] == ["archived_copy", "http_404"]
    lookups = [r for r in archive.requests if r.startswith("/wayback/available")]
    assert len(lookups) == 2  # two different URLs; each looked up once


def test_verify_cli_reports_the_archived_copy_and_the_change(
    site: LoopbackSite, archive: FakeArchive
) -> None:
    archive.add(site.url("/gone"), "20210215120000", BOILING_HTML)
    archive.add(site.url("/now"), "20210220000000", BOILING_HTML)
    done = run(
        "verify", WATER_100, site.url("/gone"), site.url("/now"),
        "--cited-at", "2021-03-01", "--compare-archive",
        ARCHIVE_URL=archive.base_url, ARCHIVE_FALLBACK="dead", ARCHIVE_PRIVATE_URLS="true",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"Archived copy: {site.url('/gone')} was http_404 live; judged on the capture of " \
        "2021-02-15 12:00 UTC" in done.stderr  # fmt: skip
    assert f"Changed since cited: {site.url('/now')} is contradicted now and was supported in " \
        "the capture of 2021-02-20" in done.stderr  # fmt: skip
    needs_date = run("verify", WATER_100, site.url("/now"), "--compare-archive")
    assert needs_date.returncode == 2
    assert "--compare-archive needs --cited-at DATE" in needs_date.stderr


def test_check_answer_rescues_a_dead_citation(site: LoopbackSite, archive: FakeArchive) -> None:
    archive.add(site.url("/gone"), "20210215120000", BOILING_HTML)
    body = {"answer": f"{WATER_100[:-1]} [1].", "citations": [site.url("/gone")],
            "cited_at": "2021-03-01"}  # fmt: skip
    done = run(
        "check-answer", "--json", "-", input=json.dumps(body),
        ARCHIVE_URL=archive.base_url, ARCHIVE_FALLBACK="dead", ARCHIVE_PRIVATE_URLS="true",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [statement] = json.loads(done.stdout)["statements"]
    assert statement["overall"] == "supported"
    assert statement["citations"][0]["reason"] == "archived_copy"


def test_the_service_answers_200_when_the_archive_is_down_and_counts_lookups(
    site: LoopbackSite, archive: FakeArchive, embedder: MiniLMEmbedder
) -> None:
    archive.fail_next(503, times=100)
    settings = Settings(
        allow_private_urls=True,
        archive_url=archive.base_url,
        archive_fallback="dead",
        archive_private_urls=True,
        archive_budget_s=1.0,
        archive_max_requests=2,
    )
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        response = httpx.post(
            service.url + "/verify",
            json={"claim": WATER_100, "urls": [site.url("/gone")]},
            timeout=30,
        )
        metrics = httpx.get(service.url + "/metrics").text
    assert response.status_code == 200
    [citation] = response.json()["citations"]
    assert (citation["label"], citation["reason"]) == ("unreachable", "http_404")
    assert "archive could not be asked" in citation["archive_lookup"]
    assert 'cv_archive_lookups_total{outcome="failure"} 1.0' in metrics
    assert "cv_archive_requests_total 2.0" in metrics


def test_a_rescued_verdict_is_audited_with_its_capture_and_rejudged_the_same(
    site: LoopbackSite,
    archive: FakeArchive,
    settings: Settings,
    embedder: MiniLMEmbedder,
    tmp_path: Path,
) -> None:
    archive.add(site.url("/gone"), "20210215120000", BOILING_HTML)
    audited = settings.model_copy(
        update={
            "audit_enabled": True,
            "cache_dir": tmp_path,
            "archive_url": archive.base_url,
            "archive_fallback": "dead",
            "archive_private_urls": True,
        }
    )

    async def go() -> tuple[UrlVerdict, Rejudged]:
        async with build_verifier(audited, embedder=embedder) as verifier:
            result = await verifier.verify(VerifyRequest(claim=WATER_100, urls=[site.url("/gone")]))
            [citation] = result.citations
            assert citation.audit_id is not None
            store = SqlAuditStore(audit_db_url(audited))
            record = store.get(citation.audit_id)
            store.close()
            assert record is not None
            return citation, await rejudge(record, verifier, SnapshotStore(snapshot_dir(audited)))

    citation, again = asyncio.run(go())
    record = again.record
    assert record.reason == Reason.ARCHIVED_COPY and record.snapshot_id is not None
    assert record.extra["archive_url"] == citation.archive_url
    assert "100 degrees" in SnapshotStore(snapshot_dir(audited)).get_text(record.snapshot_id)
    assert again.reproduced


def test_a_live_page_nothing_here_could_render_is_not_dead_for_the_archive() -> None:
    from citation_verifier.fetch.outcomes import Settled
    from citation_verifier.fetch.rules.archive import rescues

    shell = Settled("https://x.example/app", Label.UNREACHABLE, Reason.JS_REQUIRED, "no browser")
    gone = Settled("https://x.example/old", Label.UNREACHABLE, "http_404", "404")
    assert not rescues("dead", shell) and rescues("always", shell)
    assert rescues("dead", gone)
