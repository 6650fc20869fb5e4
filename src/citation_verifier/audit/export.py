"""``audit export``: records as JSON Lines (everything) or CSV (one flat row per record)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import TextIO

from citation_verifier.audit.records import AuditRecord
from citation_verifier.spreadsheet import safe_cell

FORMATS = ("jsonl", "csv")
CSV_COLUMNS = (
    "id",
    "created_at",
    "claim",
    "url",
    "final_url",
    "original_status",
    "label",
    "reason",
    "confidence",
    "evidence_quote",
    "quote_start",
    "quote_end",
    "rid",
    "snapshot_id",
    "raw_snapshot_id",
    "content_kind",
    "judge_provider",
    "judge_model",
    "software_version",
    "credits",
    "detail",
    "passages",
    "settings",
    "extra",
)


def write_jsonl(records: Iterable[AuditRecord], out: TextIO) -> int:
    """One JSON object per record; returns how many were written."""
    count = 0
    for record in records:
        out.write(record.model_dump_json() + "\n")
        count += 1
    return count


def write_csv(records: Iterable[AuditRecord], out: TextIO) -> int:
    """A header and one row per record; ``passages`` and ``settings`` as JSON; returns how many
    rows were written."""
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    count = 0
    for record in records:
        row = record.model_dump(mode="json")
        row["passages"] = json.dumps(row["passages"], separators=(",", ":"))
        row["settings"] = json.dumps(row["settings"], separators=(",", ":"), sort_keys=True)
        row["extra"] = json.dumps(row["extra"], separators=(",", ":"), sort_keys=True)
        writer.writerow({k: "" if row[k] is None else safe_cell(row[k]) for k in CSV_COLUMNS})
        count += 1
    return count


def export(records: Iterable[AuditRecord], out: TextIO, fmt: str) -> int:
    """Write ``records`` to ``out`` in ``fmt`` (jsonl or csv)."""
    if fmt == "jsonl":
        return write_jsonl(records, out)
    if fmt == "csv":
        return write_csv(records, out)
    raise ValueError(f"unknown export format {fmt!r}; expected one of: {', '.join(FORMATS)}")
