"""The plug-ins' words and scores, read from an answer's result in its JSON shape
(``check-answer --json``, ``/check-answer``). Standard library only: promptfoo starts a Python
process for each assertion, and this is all that process needs besides the service's answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

Figure = Literal["citation_recall", "citation_precision_liu", "citation_precision"]
"""Which of the answer's figures is the score (docs/ANSWERS.md)."""
FIGURES: tuple[Figure, ...] = ("citation_recall", "citation_precision_liu", "citation_precision")
# Each figure's numerator and denominator fields.
_PARTS = {
    "citation_precision": ("supported_citations", "citations"),
    "citation_recall": ("supported", "recall_statements"),
    "citation_precision_liu": ("supporting_citations", "judged_citations"),
}


def figure_of(result: Mapping[str, Any], figure: Figure) -> float:
    """The answer's ``figure``; 0.0 when it has none (nothing was cited or judged: an answer
    that backs nothing scores nothing)."""
    if figure not in FIGURES:
        raise ValueError(f"score must be one of {', '.join(FIGURES)}, not {figure!r}")
    value = result.get(figure)
    return 0.0 if value is None else float(value)


def _quoted(quote: object) -> str:
    return f' "{" ".join(str(quote).split())}"' if quote else ""


def statement_lines(number: int, statement: Mapping[str, Any]) -> list[str]:
    """One statement in words: its label and claim, each citation's label, reason and quote,
    its facts and misattributions, its problems."""
    lines = [f"{number}. {statement['overall']}: {statement['claim']}"]
    for citation in statement.get("citations", []):
        why = f" ({citation['reason']})" if citation.get("reason") else ""
        quote = _quoted(citation.get("evidence_quote"))
        lines.append(f"   {citation['label']}{why} {citation['url']}{quote}")
    for fact in statement.get("facts", []):
        quote = _quoted(fact.get("evidence_quote"))
        lines.append(f"   fact {fact['label']}: {fact['text']}{quote}")
    for other in statement.get("misattributed", []):
        lines.append(f"   misattributed: {other['source']} states it ({other['url']})")
    lines.extend(f"   problem: {problem}" for problem in statement.get("problems", []))
    return lines


def figures_line(result: Mapping[str, Any]) -> str:
    """``citation_precision=0.2500 (1/4) citation_recall=… citation_precision_liu=…``."""
    shown = []
    for name in ("citation_precision", "citation_recall", "citation_precision_liu"):
        value = result.get(name)
        part, whole = (result.get(field, 0) for field in _PARTS[name])
        shown.append(f"{name}={'n/a' if value is None else f'{value:.4f}'} ({part}/{whole})")
    return " ".join(shown)


def explain(result: Mapping[str, Any]) -> str:
    """The verdicts in words: each statement (:func:`statement_lines`), then the figures."""
    statements = result.get("statements", [])
    if not statements:
        return "no statement to check"
    lines = [
        line
        for number, statement in enumerate(statements, start=1)
        for line in statement_lines(number, statement)
    ]
    return "\n".join([*lines, figures_line(result)])


def cited_urls(citations: Sequence[object] | None) -> list[str]:
    """A sample's ``citations`` field as URL strings: strings, or objects/dicts with a url."""
    urls = []
    for item in citations or []:
        url = item.get("url") if isinstance(item, dict) else getattr(item, "url", item)
        if isinstance(url, str):
            urls.append(url)
    return urls
