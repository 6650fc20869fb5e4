"""The Verifier records every verdict: a row per citation, judged or settled, with snapshots."""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from citation_verifier.audit.recorder import (
    Auditor,
    audit_db_url,
    snapshot_dir,
    split_judge_name,
    verdict_settings,
)
from citation_verifier.audit.records import AuditRecord
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.models import Label, VerifyRequest
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

from .conftest import make_record

CLAIM = "Water boils at 100 degrees Celsius at sea level."


async def _verify(
    settings: Settings, embedder: MiniLMEmbedder, claim: str, urls: list[str]
) -> list[str | None]:
    async with build_verifier(settings, embedder=embedder) as verifier:
        result = await verifier.verify(VerifyRequest(claim=claim, urls=urls))
    return [c.audit_id for c in result.citations]


def _records(settings: Settings) -> dict[str, AuditRecord]:
    store = SqlAuditStore(audit_db_url(settings))
    try:
        return {r.id: r for r in store.query()}
    finally:
        store.close()


async def test_every_citation_gets_a_row_judged_or_settled(
    site: LoopbackSite, audit_settings: Settings, embedder: MiniLMEmbedder
) -> None:
    urls = [site.url(p) for p in ("/boiling", "/gone", "/moved")]
    ids = await _verify(audit_settings, embedder, CLAIM, urls)
    records = _records(audit_settings)
    assert all(ids) and set(records) == set(ids)
    judged, gone, moved = (records[i] for i in ids if i)
    assert (judged.label, judged.url, judged.claim) == (Label.SUPPORTED, urls[0], CLAIM)
    assert (gone.label, gone.reason, gone.original_status) == (Label.UNREACHABLE, "http_404", 404)
    assert (moved.label, moved.reason) == (Label.NOT_FOUND, "redirected_to_homepage")
    for settled in (gone, moved):
        assert settled.snapshot_id is None and settled.rid is None and settled.passages == []
        assert settled.judge_provider is None


async def test_the_judged_row_records_snapshot_passages_quote_and_judge(
    site: LoopbackSite, audit_settings: Settings, embedder: MiniLMEmbedder
) -> None:
    (audit_id,) = await _verify(audit_settings, embedder, CLAIM, [site.url("/boiling")])
    assert audit_id is not None
    record = _records(audit_settings)[audit_id]
    snapshots = SnapshotStore(snapshot_dir(audit_settings))
    assert record.snapshot_id is not None
    page = snapshots.get_text(record.snapshot_id)
    assert "Water boils at 100 degrees Celsius at sea level." in page
    assert "Home" not in page  # the extracted Markdown, not the HTML
    assert record.evidence_quote is not None
    assert record.quote_start is not None and record.quote_end is not None
    assert page[record.quote_start : record.quote_end] == record.evidence_quote
    assert record.passages
    for ref in record.passages:
        text = page[ref.start : ref.end]
        assert hashlib.sha256(text.encode()).hexdigest() == ref.sha256
    assert (record.judge_provider, record.judge_model) == ("local", "lexical-minilm")
    assert record.content_kind == "html" and record.content_type == "text/html"
    assert record.raw_snapshot_id is not None
    assert snapshots.get(record.raw_snapshot_id).startswith(b"<!doctype html>")
    assert record.settings["top_k"] == 3 and record.settings["passage_max_words"] == 200
    assert record.software_version
    assert record.created_at.utcoffset() is not None


async def test_identical_pages_share_one_snapshot(
    site: LoopbackSite, audit_settings: Settings, embedder: MiniLMEmbedder
) -> None:
    ids = await _verify(
        audit_settings, embedder, CLAIM, [site.url("/boiling"), site.url("/boiling-copy")]
    )
    records = _records(audit_settings)
    first, second = (records[i] for i in ids if i)
    assert first.snapshot_id == second.snapshot_id
    assert first.raw_snapshot_id == second.raw_snapshot_id
    assert len(list(SnapshotStore(snapshot_dir(audit_settings)).ids())) == 2  # markdown + raw


