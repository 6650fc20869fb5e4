"""A ragas metric (``pip install 'citation-verifier[ragas]'``): ragas's collections
``BaseMetric``, scored from the pages the response cites.

>>> metric = CitationVerification()                    # doctest: +SKIP
>>> result = await metric.ascore(response=answer)       # doctest: +SKIP
>>> result.value, result.reason                         # doctest: +SKIP

``response`` is the answer with its markers and Sources list (or its ``citations``: the URLs
``[1]``, ``[2]`` … point to). The value is the figure ``figure`` names (citation recall by
default); the reason gives every statement's verdict with its quote; the full result (the
``check-answer --json`` shape) is kept in ``last_results`` by response.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragas.metrics.collections.base import BaseMetric
from ragas.metrics.result import MetricResult

from citation_verifier.answers.models import AnswerResult
from citation_verifier.checker_api import Checker
from citation_verifier.integrations.common import (
    Figure,
    cited_urls,
    explain,
    figure_of,
    run_checker,
)


class CitationVerification(BaseMetric):  # type: ignore[misc]  # ragas is untyped
    """Citation recall (or ``figure``) of a response, checked on its cited pages."""

    def __init__(
        self,
        name: str = "citation_verification",
        figure: Figure = "citation_recall",
        checker: Checker | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        self.figure = figure
        self.checker = run_checker(checker)
        self.last_results: dict[str, AnswerResult] = {}

    async def ascore(
        self, response: str, citations: Sequence[object] | None = None
    ) -> MetricResult:
        """Check ``response``'s citations (``citations``: what its ``[n]`` markers index)."""
        result = await self.checker.acheck_answer(response, cited_urls(citations))
        self.last_results[response] = result
        return MetricResult(value=figure_of(result, self.figure), reason=explain(result))
