"""No secret reaches the audit store or the snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest

from citation_verifier.audit.recorder import Auditor, secret_values, snapshot_dir
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.models import VerifyRequest
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

DB_PASSWORD = "pw-0f3c9a7e51"
TOKENS = {"CRAWLBASE_TOKEN": "cbtok-7d1e2f", "OPENAI_API_KEY": "sk-test-9a8b7c"}


def _all_stored_bytes(settings: Settings) -> bytes:
    """The database files and every snapshot, decompressed."""
    blobs = [p.read_bytes() for p in settings.cache_dir.glob("audit.db*")]
    snapshots = SnapshotStore(snapshot_dir(settings))
    blobs += [snapshots.get(sid) for sid in snapshots.ids()]
    return b"\n".join(blobs)


async def test_tokens_and_passwords_never_reach_the_store_or_snapshots(
    site: LoopbackSite,
    tmp_path: Path,
    embedder: MiniLMEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in TOKENS.items():
        monkeypatch.setenv(name, value)
    settings = Settings(
        allow_private_urls=True,
        cache_dir=tmp_path,
        audit_db_url=f"postgresql+psycopg://auditor:{DB_PASSWORD}@db.internal/audit",
    )
    assert DB_PASSWORD in secret_values(settings)
    # The team's database is not reachable from a test: the same recorder writes to SQLite.
    store = SqlAuditStore(f"sqlite:///{tmp_path / 'audit.db'}")
    auditor = Auditor(settings, store=store, snapshots=SnapshotStore(snapshot_dir(settings)))
    # The password even appears in a cited URL: the recorder redacts it there too.
    urls = [site.url("/boiling"), site.url(f"/gone?password={DB_PASSWORD}")]
    claim = "Water boils at 100 degrees Celsius at sea level."
    async with Verifier(settings, embedder=embedder, observer=auditor) as verifier:
        result = await verifier.verify(VerifyRequest(claim=claim, urls=urls))
    assert all(c.audit_id for c in result.citations)
    stored = _all_stored_bytes(settings)
    assert b"Water boils at 100" in stored  # the check reads real content
    for secret in (DB_PASSWORD, *TOKENS.values()):
        assert secret.encode() not in stored
    reopened = SqlAuditStore(f"sqlite:///{tmp_path / 'audit.db'}")
    records = reopened.query()
    reopened.close()
    assert len(records) == 2
    assert any(r.url.endswith("password=***") for r in records)
