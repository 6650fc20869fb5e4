"""Fixtures of the audit tests: a store on SQLite and on PostgreSQL (a server the run starts,
or AUDIT_TEST_PG_URL), snapshot stores, and a small real site."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from citation_verifier.audit.records import AuditRecord, PassageRef
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.models import Label
from citation_verifier.settings import Settings

ARTICLE = """<!doctype html><html><head><title>Boiling</title></head><body>
<nav><a href="/">Home</a></nav><main><article><h1>The boiling point of water</h1>
<p>Water boils at 100 degrees Celsius at sea level. This is the standard boiling point,
measured at a pressure of one standard atmosphere.</p>
<p>At higher altitudes the air pressure is lower, so water boils at a lower temperature. In
Denver water boils at roughly 95 degrees Celsius, which is why pasta takes longer to cook.</p>
<p>Dissolving salt in water raises its boiling point slightly, by less than one degree for the
amounts used in cooking.</p></article></main><footer>© Example</footer></body></html>"""

OCEAN = """<!doctype html><html><head><title>Oceans</title></head><body><main><article>
<h1>Oceans of the world</h1>
<p>The Pacific Ocean is the largest and deepest ocean on Earth, covering about 165 million
square kilometres. The Atlantic Ocean is the second largest.</p>
<p>The Arctic Ocean is the smallest and shallowest of the five oceans. Sea ice covers much of
it for most of the year, and its extent has shrunk over recent decades.</p>
<p>The Southern Ocean surrounds Antarctica. Its cold currents connect the Atlantic, Pacific and
Indian oceans and play a central role in the global circulation of heat.</p>
</article></main></body></html>"""


def site_routes() -> dict[str, Route]:
    """Judged pages, a dead link and a homepage redirect."""
    return {
        "/": Page("<html><body><h1>Home</h1><p>Welcome.</p></body></html>"),
        "/boiling": Page(ARTICLE),
        "/boiling-copy": Page(ARTICLE),
        "/oceans": Page(OCEAN),
        "/gone": Page("<html><body><h1>Not Found</h1></body></html>", status=404),
        "/moved": Page(status=301, content_type=None, headers={"Location": "/"}),
    }


@pytest.fixture
def site(serve: Callable[[Mapping[str, Route]], LoopbackSite]) -> LoopbackSite:
    """The audit tests' site on 127.0.0.1."""
    return serve(site_routes())


@pytest.fixture
def audit_settings(tmp_path: Path) -> Settings:
    """Loopback allowed, short timeouts, audit store and snapshots in this test's folder."""
    return Settings(
        allow_private_urls=True, fetch_timeout_s=2.0, connect_timeout_s=1.0, cache_dir=tmp_path
    )


@pytest.fixture
def snapshots(tmp_path: Path) -> SnapshotStore:
    """An empty snapshot store."""
    return SnapshotStore(tmp_path / "snapshots")


@pytest.fixture
def store(store_url: str) -> Iterator[SqlAuditStore]:
    """An empty, migrated store on each backend."""
    opened = SqlAuditStore(store_url, page_size=3)
    yield opened
    opened.close()


def make_record(**overrides: Any) -> AuditRecord:
    """A judged record with plausible values; ``overrides`` replace any field."""
    fields: dict[str, Any] = {
        "id": uuid.uuid4().hex,
        "created_at": datetime.now(UTC),
        "claim": "Water boils at 100 degrees Celsius at sea level.",
        "url": "https://example.com/boiling",
        "final_url": "https://example.com/boiling",
        "original_status": 200,
        "label": Label.SUPPORTED,
        "confidence": 0.9,
        "evidence_quote": "Water boils at 100 degrees Celsius at sea level.",
        "quote_start": 10,
        "quote_end": 58,
        "snapshot_id": "a" * 64,
        "content_kind": "html",
        "judge_provider": "local",
        "judge_model": "lexical-minilm",
        "passages": [PassageRef(index=0, start=0, end=100, sha256="b" * 64)],
        "software_version": "0.1.0",
        "settings": {"top_k": 3},
    }
    fields.update(overrides)
    return AuditRecord(**fields)
