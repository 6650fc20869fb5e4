"""Batches and the archive: dead links rescued and changed pages counted apart, precision with
and without rescues, the citation date per record or from --cited-at."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from batch_fixture import write_jsonl
from batch_helpers import score
from citation_verifier.batch.engine import LocalRunner
from citation_verifier.batch.summary import summary_lines
from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from test_cli import run

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
WATER_100 = "Water boils at 100 degrees Celsius at sea level."


@pytest.fixture
def archive() -> Iterator[FakeArchive]:
    with FakeArchive() as fake:
        yield fake


@pytest.fixture
def site(serve: Serve, archive: FakeArchive) -> LoopbackSite:
    site = serve(
        {
            "/gone": Page("<html><body>Not Found</body></html>", status=404),
            "/lost": Page("<html><body>Not Found</body></html>", status=404),
            "/now": Page(BOILING_HTML.replace("100 degrees", "90 degrees")),
        }
    )
    archive.add(site.url("/gone"), "20210215120000", BOILING_HTML)
    archive.add(site.url("/now"), "20210220000000", BOILING_HTML)
    return site


def records(site: LoopbackSite) -> list[dict[str, object]]:
    return [
        {"id": "dead", "claim": WATER_100, "urls": [site.url("/gone")], "cited_at": "2021-03-01"},
        {"id": "lost", "claim": WATER_100, "urls": [site.url("/lost")]},
        {
            "id": "changed",
            "claim": WATER_100,
            "urls": [site.url("/now")],
            "cited_at": "2021-03-01",
            "compare_archive": True,
        },
    ]


async def test_a_batch_counts_rescues_and_changed_pages_apart(
    tmp_path: Path,
    site: LoopbackSite,
    archive: FakeArchive,
    settings: Settings,
    embedder: MiniLMEmbedder,
) -> None:
    settings = settings.model_copy(
        update={
            "archive_url": archive.base_url,
            "archive_fallback": "dead",
            "archive_private_urls": True,
        }
    )
    inputs = write_jsonl(tmp_path / "in.jsonl", records(site))
    outcome = await score(inputs, tmp_path / "cp.jsonl", LocalRunner(settings, embedder=embedder))
    reasons = [row.verdict.reason for row in outcome.rows]
    assert reasons == ["archived_copy", "http_404", None]
    assert outcome.rows[2].verdict.changed_since_cited is True
    summary = outcome.summary
    assert (summary.archived, summary.archived_supported, summary.changed_since_cited) == (1, 1, 1)
    assert summary.citation_precision == 1 / 3
    assert summary.citation_precision_without_archive == 0.0
    assert (
        "archive: rescued=1 (supported=1) changed_since_cited=1 "
        "citation_precision_without_archive=0.0000 (0/3)"
    ) in summary_lines(summary)


def test_the_batch_command_takes_the_citation_date_and_comparison_as_options(
    tmp_path: Path, site: LoopbackSite, archive: FakeArchive
) -> None:
    lines: list[dict[str, object]] = [
        {"id": "changed", "claim": WATER_100, "urls": [site.url("/now")]}
    ]
    inputs = write_jsonl(tmp_path / "in.jsonl", lines)
    out = tmp_path / "report.json"
    done = run(
        "batch",
        str(inputs),
        "--out",
        str(out),
        "--quiet",
        "--cited-at",
        "2021-03-01",
        "--compare-archive",
        ARCHIVE_URL=archive.base_url,
        ARCHIVE_FALLBACK="dead",
        ARCHIVE_PRIVATE_URLS="true",
    )
    assert done.returncode == 0, done.stderr
    assert "changed_since_cited=1" in done.stdout
    bad = run("batch", str(inputs), "--out", str(out), "--cited-at", "last week")
    assert bad.returncode == 4 and "--cited-at" in bad.stderr
