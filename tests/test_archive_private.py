"""A dead page at a non-public address (loopback, private, link-local, ``localhost``, a name
resolving to one) is never looked up on the archive, whatever ALLOW_PRIVATE_URLS says: the
lookup would send an internal URL to a third party. The verdict says the archive was not asked
and why; ARCHIVE_PRIVATE_URLS=true allows it for an archive one runs oneself (issue #48 item 7).
Real loopback pages, the loopback Wayback Machine, the real CLI and verifier."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Mapping

import pytest

from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.models import Label, Reason, UrlVerdict, VerifyRequest
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from fake_crawlbase import Canned, FakeCrawlbase, cb_settings
from test_cli import run

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
WATER_100 = "Water boils at 100 degrees Celsius at sea level."
CAPTURED = "20210215120000"
NOT_ASKED = "the archive was not asked: "


@pytest.fixture
def archive() -> Iterator[FakeArchive]:
    with FakeArchive() as fake:
        yield fake


@pytest.fixture
def site(serve: Serve) -> LoopbackSite:
    return serve(
        {
            "/missing.html": Page("<html><body>Not Found</body></html>", status=404),
            "/now": Page(BOILING_HTML.replace("100 degrees", "90 degrees")),
        }
    )


def verify(
    settings: Settings, embedder: MiniLMEmbedder, *urls: str, **request: object
) -> list[UrlVerdict]:
    async def go() -> list[UrlVerdict]:
        async with build_verifier(settings, embedder=embedder) as verifier:
            result = await verifier.verify(
                VerifyRequest(claim=WATER_100, urls=list(urls), **request)
            )
        return result.citations

    return asyncio.run(go())


def test_the_readmes_dead_loopback_link_is_never_sent_to_the_archive(
    site: LoopbackSite, archive: FakeArchive
) -> None:
    # README's own flow: ALLOW_PRIVATE_URLS=true and a dead http://127.0.0.1:PORT/missing.html.
    # The archive holds a capture of it, so a lookup, had one been made, would have rescued it.
    url = site.url("/missing.html")
    archive.add(url, CAPTURED, BOILING_HTML)
    done = run(
        "verify", "--json", WATER_100, url,
        ALLOW_PRIVATE_URLS="true", ARCHIVE_URL=archive.base_url, ARCHIVE_FALLBACK="dead",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [citation] = json.loads(done.stdout)["citations"]
    assert (citation["label"], citation["reason"], citation["archive_url"]) == (
        "unreachable",
        "http_404",
        None,
    )
    assert citation["archive_lookup"].startswith(NOT_ASKED + "127.0.0.1 is a loopback address")
    assert "ARCHIVE_PRIVATE_URLS" in citation["archive_lookup"]
    assert archive.requests == []  # nothing reached the archive
    shown = run(
        "verify", WATER_100, url,
        ALLOW_PRIVATE_URLS="true", ARCHIVE_URL=archive.base_url, ARCHIVE_FALLBACK="dead",
    )  # fmt: skip
    assert f"Archive: {url}: {NOT_ASKED}127.0.0.1 is a loopback address" in shown.stderr
    assert archive.requests == []


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("localhost", "localhost is a local name"),
        # A name, not a literal, that resolves to loopback (inet_aton's forms: no DNS query).
        ("2130706433", "2130706433 resolves to a loopback address (127.0.0.1)"),
        ("127.1", "127.1 resolves to a loopback address (127.0.0.1)"),
    ],
)
def test_a_dead_page_at_a_local_name_is_never_sent_to_the_archive(
    site: LoopbackSite,
    archive: FakeArchive,
    settings: Settings,
    embedder: MiniLMEmbedder,
    host: str,
    why: str,
) -> None:
    url = site.url("/missing.html").replace("127.0.0.1", host)
    archive.add(url, CAPTURED, BOILING_HTML)
    dead = settings.model_copy(update={"archive_url": archive.base_url, "archive_fallback": "dead"})
    [citation] = verify(dead, embedder, url)
    assert (citation.label, citation.reason, citation.archive_url) == (
        Label.UNREACHABLE,
        "http_404",
        None,
    ), citation.detail
    assert citation.archive_lookup and citation.archive_lookup.startswith(NOT_ASKED + why)
    assert archive.requests == []


def test_a_live_loopback_page_is_not_compared_with_the_archive(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    archive.add(site.url("/now"), CAPTURED, BOILING_HTML)
    compare = settings.model_copy(
        update={"archive_url": archive.base_url, "archive_fallback": "dead"}
    )
    [citation] = verify(
        compare, embedder, site.url("/now"), cited_at="2021-03-01", compare_archive=True
    )
    assert citation.label == Label.CONTRADICTED
    assert (citation.changed_since_cited, citation.archived_verdict) == (None, None)
    assert citation.archive_lookup and citation.archive_lookup.startswith(NOT_ASKED)
    assert archive.requests == []


def test_archive_private_urls_lets_an_archive_of_ones_own_be_asked(
    site: LoopbackSite, archive: FakeArchive, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    url = site.url("/missing.html")
    archive.add(url, CAPTURED, BOILING_HTML)
    own = settings.model_copy(
        update={
            "archive_url": archive.base_url,
            "archive_fallback": "dead",
            "archive_private_urls": True,
        }
    )
    [citation] = verify(own, embedder, url)
    assert (citation.label, citation.reason, citation.live_reason) == (
        Label.SUPPORTED,
        Reason.ARCHIVED_COPY,
        "http_404",
    )


def test_a_dead_page_at_a_public_address_is_still_looked_up(
    archive: FakeArchive, embedder: MiniLMEmbedder
) -> None:
    # A public address (a literal: no DNS query from the test), dead as the Crawling API saw it.
    url = "http://93.184.215.14/gone"
    archive.add(url, CAPTURED, BOILING_HTML)
    with FakeCrawlbase() as fake:
        fake.script("/gone", Canned(200, {"original_status": "404", "cb_status": "200"}, b""))
        settings = cb_settings(
            fake,
            archive_url=archive.base_url,
            archive_fallback="dead",
            allow_private_urls=True,  # the capture is served on loopback
        )
        [citation] = verify(settings, embedder, url)
    assert (citation.label, citation.reason, citation.live_reason) == (
        Label.SUPPORTED,
        Reason.ARCHIVED_COPY,
        "http_404",
    ), (citation.detail, citation.archive_lookup)
    assert any(r.startswith("/wayback/available") for r in archive.requests)
