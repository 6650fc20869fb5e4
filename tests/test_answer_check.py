"""Checking a whole answer through the real pipeline: loopback pages, the embedded judges."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler

import pytest

from citation_verifier.answers.check import check_answer
from citation_verifier.answers.models import AnswerRequest, AnswerResult
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML, demo_routes, example_answer
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]


def run_check(
    settings: Settings, embedder: MiniLMEmbedder, request: AnswerRequest, **kwargs: object
) -> AnswerResult:
    async def go() -> AnswerResult:
        async with build_verifier(settings, embedder=embedder) as verifier:
            return await check_answer(verifier, request, **kwargs)  # type: ignore[arg-type]

    return asyncio.run(go())


@pytest.mark.parametrize("judge", ["checker", "lexical"])
def test_the_issue_example_is_supported_supported_uncited_contradicted(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder, judge: str
) -> None:
    site = serve(demo_routes())
    settings = settings.model_copy(update={"judge_provider": judge})
    result = run_check(settings, embedder, AnswerRequest(answer=example_answer(site.base_url)))
    assert [s.overall.value for s in result.statements] == [
        "supported",
        "supported",
        "uncited",
        "contradicted",
    ]
    assert result.citation_precision == 0.5
    assert (result.citations, result.supported_citations, result.unique_urls) == (4, 2, 3)
    assert (result.supported, result.contradicted, result.uncited) == (2, 1, 1)
    last = result.statements[3]
    assert [(c.label.value, c.reason) for c in last.citations] == [
        ("contradicted", None),
        ("unreachable", "http_404"),
    ]
    assert result.statements[1].citations[0].evidence_quote


def test_each_url_is_fetched_once_per_answer(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    hits: list[str] = []

    def boiling(handler: BaseHTTPRequestHandler) -> None:
        hits.append(handler.path)
        body = BOILING_HTML.encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    site = serve({"/boil": boiling})
    url = site.url("/boil")
    answer = (
        f"Water boils at 100 degrees Celsius [1]. It boils at sea level [1]. "
        f"Water is wet [2].\n\n[1] {url}\n[2] {url}"
    )
    result = run_check(settings, embedder, AnswerRequest(answer=answer))
    assert len(hits) == 1
    assert result.citations == 3 and result.unique_urls == 1


def test_progress_is_reported_for_every_page_and_judgement(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(demo_routes())
    seen: list[tuple[int, int, str]] = []

    async def progress(done: int, total: int, message: str) -> None:
        seen.append((done, total, message))

    run_check(
        settings,
        embedder,
        AnswerRequest(answer=example_answer(site.base_url)),
        progress=progress,
    )
    assert [done for done, _, _ in seen] == list(range(1, 8))  # 3 pages + 4 pairs
    assert {total for _, total, _ in seen} == {7}
    assert sum(message.startswith("loaded ") for _, _, message in seen) == 3


def test_unresolved_and_uncited_statements_are_counted_but_not_citations(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/boil": Page(BOILING_HTML)})
    answer = "Water boils at 100 degrees Celsius at sea level [1]. Ice is cold [2]. Fire is hot."
    result = run_check(
        settings, embedder, AnswerRequest(answer=answer, citations=[site.url("/boil")])
    )
    assert [s.overall.value for s in result.statements] == ["supported", "unresolved", "uncited"]
    assert result.statements[1].problems == ["[2] matches no source in the answer"]
    assert result.citation_precision == 1.0 and result.citations == 1


def test_an_answer_with_no_citations_has_no_precision(
    settings: Settings, embedder: MiniLMEmbedder
) -> None:
    result = run_check(settings, embedder, AnswerRequest(answer="Fire is hot. Ice is cold."))
    assert result.citation_precision is None
    assert result.uncited == 2 and result.unique_urls == 0
