"""A LangSmith evaluator (``pip install 'citation-verifier[langsmith]'``), for
``langsmith.evaluate`` and ``Client.evaluate``.

>>> evaluate(target, data="my-dataset", evaluators=[CitationEvaluator()])   # doctest: +SKIP

It reads the answer from the run's outputs (``answer_key``, default ``"answer"``; a plain string
output as it is) and, when present, ``outputs["citations"]`` (what ``[n]`` markers index). The
feedback's score is the figure ``figure`` names (citation recall by default); its comment every
statement's verdict with its quote; its ``extra`` the answer's figures and statements.
"""

from __future__ import annotations

from typing import Any

from langsmith.evaluation import EvaluationResult

from citation_verifier.checker_api import Checker
from citation_verifier.integrations.common import (
    Figure,
    cited_urls,
    explain,
    figure_of,
    run_checker,
    verdicts,
)


class CitationEvaluator:
    """Called by LangSmith with a run's ``outputs`` (module docstring)."""

    def __init__(
        self,
        figure: Figure = "citation_recall",
        answer_key: str = "answer",
        checker: Checker | None = None,
    ) -> None:
        self.figure = figure
        self.answer_key = answer_key
        self.checker = run_checker(checker)
        self.__name__ = "citation_verification"  # LangSmith names the feedback after it

    def __call__(self, outputs: dict[str, Any] | str) -> EvaluationResult:
        """The feedback for one run (LangSmith runs evaluators on threads, for ``evaluate`` and
        ``aevaluate`` alike)."""
        if isinstance(outputs, str):
            answer, citations = outputs, []
        else:
            answer = str(outputs.get(self.answer_key) or "")
            citations = cited_urls(outputs.get("citations"))
        result = self.checker.check_answer(answer, citations)
        return EvaluationResult(
            key="citation_verification",
            score=figure_of(result, self.figure),
            comment=explain(result),
            extra={
                **result.model_dump(mode="json", exclude={"statements"}),
                "statements": verdicts(result),
            },
        )
