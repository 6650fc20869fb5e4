"""Load test, bounded in count and time: 200 POST /verify at concurrency 20 against loopback
pages → zero 5xx, zero lost responses, every response a valid VerifyResult. p50/p95 are
printed and written to test-output/load/summary.txt."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path

from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.demo.site import ARTICLE_CASES, OTHER_CASES, demo_routes
from citation_verifier.models import VerifyRequest
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.loadtest import run_load
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings

OUTPUT = Path(__file__).resolve().parent.parent / "test-output" / "load"


def test_200_requests_at_concurrency_20_get_no_5xx_and_no_lost_response(
    serve: Callable[[Mapping[str, Route]], LoopbackSite], embedder: MiniLMEmbedder
) -> None:
    site = serve(demo_routes())
    payloads = [
        VerifyRequest(claim=case.claim, urls=[site.url(p) for p in case.paths])
        for case in (*ARTICLE_CASES, *OTHER_CASES)
    ]
    settings = Settings(allow_private_urls=True, fetch_timeout_s=5.0, connect_timeout_s=2.0)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        report = asyncio.run(run_load(service.url, payloads, requests=200, concurrency=20))
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / "summary.txt").write_text(report.summary() + "\n", encoding="utf-8")
    print(report.summary())
    assert report.transport_errors == []
    assert report.answered == 200
    assert report.server_errors == 0
    assert report.statuses[200] == 200
    assert report.invalid_bodies == 0
    assert report.wall_s < 120
