"""Content-addressed page snapshots: zstd-compressed files named by the SHA-256 of their content.

Identical pages are stored once. Layout: ``<dir>/<first two hex digits>/<sha256>.zst``. Writes go
to a temporary file in the same folder and are renamed into place, so concurrent writers of the
same content never leave a partial file, and readers never see one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import zstandard

from citation_verifier.errors import CitationVerifierError

_SNAPSHOT_ID = re.compile(r"^[0-9a-f]{64}$")
_SUFFIX = ".zst"
_LEVEL = 10  # pages compress ~5-10x at this level; higher levels cost much more CPU for little


class SnapshotError(CitationVerifierError):
    """A snapshot is missing, corrupt, or its id is malformed."""


def snapshot_id(content: bytes) -> str:
    """The id of ``content``: its SHA-256, lower-case hex."""
    return hashlib.sha256(content).hexdigest()


def is_snapshot_id(value: str) -> bool:
    """Whether ``value`` has the form of a snapshot id (64 lower-case hex digits)."""
    return bool(_SNAPSHOT_ID.match(value))


class SnapshotStore:
    """Snapshots on the local filesystem under ``root`` (created on first write)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sid: str) -> Path:
        """Where the snapshot ``sid`` lives (whether or not it exists)."""
        if not is_snapshot_id(sid):
            raise SnapshotError(f"not a snapshot id (64 hex digits): {sid!r}")
        return self.root / sid[:2] / f"{sid}{_SUFFIX}"

    def put(self, content: bytes) -> str:
        """Store ``content`` once and return its id. Storing it again only refreshes the file's
        modification time (prune keeps recently written snapshots)."""
        sid = snapshot_id(content)
        target = self.path(sid)
        if target.exists():
            with contextlib.suppress(FileNotFoundError):  # pruned meanwhile: write it again
                os.utime(target)
                return sid
        target.parent.mkdir(parents=True, exist_ok=True)
        compressed = zstandard.ZstdCompressor(level=_LEVEL).compress(content)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=_SUFFIX)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(compressed)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        return sid

    def exists(self, sid: str) -> bool:
        """Whether the snapshot ``sid`` is stored."""
        return self.path(sid).is_file()

    def get(self, sid: str) -> bytes:
        """The content of snapshot ``sid``, checked against its id."""
        try:
            compressed = self.path(sid).read_bytes()
        except FileNotFoundError:
            raise SnapshotError(f"snapshot {sid} is not stored in {self.root}") from None
        try:
            content = zstandard.ZstdDecompressor().decompress(compressed)
        except zstandard.ZstdError as error:
            raise SnapshotError(f"snapshot {sid} is corrupt: {error}") from None
        if snapshot_id(content) != sid:
            raise SnapshotError(f"snapshot {sid} is corrupt: its content does not match its id")
        return content

    def get_text(self, sid: str) -> str:
        """Snapshot ``sid`` decoded as UTF-8 (Markdown snapshots are stored as UTF-8)."""
        return self.get(sid).decode("utf-8", errors="replace")

    def ids(self) -> Iterator[str]:
        """Ids of every stored snapshot."""
        if not self.root.is_dir():
            return
        for path in self.root.glob(f"??/*{_SUFFIX}"):
            sid = path.name.removesuffix(_SUFFIX)
            if is_snapshot_id(sid):
                yield sid

    def remove_unreferenced(self, referenced: set[str], written_before: float) -> list[str]:
        """Delete snapshots not in ``referenced`` whose file was last written before the
        ``written_before`` timestamp (a writer that just stored one has not yet recorded the row
        referencing it). Returns the removed ids."""
        removed = []
        for sid in list(self.ids()):
            if sid in referenced:
                continue
            path = self.path(sid)
            try:
                if path.stat().st_mtime >= written_before:
                    continue
                path.unlink()
            except FileNotFoundError:
                continue
            removed.append(sid)
        return removed
