"""The plug-ins in process, against the frameworks' own classes: one checker per run, each page
fetched once, URL citations read from a model's output, the figure chosen, and the frameworks'
result shapes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest
from deepeval.metrics.utils.metrics import copy_metrics
from deepeval.test_case import LLMTestCase
from inspect_ai._util.citation import UrlCitation
from inspect_ai._util.content import ContentText
from inspect_ai.model import ChatMessageAssistant, ModelOutput

from citation_verifier import Checker
from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.demo.site import BRIDGE_DESIGN_HTML, BRIDGE_HTML, attributed_answer
from citation_verifier.integrations.deepeval import CitationMetric
from citation_verifier.integrations.inspect_ai import answer_text
from citation_verifier.integrations.langsmith import CitationEvaluator
from citation_verifier.integrations.promptfoo import ServiceError, get_assert, grading_result
from citation_verifier.integrations.ragas import CitationVerification


class CountingSite:
    """The two bridge pages, counting how often each is fetched."""

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        pages = {
            "/articles/orlen-bridge": BRIDGE_HTML,
            "/articles/orlen-bridge-design": BRIDGE_DESIGN_HTML,
        }

        def route(body: str):  # type: ignore[no-untyped-def]
            def handle(handler: BaseHTTPRequestHandler) -> None:
                self.hits[handler.path] = self.hits.get(handler.path, 0) + 1
                data = body.encode()
                handler.send_response(200)
                handler.send_header("Content-Type", "text/html; charset=utf-8")
                handler.send_header("Content-Length", str(len(data)))
                handler.end_headers()
                handler.wfile.write(data)

            return handle

        self.site = LoopbackSite({path: route(body) for path, body in pages.items()})


@pytest.fixture
def counting() -> Iterator[CountingSite]:
    site = CountingSite()
    site.site.start()
    yield site
    site.site.stop()


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checker]:
    with Checker(
        allow_private_urls=True,
        judge_provider="checker",
        language_judge="none",
        archive_fallback="never",
        audit_enabled=False,
        cache_dir=tmp_path_factory.mktemp("cache"),
        fetch_cache_ttl_s=3600,
    ) as made:
        yield made


def test_many_samples_fetch_each_page_once_through_one_checker(
    counting: CountingSite, checker: Checker
) -> None:
    metric = CitationVerification(checker=checker)
    answer = attributed_answer(counting.site.base_url)
    results = metric.batch_score([{"response": answer}] * 3)
    assert [round(r.value, 4) for r in results] == [0.6667] * 3
    assert counting.hits == {"/articles/orlen-bridge": 1, "/articles/orlen-bridge-design": 1}


def test_deepevals_copies_of_the_metric_share_its_checker(checker: Checker) -> None:
    metric = CitationMetric(threshold=0.7, figure="citation_precision_liu", checker=checker)
    (copy,) = copy_metrics([metric])
    assert copy.checker is checker and copy.figure == "citation_precision_liu"
    assert copy.threshold == 0.7


def test_the_deepeval_metric_scores_the_chosen_figure_and_keeps_the_statements(
    counting: CountingSite, checker: Checker
) -> None:
    metric = CitationMetric(threshold=0.7, figure="citation_precision_liu", checker=checker)
    case = LLMTestCase(input="q", actual_output=attributed_answer(counting.site.base_url))
    assert metric.measure(case) == 0.75 and metric.is_successful()
    assert [s["overall"] for s in metric.score_breakdown["statements"]] == [
        "supported",
        "not_found",
        "supported",
    ]
    assert "misattributed: [1] states it" in metric.reason


def test_url_citations_of_a_model_output_become_markers_and_sources() -> None:
    first = "The Orlen Bridge opened to traffic in May 2024. "
    second = "It was designed by Halvorsen & Brook."
    # OpenAI: a range in one text block; Anthropic: a block per cited span.
    output = ModelOutput.from_message(
        ChatMessageAssistant(
            content=[
                ContentText(
                    text=first,
                    citations=[
                        UrlCitation(url="https://a.example/bridge", cited_text=(0, len(first) - 1))
                    ],
                ),
                ContentText(
                    text=second,
                    citations=[
                        UrlCitation(url="https://a.example/design", cited_text="Engineers …"),
                        UrlCitation(url="https://a.example/bridge"),
                    ],
                ),
            ]
        )
    )
    assert answer_text(output) == (
        "The Orlen Bridge opened to traffic in May 2024 [1]. It was designed by Halvorsen & "
        "Brook [2][1].\n\nSources:\n[1] https://a.example/bridge\n[2] https://a.example/design\n"
    )
    linked = ModelOutput.from_message(
        ChatMessageAssistant(
            content=[
                ContentText(
                    text="It opened in May 2024 ([a.example](https://a.example/bridge)).",
                    citations=[UrlCitation(url="https://a.example/bridge", cited_text=(22, 61))],
                )
            ]
        )
    )
    assert answer_text(linked) == "It opened in May 2024 ([a.example](https://a.example/bridge))."


def test_the_langsmith_evaluator_reads_an_answer_and_its_citations_array(
    counting: CountingSite, checker: Checker
) -> None:
    base = counting.site.base_url
    answer = "The Orlen Bridge opened to traffic in May 2024 [1]."
    evaluator = CitationEvaluator(checker=checker)
    feedback = evaluator({"answer": answer, "citations": [f"{base}/articles/orlen-bridge"]})
    assert (feedback.key, feedback.score) == ("citation_verification", 1.0)
    assert feedback.extra is not None and feedback.extra["supported"] == 1
    plain = evaluator(answer)  # a string output: the [1] has no source
    assert plain.score == 0.0 and "matches no source" in (plain.comment or "")


def test_the_promptfoo_grading_result_has_one_component_per_statement(
    counting: CountingSite, checker: Checker
) -> None:
    result = checker.check_answer(attributed_answer(counting.site.base_url))
    graded = grading_result(result.model_dump(mode="json"), 0.7, "citation_recall")
    assert graded["pass"] is False and round(graded["score"], 4) == 0.6667
    assert [c["pass"] for c in graded["componentResults"]] == [True, False, True]
    assert graded["namedScores"]["citation_precision_liu"] == 0.75


@pytest.fixture
def service(counting: CountingSite, tmp_path: Path) -> Iterator[str]:
    """``citation-verifier serve`` on a free loopback port, until the test ends."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "ALLOW_PRIVATE_URLS": "true",
        "JUDGE_PROVIDER": "checker",
        "LANGUAGE_JUDGE": "none",
        "AUDIT_ENABLED": "false",
        "CACHE_DIR": str(tmp_path / "cache"),
        "FETCH_CACHE_TTL_S": "3600",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "citation_verifier", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                if httpx.get(url + "/ready", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_promptfoos_assertion_on_the_service_fetches_each_page_once(
    counting: CountingSite, service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITATION_VERIFIER_URL", service)
    answer = attributed_answer(counting.site.base_url)
    graded = [get_assert(answer, {"vars": {"threshold": 0.6}}) for _ in range(3)]
    assert [round(g["score"], 4) for g in graded] == [0.6667] * 3
    assert all(g["pass"] for g in graded)
    assert counting.hits == {"/articles/orlen-bridge": 1, "/articles/orlen-bridge-design": 1}


def test_a_service_that_refuses_the_answer_is_an_error_naming_it(
    service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITATION_VERIFIER_URL", service)
    with pytest.raises(ServiceError, match="answered 422"):
        get_assert(" ", {})


def test_an_unknown_figure_is_refused_by_name(checker: Checker, tmp_path: Path) -> None:
    metric = CitationVerification(checker=checker, figure="recall")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="score must be one of citation_recall"):
        metric.score(response="Nothing cited here.")
