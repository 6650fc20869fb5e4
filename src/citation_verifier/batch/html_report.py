"""The HTML report: summary, a bar chart of labels, contradicted citations first, and each
citation's evidence. One self-contained file: inline CSS and SVG, no scripts, no external
assets; every page-derived string is escaped."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.batch.summary import AnswerRow, Summary, summary_lines
from citation_verifier.models import Label

# Contradictions first (one confirmed contradiction can reveal what precision hides).
_ORDER = {Label.CONTRADICTED: 0, Label.SUPPORTED: 1, Label.NOT_FOUND: 2, Label.UNREACHABLE: 3}
_COLOURS = {
    Label.SUPPORTED: "#2e7d32",
    Label.CONTRADICTED: "#c62828",
    Label.NOT_FOUND: "#f9a825",
    Label.UNREACHABLE: "#757575",
}
_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:80rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.35rem .5rem;vertical-align:top;text-align:left}
th{background:#f4f4f4}
.label{font-weight:600}
blockquote{margin:0;padding-left:.6rem;border-left:3px solid #ccc}
pre{background:#f7f7f7;padding:.6rem}
td.url{width:28%;min-width:16rem;overflow-wrap:anywhere}
"""
# The URL column keeps a readable width (break-all let the table squeeze it to a few characters
# a line); a URL wraps between its parts (<wbr> after "/", "?", "&"), inside one only when a
# part is longer than the column.
_URL_BREAKS = re.compile(r"(?<=[/?&])")


def breakable_url(url: str) -> str:
    """``url`` as escaped HTML with a line-break opportunity after each ``/``, ``?`` and
    ``&``."""
    return "<wbr>".join(escape(part) for part in _URL_BREAKS.split(url))


def _bar_chart(summary: Summary) -> str:
    """Horizontal SVG bars, one per label, scaled to the largest count."""
    height, bar, width = 30, 22, 360
    biggest = max(summary.labels.values(), default=0) or 1
    parts = [
        f'<svg role="img" aria-label="citations per label" '
        f'width="{width + 220}" height="{height * len(Label)}">'
    ]
    for row, label in enumerate(Label):
        count = summary.labels.get(label.value, 0)
        y = row * height
        length = round(width * count / biggest)
        parts.append(
            f'<text x="0" y="{y + 16}" font-size="14">{label.value}</text>'
            f'<rect x="110" y="{y}" width="{length}" height="{bar}" fill="{_COLOURS[label]}">'
            f"<title>{label.value}: {count}</title></rect>"
            f'<text x="{116 + length}" y="{y + 16}" font-size="14">{count}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _evidence(row: ResultRow) -> str:
    verdict = row.verdict
    if verdict.evidence_quote:
        return f"<blockquote>{escape(verdict.evidence_quote)}</blockquote>"
    return escape(verdict.detail or "")


def _could_not_read(words: str | None) -> str:
    """A wall's reason in words, under its name."""
    return "" if words is None else f'<br><span class="wall">{escape(words)}</span>'


def _row(row: ResultRow) -> str:
    verdict = row.verdict
    final = (
        f"<br>→ {breakable_url(verdict.final_url)}"
        if verdict.final_url and verdict.final_url != verdict.url
        else ""
    )
    colour = _COLOURS[verdict.label]
    return (
        f"<tr><td>{escape(row.id)}</td><td>{escape(row.claim)}</td>"
        f'<td class="url">{breakable_url(verdict.url)}{final}</td>'
        f'<td class="label" style="color:{colour}">{verdict.label.value}</td>'
        f"<td>{escape(verdict.reason or '')}{_could_not_read(verdict.could_not_read)}</td>"
        f"<td>{'' if verdict.original_status is None else verdict.original_status}</td>"
        f"<td>{verdict.confidence:.2f}</td><td>{_evidence(row)}</td></tr>"
    )


def _answers(answers: Sequence[AnswerRow]) -> str:
    """Each answer's statements in order, with their overall labels."""
    if not answers:
        return ""
    rows = []
    for answer in answers:
        precision = answer.result.citation_precision
        shown = "n/a" if precision is None else f"{precision:.4f}"
        for position, statement in enumerate(answer.result.statements):
            rows.append(
                f"<tr><td>{escape(answer.id)}</td><td>{position}</td>"
                f"<td>{escape(statement.text)}</td>"
                f'<td class="label">{statement.overall.value}</td>'
                f"<td>{escape('; '.join(statement.problems))}</td><td>{shown}</td></tr>"
            )
    head = "".join(
        f"<th>{name}</th>"
        for name in ("id", "statement", "text", "overall", "problems", "answer precision")
    )
    return (
        "<h2>Answers</h2>\n<p>Every statement of every answer record, uncited ones included.</p>\n"
        f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n"
    )


def html_report(
    rows: Sequence[ResultRow],
    summary: Summary,
    answers: Sequence[AnswerRow] = (),
    title: str = "Citation report",
) -> str:
    """The whole report as one HTML document."""
    ordered = sorted(enumerate(rows), key=lambda item: (_ORDER[item[1].verdict.label], item[0]))
    head = "".join(
        f"<th>{name}</th>"
        for name in ("id", "claim", "url", "label", "reason", "status", "confidence", "evidence")
    )
    body = "\n".join(_row(row) for _, row in ordered)
    lines = escape("\n".join(summary_lines(summary)))
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>\n"
        f"<h1>{escape(title)}</h1>\n<h2>Summary</h2>\n<pre>{lines}</pre>\n"
        f"<h2>Labels</h2>\n{_bar_chart(summary)}\n"
        f"<h2>Citations</h2>\n<p>Contradicted citations first, then supported, not found and "
        f"unreachable; input order within each.</p>\n"
        f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>\n"
        f"{_answers(answers)}"
        "</body></html>\n"
    )
