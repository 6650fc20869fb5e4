"""Page content and user dates that used to raise past their citation (HTTP 500, exit 70): a
redirect httpx cannot follow, control-character references, a date UTC cannot hold. Each is
now a named reason on its citation, or a 422 / input error, on a real service and CLI."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page, Route, redirect
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."
BEYOND_UTC = "0001-01-01T00:00:00+14:00"
CONTROL_REFERENCES = (
    "<html><head><title>Boiling&#1;</title></head><body><article><h1>Boiling</h1>"
    "<p>Water boils at 100 degrees Celsius at sea level.&#1; &#x1f; \x02 It boils at a lower "
    "temperature on a mountain, where the air pressure is lower.</p></article></body></html>"
)


@pytest.fixture
def site(serve: Serve) -> LoopbackSite:
    return serve(
        {
            "/bad-location": redirect("http:127.0.0.1"),
            "/bad-port": redirect("http://127.0.0.1:99999/x"),
            "/controls": Page(CONTROL_REFERENCES),
        }
    )


@pytest.fixture(scope="module")
def service(embedder: MiniLMEmbedder) -> Iterator[BackgroundServer]:
    settings = Settings(allow_private_urls=True, fetch_timeout_s=2.0, connect_timeout_s=1.0)
    with BackgroundServer(create_app(settings, embedder=embedder)) as server:
        yield server


def _verify(service: BackgroundServer, **body: object) -> httpx.Response:
    return httpx.post(service.url + "/verify", json={"claim": CLAIM, **body}, timeout=30)


@pytest.mark.parametrize("path", ["/bad-location", "/bad-port"])
def test_a_redirect_httpx_cannot_follow_is_invalid_redirect_not_a_500(
    service: BackgroundServer, site: LoopbackSite, path: str
) -> None:
    response = _verify(service, urls=[site.url(path), site.url("/controls")])
    assert response.status_code == 200, response.text
    bad, good = response.json()["citations"]
    assert bad["label"] == "unreachable" and bad["reason"] == "invalid_redirect"
    assert good["label"] == "supported"


def test_a_page_with_control_character_references_is_judged_not_a_500(
    service: BackgroundServer, site: LoopbackSite
) -> None:
    response = _verify(service, urls=[site.url("/controls")])
    assert response.status_code == 200, response.text
    citation = response.json()["citations"][0]
    assert citation["label"] == "supported" and citation["evidence_quote"] == CLAIM


def test_a_cited_at_utc_cannot_hold_is_a_422_not_a_500(service: BackgroundServer) -> None:
    response = _verify(service, urls=["https://example.com/a"], cited_at=BEYOND_UTC)
    assert response.status_code == 422, response.text
    assert "cited_at" in response.json()["detail"]
    answer = httpx.post(
        service.url + "/check-answer",
        json={"answer": "Water boils [1].\n\n[1] https://example.com/a", "cited_at": BEYOND_UTC},
        timeout=30,
    )
    assert answer.status_code == 422, answer.text


def test_cli_verify_with_a_cited_at_utc_cannot_hold_is_an_input_error() -> None:
    result = CliRunner().invoke(
        app, ["verify", "--cited-at", BEYOND_UTC, CLAIM, "https://example.com/a"]
    )
    assert result.exit_code == 4, result.output
    assert "cited_at" in result.output


def test_batch_with_a_cited_at_utc_cannot_hold_skips_that_line_and_scores_the_rest(
    tmp_path: Path, site: LoopbackSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    inputs = tmp_path / "in.jsonl"
    records = [
        {"id": "date", "claim": CLAIM, "urls": [site.url("/controls")], "cited_at": BEYOND_UTC},
        {"id": "ok", "claim": CLAIM, "urls": [site.url("/controls"), site.url("/bad-location")]},
    ]
    inputs.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "report.json"
    result = CliRunner().invoke(app, ["batch", str(inputs), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "invalid_lines=1" in result.output
    labels = [c["label"] for c in json.loads(out.read_text(encoding="utf-8"))["citations"]]
    assert labels == ["supported", "unreachable"]
    option = CliRunner().invoke(
        app, ["batch", str(inputs), "--out", str(out), "--cited-at", BEYOND_UTC]
    )
    assert option.exit_code == 4, option.output
