"""Shared fixtures: real loopback sites, settings that allow loopback, the real embedder."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import pytest

from citation_verifier.loopback import LoopbackSite, Route
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    """The real all-MiniLM-L6-v2 embedder, loaded once for the whole run."""
    return MiniLMEmbedder()


@pytest.fixture
def settings() -> Settings:
    """Loopback allowed (tests serve pages on 127.0.0.1), short timeouts."""
    return Settings(allow_private_urls=True, fetch_timeout_s=2.0, connect_timeout_s=1.0)


@pytest.fixture
def serve() -> Iterator[Callable[[Mapping[str, Route]], LoopbackSite]]:
    """Start a LoopbackSite with the given routes; every site is stopped after the test."""
    sites: list[LoopbackSite] = []

    def start(routes: Mapping[str, Route]) -> LoopbackSite:
        site = LoopbackSite(routes).start()
        sites.append(site)
        return site

    yield start
    for site in sites:
        site.stop()


@pytest.fixture(autouse=True, scope="session")
def _test_environment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests never write under the user's home: CACHE_DIR (audit store, snapshots, ...) is a
    temporary folder for the whole run."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        # The pipeline's tests run the fast lexical judge; the embedded LLM judge's own tests
        # (test_embedded_judge.py) ask for JUDGE_PROVIDER=local explicitly.
        patch.setenv("JUDGE_PROVIDER", "lexical")
        yield
