"""Cross-check: the embedded local judge re-reads an LLM's accepted quote against the claim.

When an LLM answers supported/contradicted with a quote that passes the quote guard, the local
judge (judge/lexical.py) judges the claim against that quote alone. Its agreement with the LLM's
label becomes a score in [0, 1]:

- the local judge gives the same label with confidence c → ``0.5 + c / 2`` (0.5 … 1);
- it gives another label with confidence c → ``(1 - c) / 2`` (0 … 0.5).

Below ``CROSS_CHECK_THRESHOLD`` the verdict is flagged ``cross_check="disagree"`` (kept, for a
human to review) or, with ``CROSS_CHECK_DOWNGRADE=true``, turned into not_found with reason
``cross_check_disagree``. The provider never decides whether its own quote stands: the guard
still runs after this.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.judge.lexical import LexicalJudge
from citation_verifier.models import Label, Reason
from citation_verifier.passages import Passage, quote_in_passages

AGREE = "agree"
DISAGREE = "disagree"


def agreement_score(llm_label: Label, local: Judgement) -> float:
    """How much the local judge's verdict on the quote agrees with ``llm_label`` (see module)."""
    if local.label == llm_label:
        return round(0.5 + local.confidence / 2, 4)
    return round((1.0 - local.confidence) / 2, 4)


def score_quote(checker: LexicalJudge, claim: str, llm_label: Label, quote: str) -> float:
    """The local judge's agreement with ``llm_label`` when it reads only ``quote``."""
    local = checker.judge_sync(claim, [Passage(quote, 0, len(quote), 0)])
    return agreement_score(llm_label, local)


class CrossCheckedJudge:
    """Wraps an LLM judge; re-scores its accepted quotes with the embedded judge."""

    def __init__(
        self, inner: Judge, checker: LexicalJudge, *, threshold: float, downgrade: bool
    ) -> None:
        self._inner = inner
        self._checker = checker
        self._threshold = threshold
        self._downgrade = downgrade

    @property
    def name(self) -> str:
        """The wrapped judge's name (the cross-check is recorded in its own fields)."""
        return self._inner.name

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The inner judgement, with ``cross_check`` and ``cross_check_score`` when it carries a
        supported/contradicted verdict whose quote is in the passages."""
        judgement = await self._inner.judge(claim, passages)
        quote = judgement.evidence_quote
        if judgement.label == Label.NOT_FOUND or quote is None:
            return judgement
        if not quote_in_passages(quote, passages):
            return judgement  # the guard rejects it; nothing to cross-check
        score = await asyncio.to_thread(score_quote, self._checker, claim, judgement.label, quote)
        if score >= self._threshold:
            return replace(judgement, cross_check=AGREE, cross_check_score=score)
        if not self._downgrade:
            return replace(judgement, cross_check=DISAGREE, cross_check_score=score)
        return replace(
            judgement,
            label=Label.NOT_FOUND,
            evidence_quote=None,
            confidence=0.0,
            reason=Reason.CROSS_CHECK_DISAGREE,
            detail=(
                f"{self.name} said {judgement.label.value} quoting {quote[:200]!r}; the embedded "
                f"judge disagrees (score {score:.2f} < {self._threshold:g})"
            ),
            cross_check=DISAGREE,
            cross_check_score=score,
        )
