"""Many writers at once: 8 processes × 200 rows, no lost rows, no "database is locked"; 8
threads opening stores on one new database in one process share one migrated engine."""

from __future__ import annotations

import multiprocessing
import threading
import uuid
from datetime import UTC, datetime
from multiprocessing.synchronize import Barrier
from typing import Any

from citation_verifier.audit.records import AuditRecord
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.models import Label

from .conftest import make_record

WRITERS = 8
ROWS = 200


def _write_rows(url: str, writer: int, barrier: Barrier, results: Any) -> None:
    """One writer process: open the store (migrating a new database races with the others),
    wait for every writer, then insert ROWS records, one transaction each."""
    try:
        store = SqlAuditStore(url)
        barrier.wait(timeout=120)
        for row in range(ROWS):
            store.add(
                AuditRecord(
                    id=f"{writer:02d}{row:06d}{uuid.uuid4().hex[:24]}",
                    created_at=datetime.now(UTC),
                    claim=f"claim {writer}/{row}",
                    url=f"https://example.com/{writer}/{row}",
                    label=Label.SUPPORTED,
                    confidence=0.5,
                    software_version="test",
                )
            )
        store.close()
        results.put((writer, None))
    except BaseException as error:  # reported to the test, which fails with it
        results.put((writer, f"{type(error).__name__}: {error}"))


def test_eight_writers_lose_no_rows_and_never_see_a_locked_database(store_url: str) -> None:
    # Separate processes, as the service and a batch run are. Forked (the store is imported
    # already), so 8 writers do not pay 8 interpreter start-ups; each opens its own engine.
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(WRITERS)
    results = context.Queue()
    workers = [
        context.Process(target=_write_rows, args=(store_url, n, barrier, results))
        for n in range(WRITERS)
    ]
    for worker in workers:
        worker.start()
    outcomes = dict(results.get(timeout=240) for _ in workers)
    for worker in workers:
        worker.join(timeout=60)
    assert outcomes == dict.fromkeys(range(WRITERS))  # no writer failed ("database is locked")
    store = SqlAuditStore(store_url)
    try:
        assert store.count() == WRITERS * ROWS
        ids = {r.id for r in store.iterate()}
        assert len(ids) == WRITERS * ROWS
        for writer in range(WRITERS):
            assert sum(1 for i in ids if i.startswith(f"{writer:02d}")) == ROWS
    finally:
        store.close()


def test_stores_opened_at_once_in_one_process_share_one_migrated_engine(store_url: str) -> None:
    # Eight threads open a store on a new database at the same moment (the service, verifiers
    # and a re-judge in one process): one engine is opened and migrated, never two at once.
    barrier = threading.Barrier(WRITERS)
    stores: list[SqlAuditStore] = []
    errors: list[BaseException] = []

    def open_and_write() -> None:
        try:
            barrier.wait(timeout=60)
            store = SqlAuditStore(store_url)
            stores.append(store)
            store.add(make_record())
        except BaseException as error:  # reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=open_and_write) for _ in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    try:
        assert errors == []
        assert len({id(store._engine) for store in stores}) == 1
        assert stores[0].count() == WRITERS
    finally:
        for store in stores:
            store.close()
