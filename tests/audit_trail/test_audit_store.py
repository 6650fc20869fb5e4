"""The SQLAlchemy Core audit store, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from citation_verifier.audit.database import current_revision, head_revision, safe_url
from citation_verifier.audit.records import AuditFilter, PassageRef
from citation_verifier.audit.store import AmbiguousIdError, SqlAuditStore
from citation_verifier.errors import ConfigurationError
from citation_verifier.models import Label

from .conftest import make_record


def test_a_record_round_trips_with_every_field(store: SqlAuditStore) -> None:
    record = make_record(
        reason=None,
        detail="why",
        rid="rid-123",
        raw_snapshot_id="c" * 64,
        credits=1.5,
        rendered=True,
        passages=[
            PassageRef(index=2, start=5, end=50, sha256="d" * 64),
            PassageRef(index=0, start=0, end=4, sha256="e" * 64),
        ],
        settings={"top_k": 3, "lexical_judge_support_threshold": 0.8},
    )
    store.add(record)
    assert store.get(record.id) == record


def test_times_are_stored_and_returned_in_utc(store: SqlAuditStore) -> None:
    local = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone(timedelta(hours=5)))
    record = make_record(created_at=local)
    store.add(record)
    got = store.get(record.id)
    assert got is not None
    assert got.created_at == local and got.created_at.tzinfo is not None
    assert got.created_at.utcoffset() == timedelta(0)


def test_naive_times_are_refused() -> None:
    from citation_verifier.audit.schema import UtcDateTime

    with pytest.raises(ValueError, match="timezone-aware"):
        UtcDateTime().process_bind_param(datetime(2026, 1, 1), create_engine("sqlite://").dialect)


def test_a_settled_record_has_no_snapshot_and_no_judge(store: SqlAuditStore) -> None:
    record = make_record(
        label=Label.UNREACHABLE,
        reason="http_404",
        confidence=1.0,
        evidence_quote=None,
        quote_start=None,
        quote_end=None,
        snapshot_id=None,
        judge_provider=None,
        judge_model=None,
        passages=[],
        original_status=404,
    )
    store.add(record)
    got = store.get(record.id)
    assert got is not None and not got.judged and got.rid is None and got.snapshot_id is None


def test_get_accepts_a_unique_id_prefix(store: SqlAuditStore) -> None:
    first = make_record(id="abc" + "0" * 29)
    second = make_record(id="abd" + "0" * 29)
    store.add(first)
    store.add(second)
    assert store.get("abc") == first
    assert store.get("ABD0") == second
    assert store.get("abe") is None
    assert store.get("   ") is None
    with pytest.raises(AmbiguousIdError, match="several"):
        store.get("ab")


def test_get_treats_like_wildcards_literally(store: SqlAuditStore) -> None:
    store.add(make_record(id="abc" + "0" * 29))
    assert store.get("%") is None
    assert store.get("_bc") is None


def test_query_filters_by_label_url_claim_and_time(store: SqlAuditStore) -> None:
    now = datetime.now(UTC)
    old = make_record(created_at=now - timedelta(days=10), url="https://old.example/A")
    contradicted = make_record(
        label=Label.CONTRADICTED, claim="Water boils at 50 degrees", final_url="https://b.org/x"
    )
    plain = make_record(url="https://c.example/100%_sure")
    for record in (old, contradicted, plain):
        store.add(record)

    def ids(where: AuditFilter) -> set[str]:
        return {r.id for r in store.query(where)}

    assert ids(AuditFilter(label=Label.CONTRADICTED)) == {contradicted.id}
    assert ids(AuditFilter(url="OLD.example")) == {old.id}
    assert ids(AuditFilter(url="b.org")) == {contradicted.id}  # the final URL counts too
    assert ids(AuditFilter(url="100%_")) == {plain.id}  # no LIKE wildcards
    assert ids(AuditFilter(claim="50 DEGREES")) == {contradicted.id}
    assert ids(AuditFilter(since=now - timedelta(days=1))) == {contradicted.id, plain.id}
    assert ids(AuditFilter(until=now - timedelta(days=1))) == {old.id}
    assert ids(AuditFilter(label=Label.SUPPORTED, since=now - timedelta(days=1))) == {plain.id}
    assert store.count(AuditFilter(label=Label.SUPPORTED)) == 2
    assert store.count() == 3


def test_query_is_newest_first_and_limited(store: SqlAuditStore) -> None:
    now = datetime.now(UTC)
    records = [make_record(created_at=now - timedelta(minutes=i)) for i in range(5)]
    for record in reversed(records):
        store.add(record)
    assert [r.id for r in store.query()] == [r.id for r in records]
    assert [r.id for r in store.query(limit=2)] == [r.id for r in records[:2]]


def test_iterate_pages_through_every_record_oldest_first(store: SqlAuditStore) -> None:
    # The fixture's page size is 3: 8 records need three pages, two sharing a timestamp.
    now = datetime.now(UTC)
    records = [make_record(created_at=now - timedelta(seconds=i // 2)) for i in range(8)]
    for record in records:
        store.add(record)
    got = list(store.iterate())
    assert len(got) == 8 and {r.id for r in got} == {r.id for r in records}
    assert [r.created_at for r in got] == sorted(r.created_at for r in records)
    assert [r.id for r in store.iterate(AuditFilter(url="nothing"))] == []


def test_delete_before_removes_only_older_records(store: SqlAuditStore) -> None:
    now = datetime.now(UTC)
    old = make_record(created_at=now - timedelta(days=100))
    new = make_record(created_at=now)
    store.add(old)
    store.add(new)
    assert store.delete_before(now - timedelta(days=90)) == 1
    assert [r.id for r in store.query()] == [new.id]


def test_snapshot_ids_in_use_lists_markdown_and_raw_snapshots(store: SqlAuditStore) -> None:
    store.add(make_record(snapshot_id="1" * 64, raw_snapshot_id="2" * 64))
    store.add(make_record(snapshot_id="1" * 64))
    store.add(make_record(snapshot_id=None, passages=[]))
    assert store.snapshot_ids_in_use() == {"1" * 64, "2" * 64}


def test_a_new_database_is_migrated_to_the_shipped_head(store_url: str) -> None:
    store = SqlAuditStore(store_url)
    store.close()
    engine = create_engine(store_url)
    try:
        assert head_revision() == "0001"
        assert current_revision(engine) == "0001"
        assert "audit_decisions" in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_reopening_a_migrated_database_keeps_its_records(store_url: str) -> None:
    record = make_record()
    first = SqlAuditStore(store_url)
    first.add(record)
    first.close()
    second = SqlAuditStore(store_url)
    assert second.get(record.id) == record
    second.close()


def test_sqlite_store_uses_wal_journal(tmp_path: Path) -> None:
    store = SqlAuditStore(f"sqlite:///{tmp_path / 'a' / 'b' / 'audit.db'}")  # folders created
    store.add(make_record())
    store.close()
    engine = create_engine(f"sqlite:///{tmp_path / 'a' / 'b' / 'audit.db'}")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    engine.dispose()


def test_an_invalid_url_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="not a database URL"):
        SqlAuditStore("not a url")


def test_a_missing_driver_is_a_configuration_error_naming_it() -> None:
    with pytest.raises(ConfigurationError, match="driver not installed"):
        SqlAuditStore("postgresql+nosuchdriver://user:hunter2@127.0.0.1/db")


def test_an_unreachable_database_is_a_clear_error_without_the_password() -> None:
    # Port 9 on loopback: nothing listens there, the connection is refused at once.
    with pytest.raises(ConfigurationError) as caught:
        SqlAuditStore("postgresql+psycopg://user:hunter2@127.0.0.1:9/db")
    assert "cannot open the audit database" in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_safe_url_masks_the_password() -> None:
    assert "hunter2" not in safe_url("postgresql://u:hunter2@h/db")
    assert safe_url("::::") == "<unparseable URL>"
