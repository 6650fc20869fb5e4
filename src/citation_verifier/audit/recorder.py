"""What the Verifier calls: writes the page snapshot(s) and one audit record per verdict."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import threading
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import SecretBytes, SecretStr

from citation_verifier import __version__
from citation_verifier.audit.records import AuditRecord, PassageRef
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.errors import ConfigurationError
from citation_verifier.fetch.policy import Document
from citation_verifier.models import SPEC_VERDICT_FIELDS, UrlVerdict
from citation_verifier.passages import Passage, locate_quote, normalise_newlines
from citation_verifier.settings import Settings

if TYPE_CHECKING:
    from citation_verifier.audit.store import AuditStore

# Settings never copied into a record: secrets by type, and by name whatever may hold a
# credential or a local path (URLs can embed passwords; hosts and paths do not decide verdicts).
_PRIVATE_SETTING = re.compile(
    r"token|key|secret|password|passwd|url|dir|path|host|^audit_|^snapshot_", re.I
)
_REDACTED = "***"
_DAY_S = 24 * 3600
# UrlVerdict fields the record has columns for; any other field goes to ``extra``.
_VERDICT_COLUMNS = SPEC_VERDICT_FIELDS | {"detail", "credits", "audit_id"}


def audit_db_url(settings: Settings) -> str:
    """``AUDIT_DB_URL``, or the SQLite file under ``CACHE_DIR``."""
    if settings.audit_db_url is not None and settings.audit_db_url.get_secret_value().strip():
        return settings.audit_db_url.get_secret_value().strip()
    return f"sqlite:///{settings.cache_dir.expanduser() / 'audit.db'}"


def snapshot_dir(settings: Settings) -> Path:
    """``SNAPSHOT_DIR``, or ``CACHE_DIR/snapshots``."""
    return (settings.snapshot_dir or settings.cache_dir / "snapshots").expanduser()


def verdict_settings(settings: Settings) -> dict[str, Any]:
    """The settings a verdict may depend on (thresholds, k, providers), without secrets."""
    names = {
        name
        for name in type(settings).model_fields
        if not _PRIVATE_SETTING.search(name)
        and not isinstance(getattr(settings, name), SecretStr | SecretBytes | Path)
    }
    return settings.model_dump(mode="json", include=names)


def secret_values(settings: Settings) -> list[str]:
    """Every secret value configured (tokens, keys, the database URL and the password inside
    it), longest first."""
    values = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr) and value.get_secret_value():
            values.append(value.get_secret_value())
        elif isinstance(value, SecretBytes) and value.get_secret_value():
            values.append(value.get_secret_value().decode("utf-8", errors="ignore"))
    for value in list(values):
        with contextlib.suppress(ValueError):
            password = urlsplit(value).password
            if password:
                values.append(password)
    return sorted({v for v in values if len(v) >= 4}, key=len, reverse=True)


def split_judge_name(name: str | None) -> tuple[str | None, str | None]:
    """``provider/model`` → (provider, model)."""
    if not name:
        return None, None
    provider, _, model = name.partition("/")
    return provider, model or None


class Auditor:
    """Records verdicts into an audit store and a snapshot store. The store opens on first
    use (nothing is opened when the Verifier is built); safe for concurrent use from threads."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: AuditStore | None = None,
        snapshots: SnapshotStore | None = None,
    ) -> None:
        self.settings = settings
        self.snapshots = snapshots or SnapshotStore(snapshot_dir(settings))
        self._store = store
        self._owns_store = store is None  # a store handed in belongs to the caller
        self._lock = threading.Lock()
        self._secrets = secret_values(settings)
        self._settings_record = verdict_settings(settings)

    @property
    def store(self) -> AuditStore:
        """The audit store, opened (and migrated) on first access."""
        with self._lock:
            if self._store is None:
                from citation_verifier.audit.store import SqlAuditStore

                self._store = SqlAuditStore(
                    audit_db_url(self.settings), busy_timeout_s=self.settings.audit_busy_timeout_s
                )
                self._apply_retention(self._store)
            return self._store

    def _apply_retention(self, store: AuditStore) -> None:
        """Delete what ``AUDIT_RETENTION_DAYS`` no longer keeps, at most once a day (a marker
        file in the snapshot folder records the last time)."""
        days = self.settings.audit_retention_days
        marker = self.snapshots.root / ".retention-applied"
        if days == 0 or (marker.exists() and time.time() - marker.stat().st_mtime < _DAY_S):
            return
        from citation_verifier.audit.prune import prune

        prune(store, self.snapshots, datetime.now(UTC) - timedelta(days=days))
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()

    def close(self) -> None:
        """Close the store this auditor opened (it reopens on next use); a store handed to the
        constructor is left open for its owner."""
        if not self._owns_store:
            return
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.close()

    async def record(
        self,
        claim: str,
        verdict: UrlVerdict,
        document: Document | None,
        passages: Sequence[Passage],
        judge_name: str | None,
    ) -> UrlVerdict:
        """Store the snapshot and the record of ``verdict``; returns it with its ``audit_id``."""
        return await asyncio.to_thread(
            self.record_sync, claim, verdict, document, passages, judge_name
        )

    def record_sync(
        self,
        claim: str,
        verdict: UrlVerdict,
        document: Document | None,
        passages: Sequence[Passage],
        judge_name: str | None,
    ) -> UrlVerdict:
        """:meth:`record`, on the calling thread."""
        try:
            record = self.build(claim, verdict, document, passages, judge_name)
        except OSError as error:  # the snapshot folder cannot be written
            raise ConfigurationError(
                f"cannot write page snapshots to {self.snapshots.root} ({error.strerror}): set "
                "CACHE_DIR or SNAPSHOT_DIR to a writable place, or AUDIT_ENABLED=false"
            ) from None
        self.store.add(record)
        return verdict.model_copy(update={"audit_id": record.id})

    def build(
        self,
        claim: str,
        verdict: UrlVerdict,
        document: Document | None,
        passages: Sequence[Passage],
        judge_name: str | None,
    ) -> AuditRecord:
        """The record of ``verdict`` (writes the snapshots it refers to)."""
        fields: dict[str, Any] = {}
        if document is not None:
            # Passage offsets refer to the newline-normalised text: that is what is stored.
            text = normalise_newlines(document.text)
            fields["snapshot_id"] = self.snapshots.put(text.encode("utf-8"))
            if self.settings.snapshot_raw_body and document.body:
                fields["raw_snapshot_id"] = self.snapshots.put(document.body)
            fields["passages"] = [
                PassageRef(
                    index=p.index,
                    start=p.start,
                    end=p.end,
                    sha256=hashlib.sha256(p.text.encode("utf-8")).hexdigest(),
                )
                for p in passages
            ]
            span = locate_quote(verdict.evidence_quote, passages)
            if span is not None:
                fields["quote_start"], fields["quote_end"] = span.page_span
            fields["content_kind"] = document.kind
            fields["content_type"] = document.content_type or None
            fields["rendered"] = document.rendered
            fields["full_page_fallback"] = document.full_page_fallback
            fields["judge_provider"], fields["judge_model"] = split_judge_name(judge_name)
        return AuditRecord(
            id=uuid.uuid4().hex,
            created_at=datetime.now(UTC),
            claim=self._redact(claim),
            url=self._redact(verdict.url),
            final_url=self._redact_optional(verdict.final_url),
            original_status=verdict.original_status,
            label=verdict.label,
            reason=verdict.reason,
            detail=self._redact_optional(verdict.detail),
            confidence=verdict.confidence,
            evidence_quote=verdict.evidence_quote,
            rid=self._redact_optional(verdict.rid),
            software_version=__version__,
            settings=self._settings_record,
            credits=verdict.credits,
            extra=self._redact_json(verdict.model_dump(mode="json", exclude=set(_VERDICT_COLUMNS))),
            **fields,
        )

    def _redact(self, text: str) -> str:
        # Belt and braces: no configured secret reaches the store, even inside a URL or message.
        for secret in self._secrets:
            text = text.replace(secret, _REDACTED)
        return text

    def _redact_json(self, data: dict[str, Any]) -> dict[str, Any]:
        redacted: dict[str, Any] = json.loads(self._redact(json.dumps(data)))
        return redacted

    def _redact_optional(self, text: str | None) -> str | None:
        return None if text is None else self._redact(text)


def make_auditor(settings: Settings) -> Auditor | None:
    """The auditor chosen by settings: None when ``AUDIT_ENABLED=false``."""
    return Auditor(settings) if settings.audit_enabled else None
