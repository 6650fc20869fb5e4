"""Content-addressed zstd snapshot store."""

from __future__ import annotations

import hashlib
import os
import time

import pytest

from citation_verifier.audit.snapshots import SnapshotError, SnapshotStore, is_snapshot_id

PAGE = ("Water boils at 100 degrees Celsius at sea level. " * 200).encode()


def test_snapshot_id_is_the_sha256_of_the_content(snapshots: SnapshotStore) -> None:
    sid = snapshots.put(PAGE)
    assert sid == hashlib.sha256(PAGE).hexdigest()
    assert snapshots.get(sid) == PAGE


def test_identical_pages_are_stored_once(snapshots: SnapshotStore) -> None:
    first = snapshots.put(PAGE)
    second = snapshots.put(bytes(PAGE))
    assert first == second
    assert list(snapshots.ids()) == [first]
    assert snapshots.put(b"another page") != first
    assert len(list(snapshots.ids())) == 2


def test_snapshots_are_zstd_compressed_on_disk(snapshots: SnapshotStore) -> None:
    sid = snapshots.put(PAGE)
    stored = snapshots.path(sid).read_bytes()
    assert stored.startswith(b"\x28\xb5\x2f\xfd")  # the zstd frame magic number
    assert len(stored) < len(PAGE) / 10


def test_text_snapshots_decode_as_utf8(snapshots: SnapshotStore) -> None:
    sid = snapshots.put("Café “quoted” ü".encode())
    assert snapshots.get_text(sid) == "Café “quoted” ü"


def test_a_tampered_snapshot_is_reported_corrupt(snapshots: SnapshotStore) -> None:
    import zstandard

    sid = snapshots.put(PAGE)
    snapshots.path(sid).write_bytes(zstandard.ZstdCompressor().compress(b"something else"))
    with pytest.raises(SnapshotError, match="does not match"):
        snapshots.get(sid)
    snapshots.path(sid).write_bytes(b"not zstd at all")
    with pytest.raises(SnapshotError, match="corrupt"):
        snapshots.get(sid)


def test_missing_and_malformed_ids_are_clear_errors(snapshots: SnapshotStore) -> None:
    with pytest.raises(SnapshotError, match="not stored"):
        snapshots.get("0" * 64)
    for bad in ("", "abc", "../" + "0" * 61, "G" * 64):
        assert not is_snapshot_id(bad)
        with pytest.raises(SnapshotError, match="not a snapshot id"):
            snapshots.get(bad)


def test_writing_leaves_no_temporary_files(snapshots: SnapshotStore) -> None:
    snapshots.put(PAGE)
    names = [p.name for p in snapshots.root.rglob("*") if p.is_file()]
    assert len(names) == 1 and not names[0].startswith(".tmp-")


def test_storing_again_refreshes_the_file_time(snapshots: SnapshotStore) -> None:
    sid = snapshots.put(PAGE)
    old = time.time() - 3600
    os.utime(snapshots.path(sid), (old, old))
    snapshots.put(PAGE)
    assert snapshots.path(sid).stat().st_mtime > old + 3000


def test_remove_unreferenced_keeps_referenced_and_recent_snapshots(
    snapshots: SnapshotStore,
) -> None:
    kept, old_unused, new_unused = (snapshots.put(c) for c in (b"kept", b"old", b"new"))
    long_ago = time.time() - 86400
    for sid in (kept, old_unused):
        os.utime(snapshots.path(sid), (long_ago, long_ago))
    removed = snapshots.remove_unreferenced({kept}, written_before=time.time() - 3600)
    assert removed == [old_unused]
    assert snapshots.exists(kept) and snapshots.exists(new_unused)
    assert not snapshots.exists(old_unused)


def test_an_empty_store_lists_nothing(snapshots: SnapshotStore) -> None:
    assert list(snapshots.ids()) == []
    assert snapshots.remove_unreferenced(set(), written_before=time.time()) == []
