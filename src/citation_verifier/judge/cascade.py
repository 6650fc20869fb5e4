"""The checker with a second opinion: where the checker is unsure, another judge decides.

"Unsure" is a band of the checker's support score (the highest P(supported) over chunks),
``[low, high)``, set on dev data (``CHECKER_UNSURE_LOW`` / ``CHECKER_UNSURE_HIGH``). Inside it the
second judge (the embedded LLM, or the configured API judge) gives the verdict; outside it the
checker's verdict stands and the second judge is never called, so its cost is paid only where it
can change the answer. A verdict the second judge gave says so in its ``detail``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.judge.checker import CheckerJudge
from citation_verifier.passages import Passage


class CascadeJudge:
    """``checker`` decides where it is sure; ``second`` inside the unsure band."""

    def __init__(self, checker: CheckerJudge, second: Judge, *, low: float, high: float) -> None:
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"unsure band [{low}, {high}) must lie within [0, 1]")
        self._checker = checker
        self._second = second
        self.low = low
        self.high = high

    @property
    def name(self) -> str:
        """Both judges, recorded with each verdict."""
        return f"{self._checker.name}+{self._second.name}"

    def unsure(self, support: float) -> bool:
        """Whether a support score falls in the band where the second judge decides."""
        return self.low <= support < self.high

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The checker's judgement, or the second judge's where the checker is unsure."""
        reading = await asyncio.to_thread(self._checker.read, claim, passages)
        if reading.relevance and self.unsure(reading.support):
            judgement = await self._second.judge(claim, passages)
            note = f"checker unsure (support {reading.support:.2f}): {self._second.name} decided"
            detail = note if judgement.detail is None else f"{note}; {judgement.detail}"
            return replace(judgement, detail=detail)
        return await asyncio.to_thread(self._checker.judgement, claim, passages, reading)
