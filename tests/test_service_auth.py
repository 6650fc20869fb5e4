"""What the service's API key protects, and a blank key: never a key an empty bearer matches."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from pydantic import SecretStr, ValidationError

from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.middleware import bearer_matches
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from citation_verifier.terminal import ExitCode


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_service_api_key_is_a_configuration_error(
    blank: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", blank)
    with pytest.raises(ValidationError, match="service_api_key"):
        Settings()


@pytest.mark.parametrize("header", ["Bearer", "Bearer ", "Bearer    ", "bearer \t"])
@pytest.mark.parametrize("key", ["", " ", "k3y-for-tests"])
def test_an_empty_bearer_never_authenticates(header: str, key: str) -> None:
    assert not bearer_matches(header, SecretStr(key))


def test_serve_refuses_a_blank_api_key_by_name() -> None:
    process = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "serve", "--port", "0"],
        env={**os.environ, "SERVICE_API_KEY": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == ExitCode.CONFIG, process.stderr
    assert "SERVICE_API_KEY" in process.stderr and "listening" not in process.stdout


KEY = "k3y-for-tests"


@pytest.fixture(scope="module")
def keyed_service(embedder: MiniLMEmbedder) -> Iterator[BackgroundServer]:
    """A keyed service that cannot get ready (JUDGE_PROVIDER=openai without its key)."""
    settings = Settings(service_api_key=SecretStr(KEY), judge_provider="openai")
    with BackgroundServer(create_app(settings, embedder=embedder)) as server:
        yield server


def test_the_api_key_protects_metrics(keyed_service: BackgroundServer) -> None:
    url = keyed_service.url + "/metrics"
    assert httpx.get(url).status_code == 401
    assert httpx.get(url, headers={"Authorization": "Bearer"}).status_code == 401
    allowed = httpx.get(url, headers={"Authorization": f"Bearer {KEY}"})
    assert allowed.status_code == 200 and "cv_http_requests_total" in allowed.text


def test_ready_without_the_key_says_not_ready_but_not_why(
    keyed_service: BackgroundServer,
) -> None:
    url = keyed_service.url + "/ready"
    anonymous = httpx.get(url)
    told = httpx.get(url, headers={"Authorization": f"Bearer {KEY}"})
    assert anonymous.status_code == told.status_code == 503
    assert anonymous.json()["detail"] is None and "OPENAI_API_KEY" not in anonymous.text
    assert "OPENAI_API_KEY" in told.json()["detail"]


@pytest.mark.parametrize("path", ["/health", "/", "/openapi.json", "/static/app.js"])
def test_liveness_the_page_and_the_schema_stay_open(
    keyed_service: BackgroundServer, path: str
) -> None:
    assert httpx.get(keyed_service.url + path).status_code == 200
