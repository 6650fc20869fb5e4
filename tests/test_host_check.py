"""The service answers only the Host names it is meant to (DNS rebinding): on loopback the
loopback names, else SERVICE_ALLOWED_HOSTS, else any; others get 421."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.hosts import allowed_hosts, host_name
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings


@pytest.fixture(scope="module")
def loopback_service(embedder: MiniLMEmbedder) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_app(Settings(), embedder=embedder)) as server:
        yield server


def _status(service: BackgroundServer, host: str) -> int:
    return httpx.get(service.url + "/health", headers={"Host": host}).status_code


@pytest.mark.parametrize("host", ["rebound.example", "rebound.example:8000", "127.0.0.2", ""])
def test_a_loopback_service_refuses_a_foreign_host_with_421(
    loopback_service: BackgroundServer, host: str
) -> None:
    assert _status(loopback_service, host) == 421


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost:8000", "[::1]:8000", "LOCALHOST"])
def test_a_loopback_service_answers_loopback_names(
    loopback_service: BackgroundServer, host: str
) -> None:
    assert _status(loopback_service, host) == 200


def test_allowed_hosts_name_the_hosts_a_service_answers(embedder: MiniLMEmbedder) -> None:
    settings = Settings(service_allowed_hosts=["cv.example.org"])
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        assert _status(service, "cv.example.org:443") == 200
        assert _status(service, "127.0.0.1") == 421


def test_a_service_on_every_interface_answers_any_host_unless_told() -> None:
    assert allowed_hosts("0.0.0.0", []) is None
    assert allowed_hosts("0.0.0.0", ["*"]) == frozenset({"*"})
    assert allowed_hosts("::1", []) == allowed_hosts("localhost", [])


@pytest.mark.parametrize(
    ("header", "name"),
    [("Example.com:80", "example.com"), ("[::1]:8000", "[::1]"), ("[::1]", "[::1]"), ("a", "a")],
)
def test_host_name_drops_the_port(header: str, name: str) -> None:
    assert host_name(header) == name


def test_allowed_hosts_are_read_from_the_environment_as_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SERVICE_ALLOWED_HOSTS", '["cv.example.org", "cv.internal"]')
    assert Settings().service_allowed_hosts == ["cv.example.org", "cv.internal"]
