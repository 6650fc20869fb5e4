"""Property test of the API from its own OpenAPI schema (schemathesis): for any generated
input, valid or not, the service answers without a 5xx, with a documented status code, and
with a body that matches the documented schema. Bounded: a fixed number of examples."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import hypothesis
import pytest
import schemathesis
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import WATER_REQUEST, create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings

EXAMPLES = 60
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def service(embedder: MiniLMEmbedder) -> Iterator[BackgroundServer]:
    # Default SSRF guard on: generated URLs are resolved and refused, or fail to resolve;
    # nothing leaves the machine. Short timeouts keep the run bounded.
    settings = Settings(fetch_timeout_s=1.0, connect_timeout_s=0.5, fetch_cache_ttl_s=0)
    with BackgroundServer(create_app(settings, embedder=embedder)) as server:
        yield server


@pytest.mark.parametrize(
    ("path", "method"), [("/verify", "POST"), ("/health", "GET"), ("/ready", "GET")]
)
def test_no_generated_input_gets_a_5xx_or_an_undocumented_answer(
    service: BackgroundServer, path: str, method: str
) -> None:
    schema = schemathesis.openapi.from_url(service.url + "/openapi.json")
    operation = schema[path][method]
    cases = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )

    statuses: set[int] = set()

    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    @hypothesis.given(case=cases)
    def check(case: schemathesis.Case[Any]) -> None:
        response = case.call_and_validate(base_url=service.url, checks=CHECKS, timeout=30)
        statuses.add(response.status_code)

    check()
    # Whether generation replays the schema's own example (the only generated body that reaches
    # the pipeline) changed with what else the run imported: the documented example is sent
    # once in every run, so the pipeline is always reached.
    documented = (
        # Through JSON: the body as the JSON value schemathesis types it.
        operation.Case(body=json.loads(json.dumps(WATER_REQUEST)), media_type="application/json")
        if method == "POST"
        else operation.Case()
    )
    statuses.add(documented.call_and_validate(base_url=service.url, checks=CHECKS).status_code)
    # The run reached the pipeline (200) and, for /verify, the validation (422) too.
    assert 200 in statuses
    assert path != "/verify" or 422 in statuses
