"""Replay by snapshot id or rid: local snapshot first, Crawlbase's ``replay_rid`` otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from citation_verifier.audit.recorder import Auditor
from citation_verifier.audit.replay import _as_bytes, _call_replay_rid, replay
from citation_verifier.audit.snapshots import SnapshotError, SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.errors import ConfigurationError
from citation_verifier.fetch.policy import Document
from citation_verifier.models import Label, UrlVerdict
from citation_verifier.passages import split_passages
from citation_verifier.settings import Settings

PAGE = "# Boiling\n\nWater boils at 100 degrees Celsius at sea level.\n"


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[SqlAuditStore, SnapshotStore, Settings, str]:
    """A store holding one judged record with Crawlbase rid ``rid-42`` and its snapshot."""
    settings = Settings(cache_dir=tmp_path)
    store = SqlAuditStore(f"sqlite:///{tmp_path / 'audit.db'}")
    snapshots = SnapshotStore(tmp_path / "snapshots")
    auditor = Auditor(settings, store=store, snapshots=snapshots)
    document = Document("https://e.com/a", "https://e.com/a", 200, PAGE, "html", rid="rid-42")
    verdict = UrlVerdict(
        url="https://e.com/a",
        label=Label.SUPPORTED,
        evidence_quote="Water boils at 100 degrees Celsius at sea level.",
        confidence=0.9,
        rid="rid-42",
    )
    recorded = auditor.record_sync(
        "Water boils at 100 °C.", verdict, document, split_passages(PAGE), "local/x"
    )
    assert recorded.audit_id is not None
    return store, snapshots, settings, recorded.audit_id


def test_a_snapshot_id_replays_the_local_copy(
    recorded: tuple[SqlAuditStore, SnapshotStore, Settings, str],
) -> None:
    store, snapshots, settings, audit_id = recorded
    record = store.get(audit_id)
    assert record is not None and record.snapshot_id is not None
    page = replay(record.snapshot_id.upper(), store, snapshots, settings)
    assert (page.content.decode(), page.source) == (PAGE, "snapshot")


def test_a_rid_with_a_local_snapshot_never_calls_crawlbase(
    recorded: tuple[SqlAuditStore, SnapshotStore, Settings, str],
) -> None:
    store, snapshots, settings, _ = recorded
    page = replay(" rid-42 ", store, snapshots, settings)
    assert (page.content.decode(), page.source) == (PAGE, "snapshot")


def test_an_empty_target_is_a_value_error(
    recorded: tuple[SqlAuditStore, SnapshotStore, Settings, str],
) -> None:
    store, snapshots, settings, _ = recorded
    with pytest.raises(ValueError, match="empty"):
        replay("  ", store, snapshots, settings)


def test_a_pruned_snapshot_id_is_a_snapshot_error(
    recorded: tuple[SqlAuditStore, SnapshotStore, Settings, str],
) -> None:
    store, snapshots, settings, _ = recorded
    with pytest.raises(SnapshotError, match="not stored"):
        replay("0" * 64, store, snapshots, settings)


def test_an_unknown_rid_without_a_token_names_crawlbase_token(
    recorded: tuple[SqlAuditStore, SnapshotStore, Settings, str],
) -> None:
    store, snapshots, settings, _ = recorded
    with pytest.raises(ConfigurationError, match="CRAWLBASE_TOKEN"):
        replay("rid-unknown", store, snapshots, settings)


def test_replay_rid_is_called_with_the_rid_and_settings_when_it_takes_them() -> None:
    settings = Settings()
    seen: list[object] = []

    def plain(rid: str) -> str:
        seen.append(rid)
        return "page of " + rid

    def with_settings(rid: str, settings: Settings) -> bytes:
        seen.append(settings)
        return b"raw"

    assert _call_replay_rid(plain, "r1", settings) == "page of r1"
    assert _call_replay_rid(with_settings, "r2", settings) == b"raw"
    assert seen == ["r1", settings]


def test_an_async_replay_rid_is_awaited() -> None:
    async def replay_rid(rid: str) -> str:
        return f"async page {rid}"

    assert _call_replay_rid(replay_rid, "r3", Settings()) == "async page r3"


def test_replayed_pages_of_any_shape_become_bytes() -> None:
    class Stored:
        markdown = "# stored"

    assert _as_bytes("text") == b"text"
    assert _as_bytes(b"bytes") == b"bytes"
    assert _as_bytes(Stored()) == b"# stored"
