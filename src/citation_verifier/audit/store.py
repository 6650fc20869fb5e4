"""The audit store: the :class:`AuditStore` protocol and its SQLAlchemy Core implementation."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import ColumnElement, Engine, and_, delete, func, insert, or_, select
from sqlalchemy.exc import SQLAlchemyError

from citation_verifier.audit.database import WRITE, release_engine, safe_url, shared_engine
from citation_verifier.audit.records import AuditFilter, AuditRecord
from citation_verifier.audit.schema import decisions
from citation_verifier.errors import CitationVerifierError

_PAGE = 500  # rows fetched per query while iterating, so a large store is never loaded at once


class AuditStoreError(CitationVerifierError):
    """The audit database failed (unreachable, full, ...); the message names it without secrets."""


class AmbiguousIdError(CitationVerifierError):
    """An id prefix matches more than one record."""


class AuditStore(Protocol):
    """Where audit records live."""

    def add(self, record: AuditRecord) -> None:
        """Store one record (its own transaction)."""
        ...

    def get(self, record_id: str) -> AuditRecord | None:
        """The record with this id, or with this unique id prefix; None when there is none."""
        ...

    def query(
        self, where: AuditFilter | None = None, limit: int | None = None
    ) -> list[AuditRecord]:
        """Matching records, newest first."""
        ...

    def iterate(self, where: AuditFilter | None = None) -> Iterator[AuditRecord]:
        """Every matching record, oldest first, fetched in pages."""
        ...

    def count(self, where: AuditFilter | None = None) -> int:
        """How many records match."""
        ...

    def delete_before(self, cutoff: datetime) -> int:
        """Delete records created before ``cutoff``; returns how many."""
        ...

    def snapshot_ids_in_use(self) -> set[str]:
        """Every snapshot id (Markdown or raw) some record refers to."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


def _conditions(where: AuditFilter | None) -> list[ColumnElement[bool]]:
    if where is None:
        return []
    c = decisions.c
    conditions: list[ColumnElement[bool]] = []
    if where.label is not None:
        conditions.append(c.label == where.label.value)
    if where.url:
        needle = where.url.lower()
        conditions.append(
            or_(
                func.lower(c.url).contains(needle, autoescape=True),
                func.lower(c.final_url).contains(needle, autoescape=True),
            )
        )
    if where.claim:
        conditions.append(func.lower(c.claim).contains(where.claim.lower(), autoescape=True))
    if where.since is not None:
        conditions.append(c.created_at >= where.since)
    if where.until is not None:
        conditions.append(c.created_at < where.until)
    if where.rid is not None:
        conditions.append(c.rid == where.rid)
    if where.snapshot_id is not None:
        conditions.append(
            or_(c.snapshot_id == where.snapshot_id, c.raw_snapshot_id == where.snapshot_id)
        )
    return conditions


def _row(record: AuditRecord) -> dict[str, Any]:
    row = record.model_dump(mode="python")
    row["label"] = record.label.value
    row["passages"] = [p.model_dump() for p in record.passages]
    return row


def _record(mapping: Any) -> AuditRecord:
    return AuditRecord.model_validate(dict(mapping))


