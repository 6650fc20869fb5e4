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
``/check-answer``; the process then imports nothing but the standard library and
:mod:`.text`. Without it, each assertion checks the output with a checker of its own.

The output's ``[n]`` markers index its Sources list, or the test's ``citations`` var. It passes
when the figure ``CITATION_FIGURE`` names (citation recall by default) reaches
``CITATION_THRESHOLD`` (0.5), or the test's ``threshold`` var. ``componentResults`` holds one
result per statement (its label, its citations' verdicts and quotes).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

from citation_verifier.integrations.text import FIGURES, Figure, cited_urls, explain, figure_of

SERVICE_URL = "CITATION_VERIFIER_URL"
SERVICE_KEY = "CITATION_VERIFIER_API_KEY"
_BUSY_TRIES = 5
"""Tries of a request the service answers 429 or 503 (busy, starting), each after its
Retry-After (at most 30 s)."""


class ServiceError(RuntimeError):
    """The service refused the answer or could not be reached."""


def _wait_s(retry_after: str | None) -> float:
    try:
        return min(max(float(retry_after or "1"), 0.1), 30.0)
    except ValueError:
        return 1.0


def check_with_service(url: str, answer: str, citations: Sequence[str]) -> dict[str, Any]:
    """``POST {url}/check-answer``: the service's result for ``answer``, as JSON."""
    body: dict[str, Any] = {"answer": answer}
    if citations:
        body["citations"] = list(citations)
    headers = {"Content-Type": "application/json"}
    if key := os.environ.get(SERVICE_KEY):
        headers["Authorization"] = f"Bearer {key}"
    endpoint = url.rstrip("/") + "/check-answer"
    data = json.dumps(body).encode()
    for attempt in range(_BUSY_TRIES):
        request = urllib.request.Request(endpoint, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                result: dict[str, Any] = json.load(response)
                return result
        except urllib.error.HTTPError as error:
            if error.code in (429, 503) and attempt < _BUSY_TRIES - 1:
                time.sleep(_wait_s(error.headers.get("Retry-After")))
                continue
            text = error.read().decode("utf-8", "replace")
            try:
                detail = json.loads(text).get("detail", text)
            except (ValueError, AttributeError):
                detail = text
            raise ServiceError(f"{endpoint} answered {error.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as error:
            raise ServiceError(f"{SERVICE_URL}={url}: {error}") from None
    raise AssertionError("unreachable: the last try returns or raises")


def _figure() -> Figure:
    figure = os.environ.get("CITATION_FIGURE", "citation_recall")
    for known in FIGURES:
        if figure == known:
            return known
    raise ValueError(f"CITATION_FIGURE must be one of {', '.join(FIGURES)}, not {figure!r}")


def _component(statement: Mapping[str, Any]) -> dict[str, Any]:
    """A statement as a component result: passes when supported (or uncited: not checked)."""
    citations = "".join(
        f' | {c["label"]} {c["url"]}: "{c["evidence_quote"]}"'
        if c.get("evidence_quote")
        else f" | {c['label']} {c['url']}" + (f" ({c['reason']})" if c.get("reason") else "")
        for c in statement.get("citations", [])
    )
    others = "".join(f" | misattributed: {m['source']}" for m in statement.get("misattributed", []))
    return {
        "pass": statement["overall"] in ("supported", "uncited"),
        "score": 1.0 if statement["overall"] == "supported" else 0.0,
        "reason": f"{statement['overall']}: {statement['claim']}{citations}{others}",
    }


def grading_result(result: Mapping[str, Any], threshold: float, figure: Figure) -> dict[str, Any]:
    """promptfoo's GradingResult for an answer's result (its JSON shape): pass, score, reason
    and one component result per statement."""
    score = figure_of(result, figure)
    return {
        "pass": score >= threshold,
        "score": score,
        "reason": f"{figure} {score:.4f} (threshold {threshold})\n{explain(result)}",
        "componentResults": [_component(s) for s in result.get("statements", [])],
        "namedScores": {name: result[name] for name in FIGURES if result.get(name) is not None},
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
        from citation_verifier.integrations.common import run_checker

        with run_checker() as checker:
            result = checker.check_answer(output, citations).model_dump(mode="json")
    return grading_result(result, threshold, _figure())
