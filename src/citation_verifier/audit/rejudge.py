"""Re-judge: rerun passages → retrieve → judge → guard on a stored snapshot (no fetch) and say
whether the recorded verdict is reproduced. How a team checks a new judge or threshold
against past decisions: run it with the new settings over a filter and read the rate."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from citation_verifier.audit.records import AuditRecord
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.fetch.policy import Document
from citation_verifier.models import Label, Reason
from citation_verifier.settings import Settings
from citation_verifier.verifier import NOT_SETTLED, Verifier


@dataclass(frozen=True)
class Rejudged:
    """The outcome of re-judging one record. ``skipped`` says why it could not be re-judged
    (settled by the fetch stage, snapshot pruned); then the new fields are None."""

    record: AuditRecord
    label: Label | None = None
    evidence_quote: str | None = None
    reason: str | None = None
    confidence: float | None = None
    skipped: str | None = None

    @property
    def reproduced(self) -> bool:
        """Same label, reason and evidence quote as recorded (confidence may differ)."""
        return self.skipped is None and (
            self.label == self.record.label
            and self.reason == self.record.reason
            and self.evidence_quote == self.record.evidence_quote
        )


@dataclass(frozen=True)
class RejudgeSummary:
    """Reproduction over many records; ``rate`` is None when none could be re-judged."""

    reproduced: int
    rejudged: int
    skipped: int

    @property
    def rate(self) -> float | None:
        """Reproduced / re-judged."""
        return self.reproduced / self.rejudged if self.rejudged else None


def settings_as_recorded(current: Settings, record: AuditRecord) -> Settings:
    """``current`` with the verdict-affecting settings the record was made with."""
    fields = type(current).model_fields
    recorded = {k: v for k, v in record.settings.items() if k in fields}
    # Validated, not copied: recorded values are JSON (lists, strings), not the fields' types.
    return type(current)(**{**current.model_dump(), **recorded})


def document_from_snapshot(record: AuditRecord, snapshots: SnapshotStore) -> Document:
    """The judged page as the pipeline had it, rebuilt from the Markdown snapshot."""
    assert record.snapshot_id is not None
    paywalled = record.reason == Reason.PAYWALLED
    return Document(
        url=record.url,
        final_url=record.final_url or record.url,
        status=record.original_status or 200,
        text=snapshots.get_text(record.snapshot_id),
        kind=record.content_kind or "html",
        full_page_fallback=record.full_page_fallback,
        rid=record.rid,
        rendered=record.rendered,
        # An archived copy is judged as one again (its reason is archived_copy).
        archive_url=record.extra.get("archive_url"),
        live_reason=record.extra.get("live_reason"),
        # A paywalled page whose readable part did not settle the claim is one again.
        wall=Reason.PAYWALLED if paywalled else None,
        wall_detail=(record.detail or "").removesuffix(NOT_SETTLED) if paywalled else None,
    )


async def rejudge(record: AuditRecord, verifier: Verifier, snapshots: SnapshotStore) -> Rejudged:
    """Re-judge one record with ``verifier``'s judge and settings."""
    if record.snapshot_id is None:
        why = record.reason or record.label.value
        return Rejudged(record, skipped=f"no snapshot (settled by the fetch stage: {why})")
    if not snapshots.exists(record.snapshot_id):
        return Rejudged(record, skipped=f"snapshot {record.snapshot_id} is no longer stored")
    document = document_from_snapshot(record, snapshots)
    verdict = await verifier.judge_document(record.claim, document)
    return Rejudged(
        record,
        label=verdict.label,
        evidence_quote=verdict.evidence_quote,
        reason=verdict.reason,
        confidence=verdict.confidence,
    )


def summarise(outcomes: Iterable[Rejudged]) -> RejudgeSummary:
    """Counts of reproduced, re-judged and skipped records."""
    reproduced = rejudged = skipped = 0
    for outcome in outcomes:
        if outcome.skipped is not None:
            skipped += 1
            continue
        rejudged += 1
        reproduced += outcome.reproduced
    return RejudgeSummary(reproduced, rejudged, skipped)