class SqlAuditStore:
    """Audit records in any SQLAlchemy database (SQLite by default, PostgreSQL for teams).
    The schema is migrated to the shipped head revision when the first store on a database
    opens; stores on one database in one process share its engine. Thread-safe."""

    def __init__(self, url: str, *, busy_timeout_s: float = 30.0, page_size: int = _PAGE) -> None:
        self._page_size = page_size
        self._engine: Engine = shared_engine(url, busy_timeout_s=busy_timeout_s)
        self._closed = False
        self._close_lock = threading.Lock()

    @property
    def url(self) -> str:
        """The database URL, password masked."""
        return safe_url(self._engine.url)

    def _failed(self, error: SQLAlchemyError) -> AuditStoreError:
        cause = getattr(error, "orig", None) or error
        return AuditStoreError(f"audit database {self.url}: {type(error).__name__}: {cause}")

    def add(self, record: AuditRecord) -> None:
        """Insert ``record`` in its own write transaction."""
        try:
            with self._engine.connect() as connection:
                connection.execution_options(**WRITE)
                with connection.begin():
                    connection.execute(insert(decisions), [_row(record)])
        except SQLAlchemyError as error:
            raise self._failed(error) from None

    def get(self, record_id: str) -> AuditRecord | None:
        """The record ``record_id``, or the only record whose id starts with it."""
        record_id = record_id.strip().lower()
        if not record_id:
            return None
        try:
            with self._engine.connect() as connection:
                exact = connection.execute(
                    select(decisions).where(decisions.c.id == record_id)
                ).mappings()
                row = exact.first()
                if row is not None:
                    return _record(row)
                matches = (
                    connection.execute(
                        select(decisions)
                        .where(decisions.c.id.startswith(record_id, autoescape=True))
                        .limit(2)
                    )
                    .mappings()
                    .all()
                )
        except SQLAlchemyError as error:
            raise self._failed(error) from None
        if len(matches) > 1:
            raise AmbiguousIdError(f"id prefix {record_id!r} matches several records")
        return _record(matches[0]) if matches else None

    def query(
        self, where: AuditFilter | None = None, limit: int | None = None
    ) -> list[AuditRecord]:
        """Matching records, newest first, at most ``limit``."""
        statement = (
            select(decisions)
            .where(and_(True, *_conditions(where)))
            .order_by(decisions.c.created_at.desc(), decisions.c.id.desc())
        )
        if limit is not None:
            statement = statement.limit(limit)
        try:
            with self._engine.connect() as connection:
                return [_record(r) for r in connection.execute(statement).mappings()]
        except SQLAlchemyError as error:
            raise self._failed(error) from None

    def iterate(self, where: AuditFilter | None = None) -> Iterator[AuditRecord]:
        """Matching records oldest first, in pages (keyset pagination on time and id)."""
        conditions = _conditions(where)
        after: tuple[datetime, str] | None = None
        c = decisions.c
        while True:
            page_conditions = list(conditions)
            if after is not None:
                page_conditions.append(
                    or_(c.created_at > after[0], and_(c.created_at == after[0], c.id > after[1]))
                )
            statement = (
                select(decisions)
                .where(and_(True, *page_conditions))
                .order_by(c.created_at, c.id)
                .limit(self._page_size)
            )
            try:
                with self._engine.connect() as connection:
                    page = [_record(r) for r in connection.execute(statement).mappings()]
            except SQLAlchemyError as error:
                raise self._failed(error) from None
            yield from page
            if len(page) < self._page_size:
                return
            after = (page[-1].created_at, page[-1].id)

    def count(self, where: AuditFilter | None = None) -> int:
        """How many records match ``where``."""
        statement = (
            select(func.count()).select_from(decisions).where(and_(True, *_conditions(where)))
        )
        try:
            with self._engine.connect() as connection:
                return int(connection.execute(statement).scalar_one())
        except SQLAlchemyError as error:
            raise self._failed(error) from None

    def delete_before(self, cutoff: datetime) -> int:
        """Delete the records created before ``cutoff``."""
        try:
            with self._engine.connect() as connection:
                connection.execution_options(**WRITE)
                with connection.begin():
                    result = connection.execute(
                        delete(decisions).where(decisions.c.created_at < cutoff)
                    )
                    return int(result.rowcount)
        except SQLAlchemyError as error:
            raise self._failed(error) from None

    def snapshot_ids_in_use(self) -> set[str]:
        """Snapshot ids referred to by any record."""
        c = decisions.c
        try:
            with self._engine.connect() as connection:
                used = set(connection.execute(select(c.snapshot_id).distinct()).scalars())
                used |= set(connection.execute(select(c.raw_snapshot_id).distinct()).scalars())
        except SQLAlchemyError as error:
            raise self._failed(error) from None
        used.discard(None)
        return {str(s) for s in used}

    def close(self) -> None:
        """Release this store's share of the engine (idempotent); the last store on a database
        disposes of its connection pool."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        release_engine(self._engine)
