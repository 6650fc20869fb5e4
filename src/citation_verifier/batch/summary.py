"""Batch totals: citation precision, reachable precision, counts per label and reason, and the
judges that ran. A citation the judge failed on (``judge_error``) is not a result: it is counted
apart and left out of both precisions. A citation we could not read (a wall: bot challenge,
consent, login, paywall, ...) is unreachable: counted by wall and left out of reachable
precision."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel

from citation_verifier.answers.models import AnswerResult, StatementLabel
from citation_verifier.answers.support import figure_text
from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.models import FAILURES, WALLS, Label, Reason


class AnswerRow(BaseModel):
    """One answer record's outcome: its id, statements and figures."""

    id: str
    result: AnswerResult


class Summary(BaseModel):
    """What a batch found, over every citation it scored."""

    citations: int
    supported: int
    reachable: int
    """Citations whose label is not ``unreachable``."""
    citation_precision: float | None
    reachable_precision: float | None
    labels: dict[str, int]
    reasons: dict[str, int]
    invalid_lines: int
    credits: float
    unique_urls: int
    judge_failed: int = 0
    """Citations the judge failed on: in ``labels`` as not_found, in neither precision."""
    judges: dict[str, int] = {}
    """Citations per judge that ran (``provider/model``)."""
    archived: int = 0
    """Citations judged on their archived copy because the live page could not back them."""
    archived_supported: int = 0
    citation_precision_without_archive: float | None = None
    """Citation precision counting every archive rescue as the dead citation it was live."""
    changed_since_cited: int = 0
    """Citations whose page was judged differently on its capture at the citation date."""
    unreadable: dict[str, int] = {}
    """Citations we could not read, by wall (bot_challenge, consent_wall, paywalled, ...): all
    unreachable, so outside reachable precision."""
    answers: int = 0
    """Answer records (their citations are counted with the others above)."""
    statements: dict[str, int] = {}
    """Answer statements per overall label, ``uncited`` and ``unresolved`` included."""
    misattributed: int = 0
    """Answer statements another source of their answer states instead (docs/ANSWERS.md)."""
    citation_recall: float | None = None
    """Liu et al.: answer statements supported by their citations together / statements counted
    (every answer's; see ``AnswerResult.citation_recall``)."""
    recalled: int = 0
    recall_statements: int = 0
    citation_precision_liu: float | None = None
    """Liu et al.: answer citations that support their statement or a fact of it / those
    judged."""
    supporting_citations: int = 0
    judged_answer_citations: int = 0
    needs_review: int = 0
    """Citations whose verdict's confidence is under REVIEW_BELOW: a person should look (the
    HTML report lists them, most consequential first)."""


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def summarize(
    rows: Sequence[ResultRow], invalid_lines: int, answers: Sequence[AnswerRow] = ()
) -> Summary:
    """Totals of ``rows`` (and of the statements of ``answers``). A precision is ``None`` when
    its denominator is zero."""
    statements = Counter(s.overall.value for a in answers for s in a.result.statements)
    results = [a.result for a in answers]
    recalled, counted = sum(r.supported for r in results), sum(r.recall_statements for r in results)
    supporting = sum(r.supporting_citations for r in results)
    answer_judged = sum(r.judged_citations for r in results)
    labels = Counter(row.verdict.label.value for row in rows)
    reasons = Counter(row.verdict.reason for row in rows if row.verdict.reason)
    supported = labels[Label.SUPPORTED.value]
    failed = sum(reasons[reason.value] for reason in FAILURES)
    judged = len(rows) - failed
    unreachable = sum(
        row.verdict.label == Label.UNREACHABLE and row.verdict.reason not in FAILURES
        for row in rows
    )
    reachable = judged - unreachable
    archived = [row for row in rows if row.verdict.reason == Reason.ARCHIVED_COPY]
    archived_supported = sum(row.verdict.label == Label.SUPPORTED for row in archived)
    return Summary(
        archived=len(archived),
        archived_supported=archived_supported,
        citation_precision_without_archive=_ratio(supported - archived_supported, judged),
        changed_since_cited=sum(bool(row.verdict.changed_since_cited) for row in rows),
        citations=len(rows),
        supported=supported,
        reachable=reachable,
        citation_precision=_ratio(supported, judged),
        reachable_precision=_ratio(supported, reachable),
        judge_failed=failed,
        judges=dict(
            sorted(Counter(row.verdict.judge for row in rows if row.verdict.judge).items())
        ),
        labels={label.value: labels[label.value] for label in Label},
        reasons=dict(sorted(reasons.items())),
        unreadable={reason: count for reason, count in sorted(reasons.items()) if reason in WALLS},
        invalid_lines=invalid_lines,
        credits=sum(row.verdict.credits for row in rows),
        unique_urls=len({row.verdict.url for row in rows}),
        answers=len(answers),
        misattributed=sum(r.misattributed for r in results),
        citation_recall=_ratio(recalled, counted),
        recalled=recalled,
        recall_statements=counted,
        citation_precision_liu=_ratio(supporting, answer_judged),
        supporting_citations=supporting,
        judged_answer_citations=answer_judged,
        needs_review=sum(row.verdict.needs_review for row in rows),
        statements={label.value: statements[label.value] for label in StatementLabel}
        if answers
        else {},
    )


def summary_lines(summary: Summary) -> list[str]:
    """The printed summary: the two precision lines first, then the counts."""
    labels = " ".join(f"{name}={count}" for name, count in summary.labels.items())
    reasons = " ".join(f"{name}={count}" for name, count in summary.reasons.items()) or "none"
    judges = " ".join(f"{name}={count}" for name, count in summary.judges.items()) or "none"
    statements = " ".join(f"{name}={count}" for name, count in summary.statements.items())
    answers = (
        [
            f"answers={summary.answers} statements: {statements} "
            f"misattributed={summary.misattributed}",
            figure_text(
                "citation_recall",
                summary.citation_recall,
                summary.recalled,
                summary.recall_statements,
            )
            + " "
            + figure_text(
                "citation_precision_liu",
                summary.citation_precision_liu,
                summary.supporting_citations,
                summary.judged_answer_citations,
            ),
        ]
        if summary.answers
        else []
    )
    walls = " ".join(f"{name}={count}" for name, count in summary.unreadable.items())
    unreadable = (
        [f"could not read: {walls} (unreachable: not in reachable_precision)"]
        if summary.unreadable
        else []
    )
    archive = []
    if summary.archived or summary.changed_since_cited:
        without = figure_text(
            "citation_precision_without_archive",
            summary.citation_precision_without_archive,
            summary.supported - summary.archived_supported,
            summary.citations - summary.judge_failed,
        )
        archive = [
            f"archive: rescued={summary.archived} (supported={summary.archived_supported}) "
            f"changed_since_cited={summary.changed_since_cited} {without}"
        ]
    return [
        figure_text(
            "citation_precision",
            summary.citation_precision,
            summary.supported,
            summary.citations - summary.judge_failed,
        ),
        figure_text(
            "reachable_precision",
            summary.reachable_precision,
            summary.supported,
            summary.reachable,
        ),
        f"labels: {labels}",
        f"reasons: {reasons}",
        f"judges: {judges}",
        *unreadable,
        *answers,
        *archive,
        f"needs_review={summary.needs_review} (confidence under REVIEW_BELOW: a person should "
        "look)",
        f"judge_failed={summary.judge_failed} (not results: left out of both precisions)",
        f"invalid_lines={summary.invalid_lines}",
        f"unique_urls={summary.unique_urls}",
        f"credits={summary.credits:g}",
    ]