async def test_raw_body_snapshots_can_be_turned_off(
    site: LoopbackSite, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = Settings(allow_private_urls=True, cache_dir=tmp_path, snapshot_raw_body=False)
    (audit_id,) = await _verify(settings, embedder, CLAIM, [site.url("/boiling")])
    assert audit_id is not None
    record = _records(settings)[audit_id]
    assert record.snapshot_id is not None and record.raw_snapshot_id is None
    assert list(SnapshotStore(snapshot_dir(settings)).ids()) == [record.snapshot_id]


async def test_auditing_off_writes_nothing(
    site: LoopbackSite, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = Settings(allow_private_urls=True, cache_dir=tmp_path, audit_enabled=False)
    ids = await _verify(settings, embedder, CLAIM, [site.url("/boiling"), site.url("/gone")])
    assert ids == [None, None]
    assert list(tmp_path.iterdir()) == []


async def test_store_and_snapshot_locations_follow_settings(
    site: LoopbackSite, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = Settings(
        allow_private_urls=True,
        cache_dir=tmp_path / "unused",
        audit_db_url=f"sqlite:///{tmp_path / 'db' / 'trail.db'}",
        snapshot_dir=tmp_path / "pages",
    )
    (audit_id,) = await _verify(settings, embedder, CLAIM, [site.url("/boiling")])
    assert (tmp_path / "db" / "trail.db").is_file()
    assert any((tmp_path / "pages").rglob("*.zst"))
    assert not (tmp_path / "unused").exists()
    assert audit_id in _records(settings)


async def test_a_verifier_given_an_auditor_records_into_it(
    site: LoopbackSite, tmp_path: Path, audit_settings: Settings, embedder: MiniLMEmbedder
) -> None:
    store = SqlAuditStore(f"sqlite:///{tmp_path / 'own.db'}")
    auditor = Auditor(audit_settings, store=store, snapshots=SnapshotStore(tmp_path / "own"))
    async with Verifier(audit_settings, embedder=embedder, observer=auditor) as verifier:
        verdict = await verifier.verify_url(CLAIM, site.url("/gone"))
    # The store handed in stays open for its owner after the Verifier closed.
    assert [r.id for r in store.query()] == [verdict.audit_id]
    store.close()
    assert not (audit_settings.cache_dir / "audit.db").exists()  # the default store never opened


def test_the_default_store_lives_under_the_cache_dir(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    assert audit_db_url(settings) == f"sqlite:///{tmp_path / 'audit.db'}"
    assert snapshot_dir(settings) == tmp_path / "snapshots"


def test_recorded_settings_hold_thresholds_but_no_secrets_or_paths(tmp_path: Path) -> None:
    settings = Settings(
        cache_dir=tmp_path,
        audit_db_url="postgresql://u:hunter2@db/audit",
        snapshot_dir=tmp_path / "s",
    )
    recorded = verdict_settings(settings)
    for name in ("top_k", "passage_max_words", "lexical_judge_support_threshold", "judge_provider"):
        assert name in recorded
    for name in ("cache_dir", "audit_db_url", "snapshot_dir", "audit_enabled"):
        assert name not in recorded
    assert "hunter2" not in repr(recorded)


def test_judge_names_split_into_provider_and_model() -> None:
    assert split_judge_name("openai/gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert split_judge_name("local") == ("local", None)
    assert split_judge_name(None) == (None, None)


async def test_records_older_than_the_retention_are_deleted_once_a_day(
    site: LoopbackSite, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = Settings(allow_private_urls=True, cache_dir=tmp_path, audit_retention_days=30)
    store = SqlAuditStore(audit_db_url(settings))
    snapshots = SnapshotStore(snapshot_dir(settings))
    old_snapshot = snapshots.put(b"a page seen long ago")
    old_time = datetime.now(UTC) - timedelta(days=31)
    os.utime(snapshots.path(old_snapshot), (old_time.timestamp(), old_time.timestamp()))
    old = make_record(created_at=old_time, snapshot_id=old_snapshot, raw_snapshot_id=None)
    recent = make_record(created_at=datetime.now(UTC) - timedelta(days=29), snapshot_id=None)
    store.add(old)
    store.add(recent)
    (new_id,) = await _verify(settings, embedder, CLAIM, [site.url("/boiling")])
    assert {r.id for r in store.iterate()} == {recent.id, new_id}
    assert not snapshots.exists(old_snapshot)
    # Checked once a day: a record that ages out now stays until the next day's check.
    store.add(make_record(created_at=old_time))
    await _verify(settings, embedder, CLAIM, [site.url("/boiling")])
    assert store.count() == 4
    store.close()


async def test_a_retention_of_zero_keeps_everything(
    site: LoopbackSite, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    settings = Settings(allow_private_urls=True, cache_dir=tmp_path, audit_retention_days=0)
    store = SqlAuditStore(audit_db_url(settings))
    store.add(make_record(created_at=datetime.now(UTC) - timedelta(days=3650)))
    await _verify(settings, embedder, CLAIM, [site.url("/boiling")])
    assert store.count() == 2
    store.close()
