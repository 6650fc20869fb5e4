"""Retention: delete records older than a cutoff, then the snapshots no record refers to."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import AuditStore


@dataclass(frozen=True)
class Pruned:
    """What a prune removed."""

    records: int
    snapshots: int


def prune(store: AuditStore, snapshots: SnapshotStore, cutoff: datetime) -> Pruned:
    """Delete records created before ``cutoff`` and every snapshot no remaining record refers
    to. A snapshot written at or after ``cutoff`` is kept even when unreferenced: a writer may
    have stored it and not yet committed its record (storing a snapshot again refreshes its
    time, so a page seen recently is never lost)."""
    records = store.delete_before(cutoff)
    removed = snapshots.remove_unreferenced(store.snapshot_ids_in_use(), cutoff.timestamp())
    return Pruned(records, len(removed))
