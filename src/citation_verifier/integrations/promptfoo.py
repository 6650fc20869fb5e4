"""A promptfoo Python assertion: ``get_assert`` returns a grading result from the pages the
output cites. No Python extra: promptfoo (npm) runs it with the Python that has
citation-verifier installed (``PROMPTFOO_PYTHON``).

.. code-block:: yaml

    defaultTest:
      assert:
        - type: python
          value: file://citation_check.py

where ``citation_check.py`` holds ``from citation_verifier.integrations.promptfoo import
get_assert`` (docs/INTEGRATIONS.md).

The output's ``[n]`` markers index its Sources list, or the test's ``citations`` var. It passes
when the figure ``CITATION_FIGURE`` names (citation recall by default) reaches
``CITATION_THRESHOLD`` (0.5), or the test's ``threshold``. ``componentResults`` holds one result per
statement (its label, its citations' verdicts and quotes). promptfoo runs every assertion of a
run in one Python worker, so the models load once and a page cited by many tests is fetched once.
"""

from __future__ import annotations

import os
from typing import Any

from citation_verifier.answers.models import AnswerResult, StatementLabel
from citation_verifier.checker_api import Checker
from citation_verifier.integrations.common import (
    FIGURES,
    Figure,
    cited_urls,
    explain,
    figure_of,
    run_checker,
)


class _RunChecker:
    """The run's checker, made at the first assertion (promptfoo imports this module once per
    worker and calls ``get_assert`` for every test)."""

    def __init__(self) -> None:
        self._checker: Checker | None = None

    def __call__(self) -> Checker:
        if self._checker is None:
            self._checker = run_checker()
        return self._checker


_checker = _RunChecker()


def _figure() -> Figure:
    figure = os.environ.get("CITATION_FIGURE", "citation_recall")
    for known in FIGURES:
        if figure == known:
            return known
    raise ValueError(f"CITATION_FIGURE must be one of {', '.join(FIGURES)}, not {figure!r}")


def grading_result(result: AnswerResult, threshold: float, figure: Figure) -> dict[str, Any]:
    """promptfoo's GradingResult for a checked answer: pass, score, reason and one component
    result per statement."""
    score = figure_of(result, figure)
    components = [
        {
            "pass": statement.overall in (StatementLabel.SUPPORTED, StatementLabel.UNCITED),
            "score": 1.0 if statement.overall == StatementLabel.SUPPORTED else 0.0,
            "reason": f"{statement.overall.value}: {statement.claim}"
            + "".join(
                f' | {c.label.value} {c.url}: "{c.evidence_quote}"'
                if c.evidence_quote
                else f" | {c.label.value} {c.url}" + (f" ({c.reason})" if c.reason else "")
                for c in statement.citations
            )
            + "".join(f" | misattributed: {m.source}" for m in statement.misattributed),
        }
        for statement in result.statements
    ]
    return {
        "pass": score >= threshold,
        "score": score,
        "reason": f"{figure} {score:.4f} (threshold {threshold})\n{explain(result)}",
        "componentResults": components,
        "namedScores": {
            name: value for name in FIGURES if (value := getattr(result, name)) is not None
        },
    }


def get_assert(output: str, context: dict[str, Any]) -> dict[str, Any]:
    """promptfoo's entry point: check ``output``'s citations."""
    variables = context.get("vars") or {}
    threshold = float(variables.get("threshold", os.environ.get("CITATION_THRESHOLD", 0.5)))
    result = _checker().check_answer(output, cited_urls(variables.get("citations")))
    return grading_result(result, threshold, _figure())
