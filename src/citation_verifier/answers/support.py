"""How a statement's citations support it, together: what to judge beyond one verdict per
citation, and the statement's and the answer's figures from all of it (docs/ANSWERS.md).

A statement no citation supports on its own gets two follow-ups, on pages the answer already
loaded (no new fetches):

- **its facts** (:mod:`citation_verifier.facts`), each judged against each of its own readable
  citations: every fact stated by one of them → ``supported`` (each fact quoted from its
  source); some → ``partial``. A fact a citation contradicts is listed as such but does not make
  the statement ``contradicted``: judged alone, a fact meets the sentences about the other facts,
  and the checker contradicts on those more readily than on the whole statement;
- **the answer's other sources** (URLs other statements cite, read), each judged for the whole
  statement: one that supports it → ``misattributed`` names it ("[2]").

Citation recall and precision follow Liu, Zhang & Liang (2023): recall is the share of the
answer's statements fully supported by their citations together; precision the share of
citations that support their statement in full or one of its facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from citation_verifier.aggregate import aggregate
from citation_verifier.answers.models import (
    AnswerResult,
    FactResult,
    MarkerResult,
    Misattribution,
    StatementLabel,
    StatementResult,
)
from citation_verifier.answers.parse import Statement
from citation_verifier.models import FAILURES, Label, UrlVerdict


@dataclass(frozen=True)
class FollowUp:
    """One more judgement for a statement: a fact of it against one of its own citations
    (``fact`` is the fact's position), or the whole statement against another source of the
    answer (``fact`` is None)."""

    claim: str
    url: str
    fact: int | None


def judged(verdict: UrlVerdict) -> bool:
    """Whether a judge read the page for this verdict (it loaded and nothing failed)."""
    return verdict.label != Label.UNREACHABLE and verdict.reason not in FAILURES


def needs_follow_up(statement: Statement, own: Sequence[UrlVerdict]) -> bool:
    """Whether the statement cites something and no citation alone supports it."""
    return bool(statement.urls) and not any(v.label == Label.SUPPORTED for v in own)


def follow_ups(
    statement: Statement,
    own: Sequence[UrlVerdict],
    facts: Sequence[str],
    read: Sequence[str],
) -> list[FollowUp]:
    """The follow-ups of a statement that :func:`needs_follow_up` (module docstring): its
    ``facts`` (when more than one) on its own citations a judge read, and the whole statement
    on every URL of ``read`` (the answer's pages a judge read) it does not cite."""
    if not needs_follow_up(statement, own):
        return []
    mine = [v.url for v in own if judged(v)]
    parts = [
        FollowUp(fact, url, number)
        for number, fact in enumerate(facts)
        for url in mine
        if len(facts) > 1
    ]
    elsewhere = [FollowUp(statement.claim, url, None) for url in read if url not in statement.urls]
    return parts + elsewhere


def read_urls(verdicts: Sequence[UrlVerdict]) -> list[str]:
    """The distinct URLs of ``verdicts`` a judge read, in order."""
    return list(dict.fromkeys(v.url for v in verdicts if judged(v)))


def _fact_result(text: str, verdicts: Sequence[UrlVerdict]) -> FactResult:
    """A fact's label from its verdicts: supported by any, else contradicted by any, else
    not_found; the most confident verdict of that label decides the quote."""
    label = next(
        (
            wanted
            for wanted in (Label.SUPPORTED, Label.CONTRADICTED)
            if any(v.label == wanted for v in verdicts)
        ),
        Label.NOT_FOUND,
    )
    deciding = [v for v in verdicts if v.label == label]
    if label == Label.NOT_FOUND or not deciding:  # no citation decided it
        return FactResult(text=text, label=label)
    best = max(deciding, key=lambda v: v.confidence)
    return FactResult(
        text=text,
        label=label,
        url=best.url,
        evidence_quote=best.evidence_quote,
        confidence=best.confidence,
    )


def statement_outcome(
    statement: Statement,
    own: Sequence[UrlVerdict],
    followed: Sequence[tuple[FollowUp, UrlVerdict]] = (),
    facts: Sequence[str] = (),
    names: Mapping[str, str] | None = None,
) -> StatementResult:
    """A statement's result from the verdicts on its URLs (in the statement's URL order) and on
    its follow-ups; ``names`` says how the answer names a source ("[2]")."""
    fact_results = [
        _fact_result(fact, [v for f, v in followed if f.fact == number])
        for number, fact in enumerate(facts)
        if len(facts) > 1
    ]
    if not statement.urls:
        overall = StatementLabel.UNRESOLVED if statement.problems else StatementLabel.UNCITED
    else:
        overall = StatementLabel(aggregate(v.label for v in own).value)
    stated = [f.label == Label.SUPPORTED for f in fact_results]
    if overall not in (StatementLabel.SUPPORTED, StatementLabel.CONTRADICTED) and any(stated):
        overall = StatementLabel.SUPPORTED if all(stated) else StatementLabel.PARTIAL
    misattributed = []
    if overall != StatementLabel.SUPPORTED:
        for follow, verdict in followed:
            if follow.fact is None and verdict.label == Label.SUPPORTED:
                misattributed.append(
                    Misattribution(
                        source=(names or {}).get(verdict.url, verdict.url),
                        url=verdict.url,
                        evidence_quote=verdict.evidence_quote,
                        confidence=verdict.confidence,
                    )
                )
    supporting = {v.url for v in own if v.label == Label.SUPPORTED}
    supporting |= {f.url for f in fact_results if f.label == Label.SUPPORTED and f.url}
    return StatementResult(
        text=statement.text,
        claim=statement.claim,
        overall=overall,
        citations=list(own),
        markers=[
            MarkerResult(text=m.text, urls=list(m.urls), problems=list(m.problems))
            for m in statement.markers
        ],
        problems=list(statement.problems),
        facts=fact_results,
        misattributed=misattributed,
        supporting_urls=[v.url for v in own if v.url in supporting],
    )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def figure_text(name: str, value: float | None, part: int, whole: int) -> str:
    """A figure as the CLI and batch print it: ``name=0.5000 (1/2)``, ``n/a`` for no value."""
    shown = "n/a" if value is None else f"{value:.4f}"
    return f"{name}={shown} ({part}/{whole})"


def recall_text(result: AnswerResult) -> str:
    """Liu et al.'s two figures of an answer (docs/ANSWERS.md), as one line."""
    return " ".join(
        (
            figure_text(
                "citation_recall",
                result.citation_recall,
                result.supported,
                result.recall_statements,
            ),
            figure_text(
                "citation_precision_liu",
                result.citation_precision_liu,
                result.supporting_citations,
                result.judged_citations,
            ),
        )
    )


def answer_result(statements: Sequence[StatementResult]) -> AnswerResult:
    """The answer's figures over its statements. Our citation precision: citations that support
    their statement alone over all judged citations (uncited statements and unresolved markers
    are not citations, and a citation the judge failed on is not a result). Liu et al.'s
    (``citation_precision_liu``) also counts a citation that supports one fact of it; citation
    recall is statements supported (by their citations together) over every statement but those
    none of whose citations a judge could finish (their verdicts all failures)."""
    verdicts = [v for s in statements for v in s.citations]
    supported = sum(v.label == Label.SUPPORTED for v in verdicts)
    judged_count = sum(v.reason not in FAILURES for v in verdicts)
    supporting = sum(
        v.url in s.supporting_urls and v.reason not in FAILURES
        for s in statements
        for v in s.citations
    )
    counted = [
        s
        for s in statements
        if not s.citations or any(v.reason not in FAILURES for v in s.citations)
    ]
    counts = {label.value: 0 for label in StatementLabel}
    for statement in statements:
        counts[statement.overall.value] += 1
    recalled = sum(s.overall == StatementLabel.SUPPORTED for s in counted)
    return AnswerResult(
        statements=list(statements),
        citation_precision=_share(supported, judged_count),
        citation_recall=_share(recalled, len(counted)),
        recall_statements=len(counted),
        citation_precision_liu=_share(supporting, judged_count),
        supporting_citations=supporting,
        judged_citations=judged_count,
        citations=len(verdicts),
        supported_citations=supported,
        misattributed=sum(bool(s.misattributed) for s in statements),
        unique_urls=len({v.url for v in verdicts}),
        credits=sum(v.credits for v in verdicts),
        **counts,
    )
