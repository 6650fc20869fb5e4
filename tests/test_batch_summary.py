"""Batch totals and the printed summary lines (SPEC §9)."""

from __future__ import annotations

from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.batch.summary import summarize, summary_lines
from citation_verifier.models import Label, UrlVerdict


def _row(n: int, label: Label, reason: str | None = None, credits: float = 0.0) -> ResultRow:
    verdict = UrlVerdict(
        url=f"https://e.example/{n}", label=label, confidence=1.0, reason=reason, credits=credits
    )
    return ResultRow(id=str(n), index=0, claim="c", verdict=verdict)


def test_precision_lines_count_supported_over_all_and_over_reachable() -> None:
    labels = [Label.SUPPORTED] * 2 + [Label.UNREACHABLE] * 3 + [Label.NOT_FOUND] * 3
    rows = [_row(n, label) for n, label in enumerate([*labels, Label.CONTRADICTED])]
    lines = summary_lines(summarize(rows, invalid_lines=1))
    assert lines[:2] == ["citation_precision=0.2222 (2/9)", "reachable_precision=0.3333 (2/6)"]
    assert "labels: supported=2 contradicted=1 not_found=3 unreachable=3" in lines
    assert "invalid_lines=1" in lines


def test_reachable_precision_is_na_when_nothing_was_reachable() -> None:
    rows = [_row(0, Label.UNREACHABLE, "http_404"), _row(1, Label.UNREACHABLE, "timeout")]
    summary = summarize(rows, invalid_lines=0)
    assert summary.reachable_precision is None
    lines = summary_lines(summary)
    assert lines[:2] == ["citation_precision=0.0000 (0/2)", "reachable_precision=n/a (0/0)"]
    assert "reasons: http_404=1 timeout=1" in lines


def test_empty_batch_has_no_precision() -> None:
    lines = summary_lines(summarize([], invalid_lines=0))
    assert lines[:2] == ["citation_precision=n/a (0/0)", "reachable_precision=n/a (0/0)"]


def test_credits_are_totalled_per_batch() -> None:
    rows = [_row(0, Label.SUPPORTED, credits=1.5), _row(1, Label.UNREACHABLE, credits=1.0)]
    summary = summarize(rows, invalid_lines=0)
    assert summary.credits == 2.5
    assert "credits=2.5" in summary_lines(summary)


def test_the_summary_counts_the_verdicts_that_need_review() -> None:
    rows = [_row(n, Label.SUPPORTED) for n in range(3)]
    rows[1].verdict.needs_review = True
    rows[1].verdict.review_reason = "model unsure (confidence 0.55 < REVIEW_BELOW 0.7)"
    summary = summarize(rows, invalid_lines=0)
    assert summary.needs_review == 1
    assert "needs_review=1 (confidence under REVIEW_BELOW: a person should look)" in (
        summary_lines(summary)
    )
    assert summarize(rows[:1], invalid_lines=0).needs_review == 0
