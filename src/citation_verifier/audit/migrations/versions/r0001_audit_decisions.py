"""The audit_decisions table.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from citation_verifier.audit.schema import UtcDateTime

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table and its indexes."""
    op.create_table(
        "audit_decisions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("claim", sa.Text, nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("final_url", sa.Text),
        sa.Column("original_status", sa.Integer),
        sa.Column("label", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(64)),
        sa.Column("detail", sa.Text),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("evidence_quote", sa.Text),
        sa.Column("quote_start", sa.Integer),
        sa.Column("quote_end", sa.Integer),
        sa.Column("rid", sa.String(128)),
        sa.Column("snapshot_id", sa.String(64)),
        sa.Column("raw_snapshot_id", sa.String(64)),
        sa.Column("content_kind", sa.String(16)),
        sa.Column("content_type", sa.String(128)),
        sa.Column("rendered", sa.Boolean, nullable=False),
        sa.Column("full_page_fallback", sa.Boolean, nullable=False),
        sa.Column("judge_provider", sa.String(64)),
        sa.Column("judge_model", sa.String(128)),
        sa.Column("passages", sa.JSON, nullable=False),
        sa.Column("software_version", sa.String(32), nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("credits", sa.Float, nullable=False),
        sa.Column("extra", sa.JSON, nullable=False),
    )
    for column in ("created_at", "label", "rid", "snapshot_id", "raw_snapshot_id"):
        op.create_index(f"ix_audit_decisions_{column}", "audit_decisions", [column])


def downgrade() -> None:
    """Drop the table."""
    op.drop_table("audit_decisions")
