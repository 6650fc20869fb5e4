"""The checker with a second opinion: where the checker's verdict would need review, another
judge decides.

"Would need review" is the verdict's calibrated confidence (calibration.py) under
``REVIEW_BELOW``, the same threshold that marks verdicts ``needs_review``. There the second judge
(the embedded LLM, or the configured API judge) gives the verdict; elsewhere the checker's
verdict stands and the second judge is never called, so its cost is paid only where it can
change the answer. A verdict the second judge gave says so in its ``detail``, with what it did
to the checker's label (kept it, or changed it from one label to another).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.judge.calibration import SECOND_OPINION, CalibrationCard, signals_of
from citation_verifier.judge.checker import CheckerJudge
from citation_verifier.passages import Passage


class CascadeJudge:
    """``checker`` decides where it is sure; ``second`` where its verdict would need review."""

    def __init__(
        self,
        checker: CheckerJudge,
        second: Judge,
        *,
        card: CalibrationCard,
        review_below: float,
    ) -> None:
        self._checker = checker
        self._second = second
        self._card = card
        self.review_below = review_below

    @property
    def name(self) -> str:
        """Both judges, recorded with each verdict."""
        return f"{self._checker.name}+{self._second.name}"

    def unsure(self, confidence: float) -> bool:
        """Whether a calibrated confidence is where the second judge decides."""
        return confidence < self.review_below

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The checker's judgement, or the second judge's where the checker is unsure."""
        reading = await asyncio.to_thread(self._checker.read, claim, passages)
        first = await asyncio.to_thread(self._checker.judgement, claim, passages, reading)
        if not reading.relevance:
            return first
        signals = signals_of(
            claim,
            judge_name=self._checker.name,
            judge_label=first.label,
            judge_confidence=first.confidence,
            label=first.label,
            quote=first.evidence_quote,
            reason=None,
            detail=first.detail,
            cross_check=None,
            english=True,
            passages=[p.text for p in passages],
            support=first.support,
        )
        confidence = self._card.confidence(signals)
        if not self.unsure(confidence):
            return first
        judgement = await self._second.judge(claim, passages)
        did = (
            f"kept {first.label.value}"
            if judgement.label == first.label
            else f"changed {first.label.value} to {judgement.label.value}"
        )
        note = (
            f"{SECOND_OPINION} (confidence {confidence:.2f} < REVIEW_BELOW "
            f"{self.review_below:g}): {self._second.name} decided, {did}"
        )
        detail = note if judgement.detail is None else f"{note}; {judgement.detail}"
        return replace(judgement, detail=detail)
