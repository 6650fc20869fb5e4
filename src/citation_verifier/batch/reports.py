"""Per-citation reports: CSV (one row per citation) and JSON (summary plus citations, and the
answers' statements and figures when the input held answers); answer records also get a
per-statement CSV.

Columns come from the verdict's own fields, so a field added to :class:`UrlVerdict` later shows
up in the report without touching this module; the columns the issue names come first.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.batch.files import write_atomically
from citation_verifier.batch.records import LineError
from citation_verifier.batch.summary import AnswerRow, Summary
from citation_verifier.spreadsheet import safe_cell

LEADING_COLUMNS = (
    "id",
    "statement",
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
    "needs_review",
    "review_reason",
)


def statement_number(position: int | None) -> int | None:
    """The number a reader sees for the statement at ``position`` (counted from 0 inside the
    batch: the checkpoint's keys): counted from 1, as ``check-answer`` and the web page number
    them; None for a claim record."""
    return None if position is None else position + 1


def flat_row(row: ResultRow) -> dict[str, Any]:
    """The citation as one flat mapping: id, statement number (answers only, from 1), claim,
    then every verdict field."""
    return {
        "id": row.id,
        "statement": statement_number(row.statement),
        "claim": row.claim,
        **row.verdict.model_dump(mode="json"),
    }


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
        return safe_cell(json.dumps(value, ensure_ascii=False))
    return safe_cell(value)


def csv_text(rows: Sequence[ResultRow]) -> str:
    """The CSV report (header plus one line per citation)."""
    buffer = io.StringIO()
    names = columns(rows)
    writer = csv.DictWriter(buffer, fieldnames=names, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({name: _cell(value) for name, value in flat_row(row).items()})
    return buffer.getvalue()


def json_text(
    rows: Sequence[ResultRow], summary: Summary, answers: Sequence[AnswerRow] = ()
) -> str:
    """The JSON report: ``{"summary", "citations"}``, and ``"answers"`` (each answer record's
    id, statements and figures, as ``check-answer --json`` gives them) when there are any."""
    document: dict[str, Any] = {
        "summary": summary.model_dump(mode="json"),
        "citations": [flat_row(row) for row in rows],
    }
    if answers:
        document["answers"] = [
            {"id": answer.id, **answer.result.model_dump(mode="json")} for answer in answers
        ]
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


STATEMENT_COLUMNS = (
    "id",
    "statement",
    "text",
    "claim",
    "overall",
    "citations",
    "supported_citations",
    "urls",
    "problems",
    "facts",
    "misattributed",
    "answer_citation_precision",
    "answer_citation_recall",
    "answer_citation_precision_liu",
)


def statements_csv_text(answers: Sequence[AnswerRow]) -> str:
    """One row per statement of every answer record (uncited ones included, numbered from 1),
    its facts as ``label: fact`` and the sources it is misattributed to, with the answer's
    figures on each of its rows."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(STATEMENT_COLUMNS)
    for answer in answers:
        result = answer.result
        for number, statement in enumerate(result.statements, start=1):
            writer.writerow(
                [
                    _cell(answer.id),
                    number,
                    _cell(statement.text),
                    _cell(statement.claim),
                    statement.overall.value,
                    len(statement.citations),
                    sum(c.label == "supported" for c in statement.citations),
                    _cell([c.url for c in statement.citations]),
                    _cell(statement.problems),
                    _cell([f"{f.label.value}: {f.text}" for f in statement.facts]),
                    _cell([m.source for m in statement.misattributed]),
                    _cell(result.citation_precision),
                    _cell(result.citation_recall),
                    _cell(result.citation_precision_liu),
                ]
            )
    return buffer.getvalue()


def write_report(
    path: Path,
    rows: Sequence[ResultRow],
    summary: Summary,
    fmt: str,
    answers: Sequence[AnswerRow] = (),
) -> None:
    """Write the report in ``fmt`` (``csv`` or ``json``)."""
    if fmt == "csv":
        write_atomically(path, csv_text(rows))
    elif fmt == "json":
        write_atomically(path, json_text(rows, summary, answers))
    else:
        raise ValueError(f"unknown report format {fmt!r}; expected csv or json")


def write_statements(path: Path, answers: Sequence[AnswerRow]) -> None:
    """The per-statement CSV of the answer records."""
    write_atomically(path, statements_csv_text(answers))


def write_errors(path: Path, errors: Sequence[LineError]) -> None:
    """The skipped input lines, one JSON object per line: ``{"line", "error", "id"}``."""
    lines = [
        json.dumps({"line": e.line, "error": e.error, "id": e.record_id}, ensure_ascii=False) + "\n"
        for e in errors
    ]
    write_atomically(path, "".join(lines))
