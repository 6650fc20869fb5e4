"""Pages we could not read are reported apart everywhere: the batch summary (counted by wall,
outside reachable precision), the HTML report, ``verify`` and ``check-answer``, the service's
JSON and metrics (``cv_unreadable_total{reason}``), and MCP, each with the wall in words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.batch.html_report import html_report
from citation_verifier.batch.summary import summarize, summary_lines
from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.demo.walls import CLAIM, wall_routes
from citation_verifier.models import Label, UrlVerdict
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from test_mcp_server import Transcript, _text, stdio_session

GEO_WORDS = "could not read: the page is not available in the region we fetch from"


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackSite]:
    with LoopbackSite(wall_routes()) as corpus:
        yield corpus


@pytest.fixture
def local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    monkeypatch.setenv("AUDIT_ENABLED", "false")


def _row(n: int, label: Label, reason: str | None = None) -> ResultRow:
    verdict = UrlVerdict(url=f"https://e.example/{n}", label=label, confidence=1.0, reason=reason)
    return ResultRow(id=str(n), index=0, claim="c", verdict=verdict)


def test_the_summary_counts_unreadable_citations_by_wall_outside_reachable_precision() -> None:
    rows = [
        _row(0, Label.SUPPORTED),
        _row(1, Label.NOT_FOUND),
        _row(2, Label.UNREACHABLE, "bot_challenge"),
        _row(3, Label.UNREACHABLE, "bot_challenge"),
        _row(4, Label.UNREACHABLE, "paywalled"),
        _row(5, Label.UNREACHABLE, "http_404"),
    ]
    summary = summarize(rows, invalid_lines=0)
    assert summary.unreadable == {"bot_challenge": 2, "paywalled": 1}
    lines = summary_lines(summary)
    assert lines[1] == "reachable_precision=0.5000 (1/2)"
    assert (
        "could not read: bot_challenge=2 paywalled=1 (unreachable: not in reachable_precision)"
        in lines
    )
    report = html_report(rows, summary)
    assert "could not read: a bot challenge answered instead of the page" in report
    assert "could not read: the page is paywalled" in report


def test_the_batch_command_reports_walls_apart(
    tmp_path: Path, site: LoopbackSite, local: None
) -> None:
    inputs = tmp_path / "in.jsonl"
    urls = [site.url("/a/newsletter"), site.url("/geo"), site.url("/paywalled")]
    inputs.write_text(json.dumps({"id": "1", "claim": CLAIM, "urls": urls}) + "\n")
    html = tmp_path / "report.html"
    out = tmp_path / "report.csv"
    result = CliRunner().invoke(
        app, ["batch", str(inputs), "--out", str(out), "--html", str(html), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "reachable_precision=1.0000 (1/1)" in result.output
    assert "could not read: geo_blocked=1 paywalled=1" in result.output
    assert GEO_WORDS in html.read_text(encoding="utf-8")


def test_verify_and_check_answer_say_could_not_read_in_words(
    site: LoopbackSite, local: None
) -> None:
    verify = CliRunner().invoke(app, ["verify", CLAIM, site.url("/geo"), site.url("/rate")])
    assert verify.exit_code == 0, verify.output
    assert f"Could not read {site.url('/geo')}: the page is not available in the region" in (
        " ".join(verify.output.split())
    )
    assert "the site asked to retry after 120 s" in verify.output
    answer = f"{CLAIM[:-1]} [1].\n\n[1] {site.url('/forbidden')}\n"
    checked = CliRunner().invoke(app, ["check-answer", "-"], input=answer)
    assert checked.exit_code == 0, checked.output
    assert "unreachable (blocked)" in checked.output
    assert f"Could not read {site.url('/forbidden')}: the site refused to serve us" in (
        " ".join(checked.output.split())
    )


def test_the_service_answers_could_not_read_and_counts_it(
    site: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    settings = Settings(allow_private_urls=True)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        response = httpx.post(
            service.url + "/verify",
            json={"claim": CLAIM, "urls": [site.url("/geo"), site.url("/a/free-true")]},
            timeout=60,
        )
        metrics = httpx.get(service.url + "/metrics").text
    assert response.status_code == 200
    geo, article = response.json()["citations"]
    assert (geo["label"], geo["reason"], geo["could_not_read"]) == (
        "unreachable",
        "geo_blocked",
        GEO_WORDS,
    )
    assert article["could_not_read"] is None and article["label"] == "supported"
    assert 'cv_unreadable_total{reason="geo_blocked"} 1.0' in metrics


async def test_mcp_verify_claim_says_could_not_read(tmp_path: Path, site: LoopbackSite) -> None:
    transcript = Transcript()
    async with stdio_session(tmp_path / "stderr.log", transcript) as session:
        await session.list_tools()  # the client checks structured results against the schema
        result = await session.call_tool(
            "verify_claim", {"claim": CLAIM, "urls": [site.url("/forbidden")]}
        )
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert isinstance(body, dict)
    [citation] = body["citations"]
    assert (citation["reason"], citation["could_not_read"]) == (
        "blocked",
        "could not read: the site refused to serve us (access denied)",
    )
