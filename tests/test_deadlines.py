"""Every request ends on time (REQUEST_DEADLINE_S): a citation unfinished at the deadline is
``deadline_exceeded`` (not a result) while the others answer; the service stops working for a
client that went away; the CLI honours the deadline only when it is set. Pages are on
127.0.0.1; a slow page is one that answers after a delay."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx

from citation_verifier.deadline import Deadline
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.models import FAILURES, Label, Reason, VerifyRequest
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from citation_verifier.terminal import ExitCode
from test_cli import run

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."
SLOW_S = 8.0


def _site(serve: Serve) -> LoopbackSite:
    return serve({"/boil": Page(BOILING_HTML), "/slow": Page(BOILING_HTML, delay_s=SLOW_S)})


def _settings(**changes: object) -> Settings:
    base = {"allow_private_urls": True, "fetch_timeout_s": 30.0, "audit_enabled": False}
    return Settings(**{**base, **changes})  # type: ignore[arg-type]


def test_a_citation_unfinished_at_the_deadline_is_deadline_exceeded_and_the_others_answer(
    serve: Serve, embedder: MiniLMEmbedder
) -> None:
    site = _site(serve)
    request = VerifyRequest(claim=CLAIM, urls=[site.url("/boil"), site.url("/slow")])

    async def verify() -> tuple[float, list[tuple[str, str | None, str | None]]]:
        async with build_verifier(_settings(), embedder=embedder) as verifier:
            started = time.monotonic()
            result = await verifier.verify(request, deadline=Deadline.after(4.0))
            took = time.monotonic() - started
        return took, [(c.label.value, c.reason, c.detail) for c in result.citations]

    took, citations = asyncio.run(verify())
    assert took < SLOW_S - 2  # the slow page was given up, not waited for
    assert citations[0][0] == Label.SUPPORTED
    label, reason, detail = citations[1]
    assert (label, reason) == (Label.NOT_FOUND, Reason.DEADLINE_EXCEEDED)
    assert reason in FAILURES  # not a result: out of every precision, judged again on --resume
    assert (
        detail == "the request's deadline of 4 s (REQUEST_DEADLINE_S) passed while loading the page"
    )


def test_the_service_answers_by_the_deadline_with_the_citations_that_finished(
    serve: Serve, embedder: MiniLMEmbedder
) -> None:
    site = _site(serve)
    app = create_app(_settings(request_deadline_s=4.0), embedder=embedder)
    with BackgroundServer(app) as service:
        started = time.monotonic()
        answer = httpx.post(
            f"{service.url}/check-answer",
            json={
                "answer": f"{CLAIM[:-1]} [1]. It boils at a lower temperature up high [2].",
                "citations": [site.url("/boil"), site.url("/slow")],
            },
            timeout=30,
        )
        took = time.monotonic() - started
    assert answer.status_code == 200, answer.text
    assert took < SLOW_S - 2
    reasons = [c["reason"] for s in answer.json()["statements"] for c in s["citations"]]
    assert reasons[0] != Reason.DEADLINE_EXCEEDED and reasons[1] == Reason.DEADLINE_EXCEEDED


def _in_flight(service_url: str) -> float:
    text = httpx.get(f"{service_url}/metrics", timeout=5).text
    match = re.search(r"^cv_verifications_in_flight (\S+)$", text, re.MULTILINE)
    assert match is not None, text
    return float(match.group(1))


def test_work_stops_when_the_client_goes_away(serve: Serve, embedder: MiniLMEmbedder) -> None:
    site = _site(serve)
    app = create_app(_settings(request_deadline_s=60.0), embedder=embedder)
    body = json.dumps({"claim": CLAIM, "urls": [site.url("/slow")]}).encode()
    with BackgroundServer(app) as service:
        host, port = service.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as client:
            client.sendall(
                b"POST /verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            deadline = time.monotonic() + 5
            while _in_flight(service.url) < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _in_flight(service.url) == 1
        left = time.monotonic()  # the client hung up; the page still takes seconds to answer
        while _in_flight(service.url) > 0 and time.monotonic() - left < SLOW_S:
            time.sleep(0.1)
        assert time.monotonic() - left < 3, "the verification ran on for a client that left"
        metrics = httpx.get(f"{service.url}/metrics", timeout=5).text
    assert 'cv_rejected_requests_total{why="client_gone"} 1.0' in metrics


def test_the_cli_takes_no_deadline_unless_request_deadline_s_is_set(serve: Serve) -> None:
    site = serve({"/slow": Page(BOILING_HTML, delay_s=3.0)})
    bounded = run("verify", "--json", CLAIM, site.url("/slow"), REQUEST_DEADLINE_S="1")
    assert bounded.returncode == ExitCode.JUDGE, bounded.stderr
    assert json.loads(bounded.stdout)["citations"][0]["reason"] == Reason.DEADLINE_EXCEEDED
    assert "error: the deadline passed before 1 of 1 citation(s) were judged" in bounded.stderr
    unbounded = run("verify", "--json", CLAIM, site.url("/slow"))
    assert unbounded.returncode == 0, unbounded.stderr
    assert json.loads(unbounded.stdout)["citations"][0]["label"] == Label.SUPPORTED


def test_batch_gives_each_citation_the_deadline_when_it_is_set(
    serve: Serve, tmp_path: Path
) -> None:
    site = serve({"/boil": Page(BOILING_HTML), "/slow": Page(BOILING_HTML, delay_s=SLOW_S)})
    inputs = tmp_path / "in.jsonl"
    records = [{"id": "1", "claim": CLAIM, "urls": [site.url("/boil"), site.url("/slow")]}]
    inputs.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "out.json"
    # Long enough for the first judgement to load the models, shorter than the slow page.
    done = run("batch", str(inputs), "--out", str(out), "--quiet", REQUEST_DEADLINE_S="5")
    assert done.returncode == ExitCode.JUDGE, done.stderr
    assert "error: REQUEST_DEADLINE_S passed before 1 citation(s) were judged" in done.stderr
    rows = {row["url"]: row for row in json.loads(out.read_text(encoding="utf-8"))["citations"]}
    assert rows[site.url("/boil")]["label"] == Label.SUPPORTED
    assert rows[site.url("/slow")]["reason"] == Reason.DEADLINE_EXCEEDED
