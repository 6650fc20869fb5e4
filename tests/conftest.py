"""Shared fixtures: real loopback sites, settings that allow loopback, the real embedder, and
the audit databases (SQLite, and PostgreSQL on a server the run starts)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from pg_server import PostgresUnavailable, throwaway_postgres

PG_ENV = "AUDIT_TEST_PG_URL"


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
        # Pages in other languages are not judged (unsupported_language) unless a test asks for
        # a language judge (test_languages.py): the embedded LLM is slow to load.
        patch.setenv("LANGUAGE_JUDGE", "none")
        # Dead links are not looked up in the Wayback Machine (the internet) unless a test
        # points ARCHIVE_URL at its loopback fake and turns the fallback on.
        patch.setenv("ARCHIVE_FALLBACK", "never")
        yield


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server for the run: AUDIT_TEST_PG_URL when set, else one started here on a
    loopback port (Debian's binaries, ``make postgres``) and stopped at the end."""
    if os.environ.get(PG_ENV):
        yield os.environ[PG_ENV]
        return
    try:
        with throwaway_postgres() as url:
            yield url
    except PostgresUnavailable as error:  # raised before the yield: the server never started
        pytest.skip(str(error))


def pg_url_for_schema(base: str, schema: str) -> str:
    """``base`` with the PostgreSQL search path set to ``schema`` (psycopg passes ``options``)."""
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False)


@pytest.fixture
def pg_schema_url(postgres_url: str) -> Iterator[str]:
    """A URL on the test server whose tables live in a fresh schema, dropped afterwards."""
    schema = f"audit_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_url)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield pg_url_for_schema(postgres_url, schema)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database URL of each backend under test."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'audit.db'}"
    url: str = request.getfixturevalue("pg_schema_url")
    return url
