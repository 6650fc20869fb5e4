"""Per-citation reports: CSV (one row per citation) and JSON (summary plus citations).

Columns come from the verdict's own fields, so a field added to :class:`UrlVerdict` later shows
up in the report without touching this module; the columns the issue names come first.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.batch.records import LineError
from citation_verifier.batch.summary import Summary

LEADING_COLUMNS = (
    "id",
    "claim",
    "url",
    "label",
    "reason",
    "evidence_quote",
    "confidence",
    "final_url",
    "original_status",
    "rid",
    "credits",
)


def flat_row(row: ResultRow) -> dict[str, Any]:
    """The citation as one flat mapping: id, claim, then every verdict field."""
    return {"id": row.id, "claim": row.claim, **row.verdict.model_dump(mode="json")}


def columns(rows: Sequence[ResultRow]) -> list[str]:
    """The leading columns, then any further verdict fields in their model order."""
    extra: list[str] = []
    for row in rows[:1]:
        extra = [name for name in flat_row(row) if name not in LEADING_COLUMNS]
    return [*LEADING_COLUMNS, *extra]


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def _write_atomically(path: Path, text: str) -> None:
    # A report is either the old one or the new one, never half of each.
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8", newline="")
    os.replace(temporary, path)


def csv_text(rows: Sequence[ResultRow]) -> str:
    """The CSV report (header plus one line per citation)."""
    buffer = io.StringIO()
    names = columns(rows)
    writer = csv.DictWriter(buffer, fieldnames=names, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({name: _cell(value) for name, value in flat_row(row).items()})
    return buffer.getvalue()


def json_text(rows: Sequence[ResultRow], summary: Summary) -> str:
    """The JSON report: ``{"summary": ..., "citations": [...]}``."""
    document = {
        "summary": summary.model_dump(mode="json"),
        "citations": [flat_row(row) for row in rows],
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def write_report(path: Path, rows: Sequence[ResultRow], summary: Summary, fmt: str) -> None:
    """Write the report in ``fmt`` (``csv`` or ``json``)."""
    if fmt == "csv":
        _write_atomically(path, csv_text(rows))
    elif fmt == "json":
        _write_atomically(path, json_text(rows, summary))
    else:
        raise ValueError(f"unknown report format {fmt!r}; expected csv or json")


def write_errors(path: Path, errors: Sequence[LineError]) -> None:
    """The skipped input lines, one JSON object per line: ``{"line", "error", "id"}``."""
    lines = [
        json.dumps({"line": e.line, "error": e.error, "id": e.record_id}, ensure_ascii=False) + "\n"
        for e in errors
    ]
    _write_atomically(path, "".join(lines))
