"""``citation-verifier verify`` on the Crawlbase backend, and the guarantee that no token ever
shows up in logs, errors, reports or stored data."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.fetch.crawlbase import StoredPageNotFound, replay_rid
from citation_verifier.terminal import ExitCode
from fake_crawlbase import JS_TOKEN, NORMAL_TOKEN, Canned, FakeCrawlbase, cb_settings, origin_site

BOIL = "Water boils at 100 degrees Celsius at sea level."


@pytest.fixture(scope="module")
def origin() -> Iterator[LoopbackSite]:
    with origin_site() as site:
        yield site


def _env(fake: FakeCrawlbase, **extra: str) -> dict[str, str]:
    env = {
        "CRAWLBASE_TOKEN": NORMAL_TOKEN,
        "CRAWLBASE_JS_TOKEN": JS_TOKEN,
        "CRAWLBASE_API_URL": fake.base_url,
        "CRAWLBASE_BACKOFF_S": "0.01",
    }
    env.update(extra)
    return env


def test_cli_json_shows_verdicts_rids_attempts_and_credits(origin: LoopbackSite) -> None:
    urls = [origin.url("/articles/boiling"), origin.url("/gone"), origin.url("/app/everest")]
    with FakeCrawlbase() as fake:
        result = CliRunner().invoke(app, ["verify", "--json", BOIL, *urls], env=_env(fake))
        charged = fake.charged
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["overall"] == "supported"
    assert [c["label"] for c in data["citations"]] == ["supported", "unreachable", "not_found"]
    assert [c["reason"] for c in data["citations"]] == [None, "http_404", None]
    assert [c["credits"] for c in data["citations"]] == [1.5, 1.5, 5.5]
    assert data["credits"] == 8.5 == charged
    boiling, gone, everest = data["citations"]
    assert boiling["rid"] == boiling["attempts"][0]["rid"] is not None
    assert gone["original_status"] == 404 and gone["attempts"][0]["cb_status"] == 404
    assert [a["token"] for a in everest["attempts"]] == ["normal", "normal", "js"]
    assert everest["rid"] == everest["attempts"][-1]["rid"]


def test_cli_table_prints_the_credit_total(origin: LoopbackSite) -> None:
    with FakeCrawlbase() as fake:
        result = CliRunner().invoke(
            app, ["verify", BOIL, origin.url("/articles/oceans")], env=_env(fake)
        )
    assert result.exit_code == 0, result.output
    assert "Crawlbase credits: 3 (per citation: 3)" in result.stderr  # piped: notes apart


def test_cli_crawlbase_without_token_is_a_clear_error(origin: LoopbackSite) -> None:
    result = CliRunner().invoke(
        app,
        ["verify", BOIL, origin.url("/articles/boiling")],
        env={"FETCHER": "crawlbase", "CRAWLBASE_TOKEN": ""},
    )
    assert result.exit_code == ExitCode.CONFIG
    assert "CRAWLBASE_TOKEN" in result.stderr and "Traceback" not in result.output


def test_cli_rejected_token_is_a_clear_error_without_the_token(origin: LoopbackSite) -> None:
    with FakeCrawlbase() as fake:
        result = CliRunner().invoke(
            app,
            ["verify", BOIL, origin.url("/articles/boiling")],
            env=_env(fake, CRAWLBASE_TOKEN="rejected-token-42"),
        )
    assert result.exit_code == ExitCode.CONFIG
    assert "HTTP 401" in result.stderr and "CRAWLBASE_TOKEN" in result.stderr
    assert "rejected-token-42" not in result.output


def test_no_token_in_logs_errors_reports_or_stored_data(
    origin: LoopbackSite, caplog: pytest.LogCaptureFixture
) -> None:
    """Runs branches that touch every path (success, dead link, JS escalation, 429, 500,
    configuration error, replay) with every logger at DEBUG, then greps everything."""
    paths = ["/articles/boiling", "/gone", "/app/everest", "/notes/thin", "/articles/oceans"]
    outputs: list[str] = []
    with caplog.at_level(logging.DEBUG), FakeCrawlbase() as fake:
        fake.script("/articles/boiling", Canned(429, {"Retry-After": "0"}), Canned(500))
        fake.script("/notes/thin", Canned(520))
        runner = CliRunner()
        stdouts: list[str] = []
        for args in (["--json"], []):
            result = runner.invoke(
                app, ["verify", *args, BOIL, *(origin.url(p) for p in paths)], env=_env(fake)
            )
            assert result.exit_code == 0, result.output
            outputs.append(result.output)
            stdouts.append(result.stdout)
        fake.script("/articles/boiling", Canned(403))
        denied = runner.invoke(
            app, ["verify", BOIL, origin.url("/articles/boiling")], env=_env(fake)
        )
        outputs.append(denied.output)
        assert "storage_url" not in outputs[0]
        settings = cb_settings(fake)
        rid = json.loads(stdouts[0])["citations"][0]["rid"]
        outputs.append(asyncio.run(replay_rid(rid, settings)))
        with pytest.raises(StoredPageNotFound) as missing:
            asyncio.run(replay_rid("no-such-rid", settings))
        outputs.append(str(missing.value))
        sent = [c.raw_query for c in fake.calls]
    assert any(NORMAL_TOKEN in q for q in sent) and any(JS_TOKEN in q for q in sent)
    assert "HTTP Request" in caplog.text  # httpx did log every request: redacted
    haystack = "\n".join([caplog.text, *outputs])
    for token in (NORMAL_TOKEN, JS_TOKEN):
        assert token not in haystack


async def test_demo_fetches_directly_even_with_a_crawlbase_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from citation_verifier.demo.site import run_demo

    with FakeCrawlbase() as fake:
        for name, value in _env(fake).items():
            monkeypatch.setenv(name, value)
        articles, _, _ = await run_demo()
        assert fake.calls == []  # the loopback demo site is out of a crawling API's reach
    assert all(c.attempts == [] for r in articles for c in r.citations)
