"""A DeepEval metric (``pip install 'citation-verifier[deepeval]'``): DeepEval's ``BaseMetric``
with score, reason and threshold, scored from the pages ``actual_output`` cites.

>>> metric = CitationMetric(threshold=0.8)                       # doctest: +SKIP
>>> deepeval.evaluate([LLMTestCase(input=q, actual_output=answer)], [metric])  # doctest: +SKIP

The answer's ``[n]`` markers index its Sources list, or ``metadata["citations"]`` when the test
case has one. ``score`` is the figure ``figure`` names (citation recall by
default); ``reason`` gives every statement's verdict with its quote; ``score_breakdown`` the
answer's figures and statements (the ``check-answer --json`` shape). DeepEval copies a metric
for each test case with its constructor's arguments, so every copy shares one checker.
"""

from __future__ import annotations

from typing import Any

from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase

from citation_verifier.answers.models import AnswerResult
from citation_verifier.checker_api import Checker
from citation_verifier.integrations.common import (
    Figure,
    cited_urls,
    explain,
    figure_of,
    run_checker,
    verdicts,
)


class CitationMetric(BaseMetric):  # type: ignore[misc]  # deepeval is untyped
    """Whether the pages an answer cites say what it claims (module docstring)."""

    def __init__(
        self,
        threshold: float = 0.5,
        figure: Figure = "citation_recall",
        checker: Checker | None = None,
        async_mode: bool = True,
    ) -> None:
        self.threshold = threshold
        self.figure = figure
        self.checker = run_checker(checker)
        self.async_mode = async_mode
        self.include_reason = True
        self.evaluation_model = "citation-verifier"
        self.result: AnswerResult | None = None

    def _settle(self, result: AnswerResult) -> float:
        self.result = result
        self.score = figure_of(result, self.figure)
        self.reason = explain(result)
        self.score_breakdown = {
            **result.model_dump(mode="json", exclude={"statements"}),
            "statements": verdicts(result),
        }
        self.evaluation_cost = 0.0
        self.success = self.score >= self.threshold
        return float(self.score)

    @staticmethod
    def _citations(test_case: LLMTestCase) -> list[str]:
        metadata: dict[str, Any] = test_case.metadata or {}
        return cited_urls(metadata.get("citations"))

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        """Check the test case's ``actual_output``; sets score, reason and success."""
        answer = test_case.actual_output or ""
        return self._settle(self.checker.check_answer(answer, self._citations(test_case)))

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float:
        """:meth:`measure`, awaited."""
        answer = test_case.actual_output or ""
        result = await self.checker.acheck_answer(answer, self._citations(test_case))
        return self._settle(result)

    def is_successful(self) -> bool:
        """Whether the score reached the threshold."""
        return bool(self.success)

    @property
    def __name__(self) -> str:  # DeepEval names a metric by this property
        return "Citation verification"
