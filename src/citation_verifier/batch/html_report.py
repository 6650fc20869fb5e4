"""The HTML report: summary, a bar chart of labels, the verdicts that need review ("Look at
these first", most consequential first), contradicted citations first, and each citation's
evidence. One self-contained file: inline CSS and SVG, no scripts, no external
assets; every page-derived string is escaped.

What a reader sees is worded for a reader: the summary is a table with a name and a meaning for
each figure, the evidence column holds the page's quote only (a rule that decided a verdict is
named as one, beside the reason), and an answer's statements are numbered from 1 as
``check-answer`` numbers them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.batch.reports import statement_number
from citation_verifier.batch.summary import AnswerRow, Summary
from citation_verifier.judge.calibration import review_priority
from citation_verifier.models import Label
from citation_verifier.verdict_words import rule_words

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
table.summary{width:auto;max-width:60rem;margin-bottom:1rem}
table.summary th{min-width:9rem}
table.summary td.figure{min-width:12rem;font-variant-numeric:tabular-nums}
table.summary td.meaning{min-width:18rem}
.meaning,.none,.rule{color:#555}
.rule{display:block;margin-top:.3rem;font-size:.85rem}
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
    """The page's own words, and nothing else: an explanation is no evidence."""
    quote = row.verdict.evidence_quote
    if quote:
        return f"<blockquote>{escape(quote)}</blockquote>"
    return '<span class="none">no quote</span>'


def _reason(row: ResultRow) -> str:
    """The reason, what it means (the verdict's explanation or the wall in words) and, apart
    and labelled, the rule that decided the verdict."""
    verdict = row.verdict
    parts = [escape(verdict.reason or ""), _could_not_read(verdict.could_not_read)]
    rule = rule_words(verdict.detail)
    if verdict.detail and rule is None:
        parts.append(f'<br><span class="meaning">{escape(verdict.detail)}</span>')
    if rule is not None:
        parts.append(f'<span class="rule">{escape(rule)}</span>')
    return "".join(parts)


def citation_name(row: ResultRow) -> str:
    """The record id, and for an answer's citation its statement number: ``a1 · statement 2``."""
    number = statement_number(row.statement)
    return row.id if number is None else f"{row.id} · statement {number}"


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
        f"<tr><td>{escape(citation_name(row))}</td><td>{escape(row.claim)}</td>"
        f'<td class="url">{breakable_url(verdict.url)}{final}</td>'
        f'<td class="label" style="color:{colour}">{verdict.label.value}</td>'
        f"<td>{_reason(row)}</td>"
        f"<td>{'' if verdict.original_status is None else verdict.original_status}</td>"
        f"<td>{verdict.confidence:.2f}</td><td>{_evidence(row)}</td></tr>"
    )


def _answers(answers: Sequence[AnswerRow]) -> str:
    """Each answer's statements in order, with their overall labels, the facts a statement
    was read for and the sources it is misattributed to, and the answer's figures."""
    if not answers:
        return ""
    rows = []
    for answer in answers:
        result = answer.result
        figures = " · ".join(
            f"{name} {'n/a' if value is None else f'{value:.4f}'}"
            for name, value in (
                ("precision", result.citation_precision),
                ("recall", result.citation_recall),
                ("precision (Liu et al.)", result.citation_precision_liu),
            )
        )
        for number, statement in enumerate(result.statements, start=1):
            facts = "".join(f"<br>{f.label.value}: {escape(f.text)}" for f in statement.facts)
            misattributed = (
                "<br>misattributed: " + escape(", ".join(m.source for m in statement.misattributed))
                if statement.misattributed
                else ""
            )
            rows.append(
                f"<tr><td>{escape(answer.id)}</td><td>{number}</td>"
                f"<td>{escape(statement.text)}{facts}{misattributed}</td>"
                f'<td class="label">{statement.overall.value}</td>'
                f"<td>{escape('; '.join(statement.problems))}</td><td>{figures}</td></tr>"
            )
    head = "".join(
        f"<th>{name}</th>"
        for name in ("id", "statement", "text", "overall", "problems", "answer figures")
    )
    return (
        "<h2>Answers</h2>\n<p>Every statement of every answer record, uncited ones included; "
        "citation recall and precision (Liu et al.) as docs/ANSWERS.md defines them.</p>\n"
        f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n"
    )


def _precision(value: float | None, supported: int, out_of: int) -> str:
    if value is None:
        return f"n/a ({supported} of {out_of})"
    return f"{value:.2%} ({supported} of {out_of})"


def _counts(counts: dict[str, int]) -> str:
    """``supported 2 · not_found 3``, or ``none``: the names as the tables below spell them."""
    return " · ".join(f"{name} {count}" for name, count in counts.items()) or "none"


