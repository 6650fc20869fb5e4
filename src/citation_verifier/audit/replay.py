"""Replay: the stored page for a snapshot id or a Crawlbase rid.

Order: a local snapshot with that id; the local snapshot of a record with that rid; otherwise,
for a rid, the Crawlbase Storage API through ``citation_verifier.fetch.crawlbase.replay_rid``
(Crawlbase keeps stored pages about 30 days; our snapshots stay until pruned).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from citation_verifier.audit.records import AuditFilter
from citation_verifier.audit.snapshots import SnapshotError, SnapshotStore, is_snapshot_id
from citation_verifier.audit.store import AuditStore
from citation_verifier.errors import ConfigurationError
from citation_verifier.settings import Settings

_CRAWLBASE_MODULE = "citation_verifier.fetch.crawlbase"
# Record ids are 32 hex digits; `audit list` shows their first 12.
_RECORD_ID_PREFIX = re.compile(r"[0-9a-f]{6,32}")


@dataclass(frozen=True)
class Replayed:
    """A replayed page and where it came from (``snapshot`` or ``crawlbase``)."""

    content: bytes
    source: str
    snapshot_id: str | None = None


def _crawlbase_replay() -> Callable[..., Any]:
    try:
        module = importlib.import_module(_CRAWLBASE_MODULE)
    except ImportError:
        module = None
    replay: Callable[..., Any] | None = getattr(module, "replay_rid", None)
    if replay is None or not callable(replay):
        raise ConfigurationError(
            "no local snapshot for this id, and replaying a Crawlbase rid needs the Crawlbase "
            f"backend ({_CRAWLBASE_MODULE}.replay_rid), which this installation does not have; "
            "it also needs CRAWLBASE_TOKEN"
        )
    return replay


def _call_replay_rid(replay: Callable[..., Any], rid: str, settings: Settings) -> Any:
    """Call the Crawlbase backend's ``replay_rid`` with what it accepts (the rid, and the
    settings when it takes them), awaiting it when it is a coroutine function."""
    try:
        takes_settings = "settings" in inspect.signature(replay).parameters
    except (TypeError, ValueError):
        takes_settings = False
    kwargs = {"settings": settings} if takes_settings else {}
    result = replay(rid, **kwargs)
    if inspect.isawaitable(result):

        async def wait() -> Any:
            return await result

        result = asyncio.run(wait())
    return result


def _as_bytes(page: Any) -> bytes:
    if isinstance(page, bytes):
        return page
    if isinstance(page, str):
        return page.encode("utf-8")
    for attribute in ("markdown", "text", "body"):
        value = getattr(page, attribute, None)
        if isinstance(value, str | bytes) and value:
            return value if isinstance(value, bytes) else value.encode("utf-8")
    return str(page).encode("utf-8")


def replay(
    target: str, store: AuditStore, snapshots: SnapshotStore, settings: Settings
) -> Replayed:
    """The stored page for ``target`` (a snapshot id or a Crawlbase rid). An empty target is a
    ValueError; a rid with no local snapshot goes to Crawlbase (a clear error without it)."""
    target = target.strip()
    if not target:
        raise ValueError("replay needs a rid or a snapshot id; got an empty one")
    if is_snapshot_id(target.lower()) and snapshots.exists(target.lower()):
        return Replayed(snapshots.get(target.lower()), "snapshot", target.lower())
    if _RECORD_ID_PREFIX.fullmatch(
        target.lower()
    ):  # a record id, or a unique prefix, as `show` takes
        record = store.get(target)
        if record is not None and record.snapshot_id and snapshots.exists(record.snapshot_id):
            return Replayed(snapshots.get(record.snapshot_id), "snapshot", record.snapshot_id)
    for record in store.query(AuditFilter(rid=target)):
        if record.snapshot_id and snapshots.exists(record.snapshot_id):
            return Replayed(snapshots.get(record.snapshot_id), "snapshot", record.snapshot_id)
    if is_snapshot_id(target.lower()):
        # Our own id, gone (pruned or another machine's SNAPSHOT_DIR): Crawlbase cannot help.
        raise SnapshotError(f"snapshot {target} is not stored in {snapshots.root}")
    page = _call_replay_rid(_crawlbase_replay(), target, settings)
    return Replayed(_as_bytes(page), "crawlbase")
