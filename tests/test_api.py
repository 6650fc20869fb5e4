"""The HTTP service over real HTTP: uvicorn on 127.0.0.1, loopback pages, the embedded judge."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Iterator, Mapping

import httpx
import pytest
from pydantic import SecretStr, ValidationError

from batch_helpers import CountingEmbedder
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import (
    BOILING_HTML,
    answer_routes,
    attributed_answer,
    demo_routes,
    example_answer,
)
from citation_verifier.integrations.promptfoo import grading_result
from citation_verifier.judge.calibration import review_priority
from citation_verifier.models import Label
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import WEB_DIR, create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
WATER_100 = "Water boils at 100 degrees Celsius at sea level."
WATER_50 = "Water boils at 50 degrees Celsius at sea level."
SPEC_FIELDS = {
    "url",
    "label",
    "evidence_quote",
    "confidence",
    "final_url",
    "original_status",
    "rid",
    "reason",
}


def _settings(**overrides: object) -> Settings:
    base: dict[str, object] = {
        "allow_private_urls": True,
        "fetch_timeout_s": 2.0,
        "connect_timeout_s": 1.0,
    }
    return Settings(**{**base, **overrides})  # type: ignore[arg-type]


@pytest.fixture
def site(serve: Serve) -> LoopbackSite:
    return serve(demo_routes())


@pytest.fixture
def start(embedder: MiniLMEmbedder) -> Iterator[Callable[[Settings], BackgroundServer]]:
    """Start the real app under uvicorn with the given settings; stopped after the test."""
    servers: list[BackgroundServer] = []

    def run(settings: Settings) -> BackgroundServer:
        server = BackgroundServer(create_app(settings, embedder=embedder)).start()
        servers.append(server)
        return server

    yield run
    for server in servers:
        server.stop()


@pytest.fixture
def service(start: Callable[[Settings], BackgroundServer]) -> BackgroundServer:
    return start(_settings())


def test_health_is_ok_and_reveals_no_configuration(service: BackgroundServer) -> None:
    response = httpx.get(service.url + "/health")
    assert response.status_code == 200
    assert set(response.json()) == {"status", "version"}


def test_ready_once_the_model_is_loaded(service: BackgroundServer) -> None:
    response = httpx.get(service.url + "/ready")
    assert response.status_code == 200
    assert response.json()["status"] == "ready"


def test_verify_returns_the_spec_shape_for_the_water_example(
    service: BackgroundServer, site: LoopbackSite
) -> None:
    urls = [site.url("/articles/water-boiling-point"), site.url("/old-report")]
    response = httpx.post(
        service.url + "/verify", json={"claim": WATER_100, "urls": urls}, timeout=30
    )
    assert response.status_code == 200
    body = response.json()
    assert {"claim", "overall", "citations"} <= set(body)
    assert body["claim"] == WATER_100 and body["overall"] == "supported"
    page, dead = body["citations"]
    assert set(page) >= SPEC_FIELDS and set(dead) >= SPEC_FIELDS
    assert page["label"] == "supported" and page["original_status"] == 200
    assert page["evidence_quote"] == WATER_100 and 0 <= page["confidence"] <= 1
    context = page["evidence_context"]
    assert context["passage"][context["start"] : context["end"]] == WATER_100
    assert dead["label"] == "unreachable" and dead["reason"] == "http_404"
    assert dead["original_status"] == 404 and dead["evidence_quote"] is None


def test_verify_labels_the_false_water_claim_contradicted(
    service: BackgroundServer, site: LoopbackSite
) -> None:
    url = site.url("/articles/water-boiling-point")
    body = httpx.post(
        service.url + "/verify", json={"claim": WATER_50, "urls": [url]}, timeout=30
    ).json()
    assert body["overall"] == "contradicted"
    assert body["citations"][0]["evidence_quote"] == WATER_100


def test_a_verdict_under_review_below_comes_back_marked_with_its_reason(
    start: Callable[[Settings], BackgroundServer], site: LoopbackSite
) -> None:
    water, dead = site.url("/articles/water-boiling-point"), site.url("/old-report")
    strict = start(_settings(review_below=1.0))
    body = httpx.post(
        strict.url + "/verify", json={"claim": WATER_50, "urls": [water, dead]}, timeout=30
    ).json()
    judged, unread = body["citations"]
    assert judged["label"] == "contradicted" and judged["confidence"] < 1.0
    assert judged["needs_review"] is True
    assert judged["review_reason"].endswith(
        f"(confidence {judged['confidence']:.2f} < REVIEW_BELOW 1)"
    )
    assert (unread["needs_review"], unread["review_reason"]) == (False, None)  # not judged
    assert body["needs_review"] is True
    answer = {"answer": f"{WATER_50[:-1]} [1].", "citations": [water]}
    statement = httpx.post(strict.url + "/check-answer", json=answer, timeout=30).json()
    [cited] = statement["statements"][0]["citations"]
    assert cited["needs_review"] is True and "< REVIEW_BELOW 1)" in cited["review_reason"]
    relaxed = start(_settings(review_below=0.0))
    body = httpx.post(
        relaxed.url + "/verify", json={"claim": WATER_50, "urls": [water]}, timeout=30
    ).json()
    assert body["needs_review"] is False
    assert (body["citations"][0]["needs_review"], body["citations"][0]["review_reason"]) == (
        False,
        None,
    )


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"claim": "   ", "urls": ["https://example.com/a"]}, "claim: claim must not be blank"),
        ({"claim": "c", "urls": []}, "urls: empty; give at least one URL"),
        (
            {"claim": "c", "urls": ["ftp://example.com/a"]},
            "urls: not an http(s) URL: 'ftp://example.com/a'",
        ),
        ({"claim": "c"}, "urls: missing; give the http(s) URLs cited for the claim, as a list"),
        ({"claim": "c", "urls": ["https://e.com/"], "x": 1}, "x: unknown field"),
        ({"claim": "", "urls": ["https://e.com/"]}, "claim: empty; give the claim to check"),
        (
            {"claim": "c", "urls": "https://e.com/"},
            "urls: not a list; give the http(s) URLs cited for the claim, as a list",
        ),
        ({"claim": "c", "urls": [3]}, "urls.0: not text; give an http(s) URL"),
        (
            {"claim": "c", "urls": ["https://e.com/"], "cited_at": "soon"},
            "cited_at: not a date (YYYY-MM-DD) or an ISO date-time",
        ),
        (["c"], "body: not an object; send a JSON object with the request's fields"),
        ({"claim": "c", "urls": ["https://e.com/"] * 4}, "urls: at most 3 URLs"),
        ({"claim": "c" * 101, "urls": ["https://e.com/"]}, "claim: at most 100 characters"),
    ],
)
def test_invalid_requests_get_422_with_a_clear_message(
    start: Callable[[Settings], BackgroundServer], payload: object, message: str
) -> None:
    service = start(_settings(service_max_urls=3, service_max_claim_chars=100))
    response = httpx.post(service.url + "/verify", json=payload)
    assert response.status_code == 422
    assert message in response.json()["detail"]


def test_a_body_that_is_not_json_gets_422(service: BackgroundServer) -> None:
    response = httpx.post(
        service.url + "/verify", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["detail"].startswith("invalid request:")


@pytest.mark.parametrize("path", ["/verify", "/check-answer"])
def test_malformed_json_is_named_by_line_and_column_not_as_a_field(
    service: BackgroundServer, path: str
) -> None:
    body = b'{"claim": "c",\n "urls": [}'
    headers = {"content-type": "application/json"}
    response = httpx.post(service.url + path, content=body, headers=headers)
    assert response.status_code == 422
    problem = "not valid JSON (line 2, column 11: Expecting value)"
    assert response.json() == {
        "detail": f"invalid request: the body is {problem}",
        "errors": [{"field": "body", "message": problem}],
    }


@pytest.mark.parametrize("path", ["/verify", "/check-answer"])
@pytest.mark.parametrize(
    ("content_type", "sent"),
    [
        ("text/plain", "the body was sent as 'text/plain'"),
        ("application/x-www-form-urlencoded", "'application/x-www-form-urlencoded'"),
        (None, "no Content-Type"),
    ],
)
def test_a_body_not_sent_as_json_gets_415_naming_the_header_to_send(
    service: BackgroundServer, path: str, content_type: str | None, sent: str
) -> None:
    # Valid JSON all the same: the media type is what is refused, and said so.
    body = json.dumps({"claim": "c", "answer": "a", "urls": ["https://e.com/"]}).encode()
    headers = {} if content_type is None else {"content-type": content_type}
    response = httpx.post(service.url + path, content=body, headers=headers)
    assert response.status_code == 415
    detail = response.json()["detail"]
    assert set(response.json()) == {"detail"}
    assert sent in detail and "Content-Type: application/json" in detail
    assert "dictionary" not in detail


def test_a_json_media_type_with_parameters_or_a_suffix_is_read_as_json(
    service: BackgroundServer,
) -> None:
    for content_type in ("application/json; charset=utf-8", "application/problem+json"):
        response = httpx.post(
            service.url + "/verify",
            content=b'{"claim": ""}',
            headers={"content-type": content_type},
        )
        assert response.status_code == 422, content_type
        assert "claim: empty; give the claim to check" in response.json()["detail"]


def test_a_body_over_the_limit_gets_413(start: Callable[[Settings], BackgroundServer]) -> None:
    service = start(_settings(service_max_body_bytes=1000))
    payload = {"claim": "c" * 2000, "urls": ["https://example.com/"]}
    response = httpx.post(service.url + "/verify", json=payload)
    assert response.status_code == 413
    assert "larger than 1000 bytes" in response.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while read
        yield b'{"claim": "'
        yield b"c" * 2000
        yield b'", "urls": ["https://example.com/"]}'

    streamed = httpx.post(
        service.url + "/verify", content=chunks(), headers={"content-type": "application/json"}
    )
    assert streamed.status_code == 413


def test_verify_requires_the_api_key_when_one_is_set(
    start: Callable[[Settings], BackgroundServer], site: LoopbackSite
) -> None:
    service = start(_settings(service_api_key=SecretStr("k3y-for-tests")))
    payload = {"claim": WATER_100, "urls": [site.url("/articles/water-boiling-point")]}
    missing = httpx.post(service.url + "/verify", json=payload)
    wrong = httpx.post(
        service.url + "/verify", json=payload, headers={"Authorization": "Bearer nope"}
    )
    right = httpx.post(
        service.url + "/verify",
        json=payload,
        headers={"Authorization": "Bearer k3y-for-tests"},
        timeout=30,
    )
    assert missing.status_code == 401 and wrong.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert "k3y-for-tests" not in missing.text + wrong.text
    assert right.status_code == 200 and right.json()["overall"] == "supported"
    assert httpx.get(service.url + "/health").status_code == 200


def test_an_unknown_backend_is_refused_before_the_service_starts() -> None:
    # Enumerated settings are checked when they are read: no service answers 503 forever.
    with pytest.raises(ValidationError, match="fetcher"):
        _settings(fetcher="no-such-backend")


@pytest.mark.parametrize(
    ("overrides", "variable"),
    [
        ({"fetcher": "crawlbase", "crawlbase_token": None}, "CRAWLBASE_TOKEN"),
        ({"judge_provider": "openai", "openai_api_key": None}, "OPENAI_API_KEY"),
        ({"judge_provider": "anthropic", "anthropic_api_key": None}, "ANTHROPIC_API_KEY"),
    ],
)
def test_a_backend_chosen_without_its_key_answers_503_naming_the_key(
    start: Callable[[Settings], BackgroundServer], overrides: dict[str, object], variable: str
) -> None:
    service = start(_settings(**overrides))
    payload = {"claim": WATER_100, "urls": ["https://example.com/a"]}
    verify = httpx.post(service.url + "/verify", json=payload)
    assert verify.status_code == 503
    assert variable in verify.json()["detail"]
    assert httpx.get(service.url + "/ready").status_code == 503


async def test_requests_beyond_the_limits_get_429_with_retry_after(
    start: Callable[[Settings], BackgroundServer], serve: Serve
) -> None:
    slow = serve({"/slow": Page(BOILING_HTML, delay_s=0.6)})
    service = start(
        _settings(
            service_max_in_flight=1,
            service_max_waiting=1,
            service_wait_timeout_s=0.2,
            service_retry_after_s=9,
            fetch_cache_ttl_s=0,
        )
    )
    payload = {"claim": WATER_100, "urls": [slow.url("/slow")]}
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        responses = await asyncio.gather(*(client.post("/verify", json=payload) for _ in range(4)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 429, 429, 429]
    refused = [r for r in responses if r.status_code == 429]
    assert all(r.headers["retry-after"] == "9" for r in refused)
    assert {"busy" in r.json()["detail"] or "too many" in r.json()["detail"] for r in refused}
    # Nothing queued without bound: the service still answers afterwards.
    assert httpx.get(service.url + "/health").status_code == 200


async def test_concurrent_requests_for_one_url_fetch_it_once(
    service: BackgroundServer, serve: Serve
) -> None:
    slow = serve({"/slow": Page(BOILING_HTML, delay_s=0.3)})
    payload = {"claim": WATER_100, "urls": [slow.url("/slow")]}
    async with httpx.AsyncClient(base_url=service.url, timeout=30) as client:
        responses = await asyncio.gather(*(client.post("/verify", json=payload) for _ in range(6)))
        later = await client.post("/verify", json=payload)
    assert all(r.status_code == 200 for r in [*responses, later])
    assert {r.json()["overall"] for r in responses} == {"supported"}
    assert slow.hits["/slow"] == 1


def test_metrics_count_requests_verdicts_stages_and_fetch_failures(
    service: BackgroundServer, site: LoopbackSite
) -> None:
    urls = [site.url("/articles/water-boiling-point"), site.url("/old-report")]
    httpx.post(service.url + "/verify", json={"claim": WATER_100, "urls": urls}, timeout=30)
    text = httpx.get(service.url + "/metrics").text
    assert 'cv_verdicts_total{label="supported"} 1.0' in text
    assert 'cv_verdicts_total{label="unreachable"} 1.0' in text
    assert 'cv_claims_total{label="supported"} 1.0' in text
    assert 'cv_fetch_failures_total{reason="http_404"} 1.0' in text
    assert 'cv_http_requests_total{method="POST",route="/verify",status="200"} 1.0' in text
    for stage in ("fetch", "embed", "judge", "verify"):
        assert f'cv_stage_duration_seconds_count{{stage="{stage}"}}' in text


def test_each_request_logs_one_structured_line_with_stage_timings(
    service: BackgroundServer, site: LoopbackSite, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="citation_verifier.access")
    url = site.url("/articles/water-boiling-point")
    response = httpx.post(
        service.url + "/verify", json={"claim": WATER_100, "urls": [url]}, timeout=30
    )
    lines = [
        json.loads(r.getMessage()) for r in caplog.records if r.name == "citation_verifier.access"
    ]
    assert len(lines) == 1
    line = lines[0]
    assert line["request_id"] == response.headers["x-request-id"]
    assert (line["method"], line["path"], line["status"]) == ("POST", "/verify", 200)
    assert {"fetch", "embed", "judge"} <= set(line["stages_ms"])
    assert line["urls"] == 1 and line["overall"] == "supported"
    assert WATER_100 not in caplog.text  # user text stays out of the logs


def test_a_page_cited_for_two_claims_has_its_passages_embedded_once(
    embedder: MiniLMEmbedder, site: LoopbackSite
) -> None:
    recording = CountingEmbedder(embedder)
    server = BackgroundServer(create_app(_settings(), embedder=recording)).start()
    try:
        url = site.url("/articles/water-boiling-point")
        for claim in (WATER_100, WATER_50):
            body = {"claim": claim, "urls": [url]}
            httpx.post(server.url + "/verify", json=body, timeout=30).raise_for_status()
    finally:
        server.stop()
    passages = [t for t in recording.texts if t not in {WATER_100, WATER_50, "warm-up"}]
    assert passages and len(passages) == len(set(passages))


def test_the_web_page_is_served_with_its_assets_and_no_external_resources(
    service: BackgroundServer,
) -> None:
    page = httpx.get(service.url + "/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    references = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert references and all(ref.startswith("/") for ref in references)
    assert '<label for="claim">' in page.text and '<label for="urls">' in page.text
    for ref in references:
        assert httpx.get(service.url + ref).status_code == 200


def test_the_web_pages_review_order_weighs_labels_as_review_priority_does() -> None:
    # The page orders "Look at these first" itself: its weights must be review_priority's (the
    # cost of a wrong verdict of each label: review_priority at confidence 0).
    script = (WEB_DIR / "app.js").read_text(encoding="utf-8")
    found = re.search(r"const REVIEW_WEIGHT = \{([^}]*)\}", script)
    assert found, "REVIEW_WEIGHT not found in app.js"
    weights = {k: float(v) for k, v in re.findall(r"(\w+): ([\d.]+)", found.group(1))}
    expected = {label.value: review_priority(label, 0.0) for label in Label}
    assert {label: weights.get(label, 0.0) for label in expected} == expected
    assert set(weights) <= set(expected)


def test_the_openapi_schema_documents_verify_with_the_water_example(
    service: BackgroundServer,
) -> None:
    schema = httpx.get(service.url + "/openapi.json").json()
    verify = schema["paths"]["/verify"]["post"]
    assert set(verify["responses"]) >= {"200", "401", "413", "422", "429", "503"}
    examples = verify["requestBody"]["content"]["application/json"]["examples"]
    assert examples["water"]["value"]["claim"] == WATER_100
    assert {"/health", "/ready", "/metrics"} <= set(schema["paths"])


def test_an_incoming_request_id_is_kept_and_an_unsafe_one_replaced(
    service: BackgroundServer,
) -> None:
    kept = httpx.get(service.url + "/health", headers={"X-Request-ID": "proxy-42.a:b"})
    assert kept.headers["x-request-id"] == "proxy-42.a:b"
    unsafe = httpx.get(service.url + "/health", headers={"X-Request-ID": "bad id\twith spaces"})
    assert unsafe.headers["x-request-id"] != "bad id\twith spaces"
    assert len(unsafe.headers["x-request-id"]) == 16


def test_check_answer_gives_the_statements_and_precision_of_the_example(
    service: BackgroundServer, site: LoopbackSite
) -> None:
    response = httpx.post(
        service.url + "/check-answer", json={"answer": example_answer(site.base_url)}, timeout=60
    )
    assert response.status_code == 200, response.text
    result = response.json()
    assert [s["overall"] for s in result["statements"]] == [
        "supported",
        "supported",
        "uncited",
        "contradicted",
    ]
    assert result["citation_precision"] == 0.5
    assert set(result["statements"][0]["citations"][0]) >= SPEC_FIELDS
    metrics = httpx.get(service.url + "/metrics").text
    assert 'cv_claims_total{label="uncited"} 1.0' in metrics


def test_check_answer_gives_joint_support_misattribution_and_liu_figures(
    start: Callable[[Settings], BackgroundServer], serve: Serve
) -> None:
    site = serve(answer_routes())
    service = start(_settings(judge_provider="checker"))
    body = {"answer": attributed_answer(site.base_url)}
    result = httpx.post(service.url + "/check-answer", json=body, timeout=60).json()
    statements = result["statements"]
    assert [s["overall"] for s in statements] == ["supported", "not_found", "supported"]
    assert [f["label"] for f in statements[0]["facts"]] == ["supported", "supported"]
    assert [m["source"] for m in statements[1]["misattributed"]] == ["[1]"]
    assert (result["citation_recall"], result["citation_precision_liu"]) == (2 / 3, 0.75)
    assert result["misattributed"] == 1


def test_check_answer_takes_a_citations_array(
    service: BackgroundServer, site: LoopbackSite
) -> None:
    body = {
        "answer": f"{WATER_100[:-1]} [1]. {WATER_50[:-1]} [2].",
        "citations": [
            site.url("/articles/water-boiling-point"),
            {"url": site.url("/articles/water-boiling-point"), "title": "Boiling"},
        ],
    }
    result = httpx.post(service.url + "/check-answer", json=body, timeout=60).json()
    assert [s["overall"] for s in result["statements"]] == ["supported", "contradicted"]
    assert result["unique_urls"] == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"answer": "   "}, "answer"),
        ({}, "answer"),
        ({"answer": "x", "citations": "https://a.test"}, "citations"),
        ({"answer": "x", "unknown": 1}, "unknown"),
    ],
)
def test_check_answer_refuses_an_invalid_body_with_422(
    service: BackgroundServer, body: dict[str, object], field: str
) -> None:
    response = httpx.post(service.url + "/check-answer", json=body)
    assert response.status_code == 422
    assert field in response.json()["detail"]


def test_check_answer_applies_the_answer_and_url_limits(
    start: Callable[[Settings], BackgroundServer],
) -> None:
    service = start(_settings(service_max_answer_chars=40, service_max_urls=1))
    long = httpx.post(service.url + "/check-answer", json={"answer": "x" * 41})
    assert long.status_code == 422 and "at most 40 characters" in long.json()["detail"]
    many = httpx.post(
        service.url + "/check-answer",
        json={
            "answer": "A is B [1]. C is D [2].",
            "citations": ["https://a.test", "https://b.test"],
        },
    )
    assert many.status_code == 422 and "at most 1" in many.json()["detail"]


def test_check_answer_requires_the_api_key_when_one_is_set(
    start: Callable[[Settings], BackgroundServer],
) -> None:
    service = start(_settings(service_api_key=SecretStr("k3y-for-tests")))
    response = httpx.post(service.url + "/check-answer", json={"answer": "Fire is hot."})
    assert response.status_code == 401
    allowed = httpx.post(
        service.url + "/check-answer",
        json={"answer": "Fire is hot."},
        headers={"Authorization": "Bearer k3y-for-tests"},
    )
    assert allowed.status_code == 200 and allowed.json()["uncited"] == 1


def test_the_openapi_schema_documents_check_answer_with_examples(
    service: BackgroundServer,
) -> None:
    schema = httpx.get(service.url + "/openapi.json").json()
    operation = schema["paths"]["/check-answer"]["post"]
    assert set(operation["responses"]) >= {"200", "401", "413", "422", "429", "503"}
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    assert set(examples) == {"sources", "citations"}
    assert "AnswerResult" in schema["components"]["schemas"]


def test_promptfoos_webhook_is_graded_as_the_python_assertion_grades(
    start: Callable[[Settings], BackgroundServer], serve: Serve
) -> None:
    site = serve(answer_routes())
    service = start(_settings(judge_provider="checker"))
    answer = attributed_answer(site.base_url)
    webhook = {"output": answer, "context": {"prompt": "The bridge?", "vars": {"threshold": 0.6}}}
    grade = httpx.post(service.url + "/promptfoo", json=webhook, timeout=60).json()
    checked = httpx.post(service.url + "/check-answer", json={"answer": answer}, timeout=60)
    assert grade == grading_result(checked.json(), 0.6, "citation_recall")
    assert (grade["pass"], grade["score"]) == (True, 2 / 3)
    assert "misattributed: [1] states it" in grade["reason"]  # the verdicts, not just a score
    stricter = httpx.post(
        service.url + "/promptfoo?threshold=0.9&figure=citation_precision_liu",
        json={"output": answer},
        timeout=60,
    ).json()
    assert (stricter["pass"], stricter["score"]) == (False, 0.75)


def test_promptfoos_webhook_takes_the_tests_citations_var(
    service: BackgroundServer, site: LoopbackSite
) -> None:
    url = site.url("/articles/water-boiling-point")
    webhook = {"output": f"{WATER_50[:-1]} [1].", "context": {"vars": {"citations": [url]}}}
    grade = httpx.post(service.url + "/promptfoo", json=webhook, timeout=60).json()
    assert grade["pass"] is False
    assert grade["componentResults"][0]["reason"].startswith("contradicted: ")


@pytest.mark.parametrize(
    ("context", "output", "words"),
    [
        ({}, "   ", "output: "),
        ({"vars": {"citations": "https://a.test"}}, "A is B [1].", "citations: "),
        ({"vars": {"threshold": "high"}}, "A is B.", "threshold: 'high' is not a number"),
        ({"vars": {"threshold": 2}}, "A is B.", "threshold: 2.0 is not between 0 and 1"),
    ],
)
def test_promptfoos_webhook_fails_an_output_it_cannot_check_saying_why(
    service: BackgroundServer, context: dict[str, object], output: str, words: str
) -> None:
    # promptfoo shows a webhook's reason but only the status of an error answer.
    response = httpx.post(service.url + "/promptfoo", json={"output": output, "context": context})
    assert response.status_code == 200
    grade = response.json()
    assert (grade["pass"], grade["score"]) == (False, 0.0)
    assert grade["reason"].startswith("not checked: ") and words in grade["reason"]


def test_promptfoos_webhook_refuses_what_is_not_its_body_and_requires_the_key(
    start: Callable[[Settings], BackgroundServer],
) -> None:
    service = start(_settings(service_api_key=SecretStr("k3y-for-tests")))
    key = {"Authorization": "Bearer k3y-for-tests"}
    missing = httpx.post(service.url + "/promptfoo", json={"context": {}}, headers=key)
    assert missing.status_code == 422 and "output" in missing.json()["detail"]
    figure = httpx.post(service.url + "/promptfoo?figure=f1", json={"output": "A."}, headers=key)
    assert figure.status_code == 422 and "figure" in figure.json()["detail"]
    assert httpx.post(service.url + "/promptfoo", json={"output": "A."}).status_code == 401