def summary_rows(summary: Summary) -> list[tuple[str, str, str]]:
    """The summary as (figure, value, what it means) rows, in the printed summary's order."""
    judged = summary.citations - summary.judge_failed
    rows = [
        (
            "Citation precision",
            _precision(summary.citation_precision, summary.supported, judged),
            "supported citations out of all citations the judge did not fail on",
        ),
        (
            "Reachable precision",
            _precision(summary.reachable_precision, summary.supported, summary.reachable),
            "supported citations out of those whose page could be read",
        ),
        ("Citations", str(summary.citations), "claim–URL pairs scored"),
        ("Labels", _counts(summary.labels), "citations per label"),
        ("Reasons", _counts(summary.reasons), "why a citation got its label, where one is given"),
        ("Judges", _counts(summary.judges), "citations per judge that ran"),
    ]
    if summary.unreadable:
        rows.append(
            (
                "Could not read",
                _counts(summary.unreadable),
                "pages behind a wall (unreachable: outside reachable precision)",
            )
        )
    if summary.answers:
        rows.append(
            (
                "Answers",
                f"{summary.answers} ({sum(summary.statements.values())} statements: "
                f"{_counts(summary.statements)})",
                "answer records (their citations are counted above) and their statements",
            )
        )
    if summary.archived or summary.changed_since_cited:
        rows += [
            (
                "Judged on an archived copy",
                f"{summary.archived} ({summary.archived_supported} supported)",
                "dead pages judged on their Wayback Machine capture",
            ),
            (
                "Changed since cited",
                str(summary.changed_since_cited),
                "pages judged differently on their capture from the citation date",
            ),
            (
                "Citation precision without the archive",
                _precision(
                    summary.citation_precision_without_archive,
                    summary.supported - summary.archived_supported,
                    judged,
                ),
                "as if every archive rescue were the dead citation it was",
            ),
        ]
    rows += [
        (
            "Needs review",
            str(summary.needs_review),
            "verdicts whose confidence is under REVIEW_BELOW: listed under Look at these first",
        ),
        (
            "Judge failed",
            str(summary.judge_failed),
            "citations the judge could not judge: not results, left out of both precisions",
        ),
        ("Invalid input lines", str(summary.invalid_lines), "skipped, listed in the errors file"),
        ("Unique URLs", str(summary.unique_urls), "pages loaded, each once"),
        ("Crawling API credits", f"{summary.credits:g}", "spent by this batch"),
    ]
    return rows


def review_first(rows: Sequence[ResultRow]) -> list[ResultRow]:
    """The rows whose verdict needs review, most consequential first (a doubtful ``supported``
    before a doubtful ``not_found``: ``review_priority``), input order among equals."""
    marked = [row for row in rows if row.verdict.needs_review]
    return sorted(
        marked, key=lambda row: -review_priority(row.verdict.label, row.verdict.confidence)
    )


def _review_section(rows: Sequence[ResultRow]) -> str:
    """The "Look at these first" section: each verdict that needs review with its claim, URL,
    label, confidence and why; says so when none does."""
    marked = review_first(rows)
    intro = (
        '<h2 id="review">Look at these first</h2>\n<p>Verdicts whose confidence (the chance the '
        "label is right) is under REVIEW_BELOW: the label stands, a person should look. The "
        "verdicts a review could change most come first: a doubtful supported before a "
        "doubtful not found.</p>\n"
    )
    if not marked:
        return intro + '<p class="none">None: no verdict needs review.</p>\n'
    head = "".join(
        f"<th>{name}</th>" for name in ("id", "claim", "url", "label", "confidence", "why")
    )
    body = "\n".join(
        # Its own row class: the citations table's rows are found by ``<tr><td>id``.
        f'<tr class="review"><td>{escape(citation_name(row))}</td><td>{escape(row.claim)}</td>'
        f'<td class="url">{breakable_url(row.verdict.url)}</td>'
        f'<td class="label" style="color:{_COLOURS[row.verdict.label]}">'
        f"{row.verdict.label.value}</td><td>{row.verdict.confidence:.2f}</td>"
        f"<td>{escape(row.verdict.review_reason or '')}</td></tr>"
        for row in marked
    )
    return (
        f'{intro}<table class="review"><thead><tr>{head}</tr></thead><tbody>\n{body}\n'
        "</tbody></table>\n"
    )


def _summary_table(summary: Summary) -> str:
    body = "\n".join(
        f'<tr><th scope="row">{escape(name)}</th><td class="figure">{escape(value)}</td>'
        f'<td class="meaning">{escape(meaning)}</td></tr>'
        for name, value, meaning in summary_rows(summary)
    )
    return f'<table class="summary"><tbody>\n{body}\n</tbody></table>'


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
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>\n"
        f"<h1>{escape(title)}</h1>\n<h2>Summary</h2>\n{_summary_table(summary)}\n"
        f"<h2>Labels</h2>\n{_bar_chart(summary)}\n"
        f"{_review_section(rows)}"
        f"<h2>Citations</h2>\n<p>Contradicted citations first, then supported, not found and "
        f"unreachable; input order within each. The evidence is the page's own words.</p>\n"
        f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>\n"
        f"{_answers(answers)}"
        "</body></html>\n"
    )
