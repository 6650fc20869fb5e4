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

promptfoo starts a new Python process for every Python assertion. So that the models load once
per run and a page cited by many tests is fetched once, point the assertion at a running
``citation-verifier serve`` (``CITATION_VERIFIER_URL``, with ``CITATION_VERIFIER_API_KEY`` when
the service has ``SERVICE_API_KEY``): each assertion then posts the output to its
``/check-answer``. Without it, each assertion checks the output with a checker of its own.

The output's ``[n]`` markers index its Sources list, or the test's ``citations`` var. It passes
when the figure ``CITATION_FIGURE`` names (citation recall by default) reaches
``CITATION_THRESHOLD`` (0.5), or the test's ``threshold`` var. ``componentResults`` holds one
result per statement (its label, its citations' verdicts and quotes).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

import httpx

from citation_verifier.answers.models import AnswerResult, StatementLabel
from citation_verifier.integrations.common import (
    FIGURES,
    Figure,
    cited_urls,
    explain,
    figure_of,
    run_checker,
)

SERVICE_URL = "CITATION_VERIFIER_URL"
SERVICE_KEY = "CITATION_VERIFIER_API_KEY"
_BUSY_TRIES = 5
"""Tries of a request the service answers 429 or 503 (busy, starting), each after its
Retry-After (at most 30 s)."""


class ServiceError(RuntimeError):
    """The service refused the answer or could not be reached."""


def check_with_service(url: str, answer: str, citations: Sequence[str]) -> AnswerResult:
    """``POST {url}/check-answer``: the service's result for ``answer``."""
    body: dict[str, Any] = {"answer": answer}
    if citations:
        body["citations"] = list(citations)
    key = os.environ.get(SERVICE_KEY)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    endpoint = url.rstrip("/") + "/check-answer"
    for attempt in range(_BUSY_TRIES):
        try:
            response = httpx.post(endpoint, json=body, headers=headers, timeout=300)
        except httpx.HTTPError as error:
            raise ServiceError(f"{SERVICE_URL}={url}: {error}") from None
        if response.status_code in (429, 503) and attempt < _BUSY_TRIES - 1:
            try:
                wait = float(response.headers.get("Retry-After", "1"))
            except ValueError:
                wait = 1.0
            time.sleep(min(max(wait, 0.1), 30.0))
            continue
        if response.status_code != 200:
            try:
                detail = response.json().get("detail", response.text)
            except ValueError:
                detail = response.text
            raise ServiceError(f"{endpoint} answered {response.status_code}: {detail}")
        return AnswerResult.model_validate(response.json())
    raise AssertionError("unreachable: the last try returns or raises")


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
    """promptfoo's entry point: check ``output``'s citations (on the service at
    ``CITATION_VERIFIER_URL`` when set)."""
    variables = context.get("vars") or {}
    threshold = float(variables.get("threshold", os.environ.get("CITATION_THRESHOLD", 0.5)))
    citations = cited_urls(variables.get("citations"))
    service = os.environ.get(SERVICE_URL)
    if service:
        result = check_with_service(service, output, citations)
    else:  # this process's own checker, for this one assertion
        with run_checker() as checker:
            result = checker.check_answer(output, citations)
    return grading_result(result, threshold, _figure())
