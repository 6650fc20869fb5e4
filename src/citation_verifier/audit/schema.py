"""The audit table, in SQLAlchemy Core. Changes to it ship as Alembic migrations
(``audit/migrations/versions``); this module describes the head revision."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Dialect,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy.types import TypeDecorator

metadata = MetaData()


class UtcDateTime(TypeDecorator[datetime]):
    """Timestamps stored in UTC and read back timezone-aware, on every backend (SQLite keeps no
    offset: it gets naive UTC; PostgreSQL gets ``timestamptz``)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("audit timestamps must be timezone-aware")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


decisions = Table(
    "audit_decisions",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("claim", Text, nullable=False),
    Column("url", Text, nullable=False),
    Column("final_url", Text),
    Column("original_status", Integer),
    Column("label", String(16), nullable=False),
    Column("reason", String(64)),
    Column("detail", Text),
    Column("confidence", Float, nullable=False),
    Column("evidence_quote", Text),
    Column("quote_start", Integer),
    Column("quote_end", Integer),
    Column("rid", String(128)),
    Column("snapshot_id", String(64)),
    Column("raw_snapshot_id", String(64)),
    Column("content_kind", String(16)),
    Column("content_type", String(128)),
    Column("rendered", Boolean, nullable=False),
    Column("full_page_fallback", Boolean, nullable=False),
    Column("judge_provider", String(64)),
    Column("judge_model", String(128)),
    Column("passages", JSON, nullable=False),
    Column("software_version", String(32), nullable=False),
    Column("settings", JSON, nullable=False),
    Column("credits", Float, nullable=False),
    Column("extra", JSON, nullable=False),
    Index("ix_audit_decisions_created_at", "created_at"),
    Index("ix_audit_decisions_label", "label"),
    Index("ix_audit_decisions_rid", "rid"),
    Index("ix_audit_decisions_snapshot_id", "snapshot_id"),
    Index("ix_audit_decisions_raw_snapshot_id", "raw_snapshot_id"),
)
