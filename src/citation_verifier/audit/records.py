"""The audit record: everything one verdict depended on, as stored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from citation_verifier.models import Label


class PassageRef(BaseModel):
    """A passage shown to the judge: its offsets into the Markdown snapshot and its SHA-256."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(ge=0, description="Position of the passage in the page's passage list.")
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    sha256: str


class AuditRecord(BaseModel):
    """One decision on one cited URL. Settled citations (dead link, redirect, ...) have no
    snapshot, no judge and no passages; their row still records the outcome."""

    model_config = ConfigDict(frozen=True)

    id: str
    created_at: datetime = Field(description="When the verdict was reached (UTC).")
    claim: str
    url: str
    final_url: str | None = None
    original_status: int | None = None
    label: Label
    reason: str | None = None
    detail: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    evidence_quote: str | None = None
    quote_start: int | None = Field(
        default=None, description="Character offset of the quote in the Markdown snapshot."
    )
    quote_end: int | None = None
    rid: str | None = Field(default=None, description="Crawlbase stored-page id, when any.")
    snapshot_id: str | None = Field(
        default=None, description="SHA-256 of the Markdown snapshot the judge's passages came from."
    )
    raw_snapshot_id: str | None = Field(
        default=None, description="SHA-256 of the raw response body snapshot, when kept."
    )
    content_kind: str | None = Field(default=None, description="html, pdf or text.")
    content_type: str | None = None
    rendered: bool = False
    full_page_fallback: bool = False
    judge_provider: str | None = None
    judge_model: str | None = None
    passages: list[PassageRef] = Field(default_factory=list)
    software_version: str
    settings: dict[str, Any] = Field(
        default_factory=dict, description="The non-secret settings in force (thresholds, k, ...)."
    )
    credits: float = Field(default=0.0, ge=0)
    extra: dict[str, Any] = Field(
        default_factory=dict,
        description="Other fields of the verdict as returned (e.g. a crawling backend's attempts).",
    )

    @property
    def judged(self) -> bool:
        """Whether a judge produced this verdict (else the fetch stage settled it)."""
        return self.snapshot_id is not None


@dataclass(frozen=True)
class AuditFilter:
    """Which records a listing, export, re-judge or count covers; ``None`` means any."""

    label: Label | None = None
    url: str | None = None
    """Case-insensitive substring of the URL or the final URL."""
    claim: str | None = None
    """Case-insensitive substring of the claim."""
    since: datetime | None = None
    """Records at or after this time (aware or UTC)."""
    until: datetime | None = None
    """Records before this time."""
    rid: str | None = None
    snapshot_id: str | None = None
