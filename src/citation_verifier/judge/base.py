"""The Judge protocol and the raw judgement it returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from citation_verifier.judge.usage import JudgeUsage
from citation_verifier.models import Label
from citation_verifier.passages import Passage

JUDGE_LABELS = frozenset({Label.SUPPORTED, Label.CONTRADICTED, Label.NOT_FOUND})
RULE_CONFIDENCE = 0.9
"""The confidence of a verdict an exact check gave instead of the model."""
_EXACT_CHECK = "exact check: "


def exact_check_detail(rule: str) -> str:
    """The ``detail`` of a verdict the exact check ``rule`` decided."""
    return f"{_EXACT_CHECK}{rule}"


def exact_check_rule(detail: str | None) -> str | None:
    """The exact check a verdict's ``detail`` names (:func:`exact_check_detail`), if any."""
    if detail is None or not detail.startswith(_EXACT_CHECK):
        return None
    return detail.removeprefix(_EXACT_CHECK).split()[0].rstrip(";,.")


@dataclass(frozen=True)
class Judgement:
    """What a judge said, before the quote guard decides whether it stands."""

    label: Label
    evidence_quote: str | None
    confidence: float
    reason: str | None = None
    """Set when the judge could not judge (``judge_error``); the label is then not_found."""
    detail: str | None = None
    usage: JudgeUsage | None = None
    """Calls, tokens and cost of an LLM judge; None for the embedded judge."""
    cross_check: str | None = None
    """``agree`` or ``disagree`` when the embedded model re-scored the quote (see crosscheck)."""
    cross_check_score: float | None = None
    support: float | None = None
    """The judge's own P(supported) for the claim, when it has one (the checker's best chunk,
    calibrated); a signal of how near its call was (judge/calibration.py)."""

    def __post_init__(self) -> None:
        if self.label not in JUDGE_LABELS:
            raise ValueError(f"a judge cannot return {self.label!r}")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence {self.confidence} is outside [0, 1]")


class Judge(Protocol):
    """Decides whether passages support, contradict or do not settle a claim."""

    @property
    def name(self) -> str:
        """Provider and model, recorded with each verdict."""
        ...

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """Judge ``claim`` against ``passages`` only. Never raises for bad model output:
        returns not_found with reason ``judge_error`` instead."""
        ...


def judge_fields(judge_name: str, judgement: Judgement) -> dict[str, Any]:
    """The UrlVerdict fields that record who judged and what it cost."""
    usage = judgement.usage or JudgeUsage()
    return {
        "judge": judge_name,
        "judge_calls": usage.calls,
        "judge_input_tokens": usage.input_tokens,
        "judge_output_tokens": usage.output_tokens,
        "judge_cost_usd": usage.cost_usd,
        "cross_check": judgement.cross_check,
        "cross_check_score": judgement.cross_check_score,
    }
