"""Guard stage: the only place that decides whether a judge's verdict stands: its
quote must be in the passages (``passages.quote_in_passages``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citation_verifier.judge.base import Judgement
from citation_verifier.models import Label, Reason
from citation_verifier.passages import Passage, quote_in_passages


@dataclass(frozen=True)
class GuardedVerdict:
    """A judgement after the guard: what the citation's verdict will say."""

    label: Label
    evidence_quote: str | None
    confidence: float
    reason: str | None


def apply_guard(judgement: Judgement, passages: Sequence[Passage]) -> GuardedVerdict:
    """Accept a supported/contradicted verdict only with a quote that occurs in the passages;
    a not_found verdict keeps no quote."""
    quote_ok = quote_in_passages(judgement.evidence_quote, passages)
    rejected = GuardedVerdict(Label.NOT_FOUND, None, 0.0, Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE)
    if judgement.label in (Label.SUPPORTED, Label.CONTRADICTED):
        if not quote_ok:
            return rejected
        return GuardedVerdict(
            judgement.label, judgement.evidence_quote, judgement.confidence, judgement.reason
        )
    if judgement.evidence_quote and not quote_ok:
        return rejected
    return GuardedVerdict(Label.NOT_FOUND, None, judgement.confidence, judgement.reason)
