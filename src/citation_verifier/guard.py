"""Guard stage: the only place that decides whether a judge's verdict stands.

1. Its quote must be in the passages (``passages.quote_in_passages``): else not_found with
   reason ``evidence_quote_not_in_source``.
2. Given the claim, the quote must hold it (:mod:`citation_verifier.quote_rules`, for every
   judge and language): a supported quote without the claim's values, or a quote about
   something else, is no evidence (not_found with reason ``quote_lacks_claim``); a sentence
   about the claim that gives another value contradicts it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from citation_verifier.judge.base import RULE_CONFIDENCE, Judgement
from citation_verifier.models import Label, Reason
from citation_verifier.passages import Passage, quote_in_passages
from citation_verifier.quote_rules import RULE_DETAIL, QuoteContext, rule_on


@dataclass(frozen=True)
class GuardedVerdict:
    """A judgement after the guard: what the citation's verdict will say."""

    label: Label
    evidence_quote: str | None
    confidence: float
    reason: str | None
    detail: str | None = None
    """The judge's detail, or the quote rule's when one decided."""


def apply_guard(
    judgement: Judgement,
    passages: Sequence[Passage],
    claim: str | None = None,
    claim_language: str | None = None,
    rules: Collection[str] | None = None,
) -> GuardedVerdict:
    """Accept a supported/contradicted verdict only with a quote that occurs in the passages
    and, when ``claim`` is given, holds it (``rules``: the quote rules tried, default all); a
    not_found verdict keeps no quote."""
    quote_ok = quote_in_passages(judgement.evidence_quote, passages)
    claims_a_quote = judgement.label != Label.NOT_FOUND or bool(judgement.evidence_quote)
    if claims_a_quote and not quote_ok:
        return GuardedVerdict(
            Label.NOT_FOUND, None, 0.0, Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE, judgement.detail
        )
    quote = judgement.evidence_quote if judgement.label != Label.NOT_FOUND else None
    if claim is not None:
        page_language = next((p.language for p in passages if p.language), None)
        context = QuoteContext(
            claim, judgement.label, quote, passages, claim_language, page_language
        )
        ruling = rule_on(context, rules)
        if ruling is not None:
            return GuardedVerdict(
                ruling.label,
                ruling.quote,
                RULE_CONFIDENCE if ruling.label == Label.CONTRADICTED else judgement.confidence,
                Reason.QUOTE_LACKS_CLAIM if ruling.label == Label.NOT_FOUND else None,
                f"{RULE_DETAIL}{ruling.rule}: {ruling.why}",
            )
    return GuardedVerdict(
        judgement.label, quote, judgement.confidence, judgement.reason, judgement.detail
    )
