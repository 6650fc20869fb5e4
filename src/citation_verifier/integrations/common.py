"""What every plug-in shares: one checker per run, which figure is the score, and the verdicts
in words and as data.

A plug-in's checker is made once, when the plug-in is (a framework that copies its metrics per
sample hands the same checker on): the models load once per run, and a page cited by many
samples is fetched once, since the checker keeps pages for ``RUN_PAGE_TTL_S`` (an evaluation run
reads the web as of one moment) unless ``FETCH_CACHE_TTL_S`` is longer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from citation_verifier.answers.models import AnswerResult, StatementResult
from citation_verifier.answers.support import figure_text, recall_text
from citation_verifier.settings import Settings

if TYPE_CHECKING:  # imported when a checker is made: promptfoo's service route needs none
    from citation_verifier.checker_api import Checker

Figure = Literal["citation_recall", "citation_precision_liu", "citation_precision"]
"""Which of the answer's figures is the score (docs/ANSWERS.md)."""
FIGURES: tuple[Figure, ...] = ("citation_recall", "citation_precision_liu", "citation_precision")
RUN_PAGE_TTL_S = 3600.0


def run_checker(checker: Checker | None = None, **overrides: Any) -> Checker:
    """``checker``, or a new one from the environment's settings (with ``overrides``) that keeps
    pages for at least ``RUN_PAGE_TTL_S``."""
    if checker is not None:
        return checker
    from citation_verifier.checker_api import Checker

    ttl = max(Settings().fetch_cache_ttl_s, RUN_PAGE_TTL_S)
    return Checker(**{"fetch_cache_ttl_s": ttl, **overrides})


def figure_of(result: AnswerResult, figure: Figure) -> float:
    """The answer's ``figure``; 0.0 when it has none (nothing was cited or judged: an answer
    that backs nothing scores nothing)."""
    if figure not in FIGURES:
        raise ValueError(f"score must be one of {', '.join(FIGURES)}, not {figure!r}")
    value: float | None = getattr(result, figure)
    return 0.0 if value is None else value


def _statement_lines(number: int, statement: StatementResult) -> list[str]:
    lines = [f"{number}. {statement.overall.value}: {statement.claim}"]
    for citation in statement.citations:
        why = f" ({citation.reason})" if citation.reason else ""
        quote = f' "{" ".join(citation.evidence_quote.split())}"' if citation.evidence_quote else ""
        lines.append(f"   {citation.label.value}{why} {citation.url}{quote}")
    for fact in statement.facts:
        quote = f' "{" ".join(fact.evidence_quote.split())}"' if fact.evidence_quote else ""
        lines.append(f"   fact {fact.label.value}: {fact.text}{quote}")
    for other in statement.misattributed:
        lines.append(f"   misattributed: {other.source} states it ({other.url})")
    lines.extend(f"   problem: {problem}" for problem in statement.problems)
    return lines


def explain(result: AnswerResult) -> str:
    """The verdicts in words: each statement with its label, each citation's label, reason and
    quote, its facts and misattributions, then the answer's figures."""
    lines = [
        line
        for number, statement in enumerate(result.statements, start=1)
        for line in _statement_lines(number, statement)
    ]
    lines.append(
        figure_text(
            "citation_precision",
            result.citation_precision,
            result.supported_citations,
            result.citations,
        )
        + " "
        + recall_text(result)
    )
    return "\n".join(lines) if result.statements else "no statement to check"


def verdicts(result: AnswerResult) -> list[dict[str, Any]]:
    """Each statement's result as JSON data (``check-answer --json``'s statements)."""
    return [s.model_dump(mode="json") for s in result.statements]


def statement_labels(result: AnswerResult) -> list[str]:
    """Each statement's overall label, in order (what the plug-ins' tests compare)."""
    return [s.overall.value for s in result.statements]


def cited_urls(citations: Sequence[object] | None) -> list[str]:
    """A sample's ``citations`` field as URL strings: strings, or objects/dicts with a url."""
    urls = []
    for item in citations or []:
        url = item.get("url") if isinstance(item, dict) else getattr(item, "url", item)
        if isinstance(url, str):
            urls.append(url)
    return urls
