"""The lexical judge (``JUDGE_PROVIDER=lexical``): no model but the embedder, deterministic.

It reads the passages sentence by sentence, picks the sentence closest to the claim (embedding
cosine, then claim-term coverage) and decides:

- supported: the sentence is about the claim and covers its content words and every number;
- contradicted: the sentence is about the claim and covers its content words, but states other
  numbers for the same thing, or negates what the claim asserts (or the reverse);
- not_found: otherwise.

The quote is always that sentence, copied from the passages, so it is verbatim by construction.
This is a lexical baseline: it sees numbers and negation, not paraphrase or world knowledge.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from citation_verifier.judge.base import Judgement
from citation_verifier.judge.sentences import (
    best_sentence,
    is_about,
    score_sentences,
    states_other_numbers,
)
from citation_verifier.models import Label
from citation_verifier.passages import Passage
from citation_verifier.retrieve import Embedder
from citation_verifier.terms import analyse


class LexicalJudge:
    """The embedded judge (see module docstring). Thread-safe; CPU work runs off the event loop."""

    def __init__(
        self, embedder: Embedder, *, support_threshold: float, relevance_threshold: float
    ) -> None:
        self._embedder = embedder
        self._support = support_threshold
        self._relevance = relevance_threshold

    @property
    def name(self) -> str:
        """Provider name recorded with verdicts."""
        return "local/lexical-minilm"

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """Judge ``claim`` against ``passages``."""
        return await asyncio.to_thread(self.judge_sync, claim, passages)

    def judge_sync(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The same judgement, on the calling thread."""
        scored = score_sentences(claim, passages, self._embedder)
        if not scored:
            return Judgement(Label.NOT_FOUND, None, 1.0)
        best = best_sentence(scored)
        sentence = best.analysis
        wanted = analyse(claim)
        confidence = round(min(1.0, max(0.0, best.score)), 4)
        if not is_about(best, relevance=self._relevance, support=self._support):
            return Judgement(Label.NOT_FOUND, None, round(1.0 - confidence / 2, 4))
        if states_other_numbers(wanted, sentence):
            return Judgement(Label.CONTRADICTED, sentence.text, confidence)
        numbers_differ = bool(wanted.numbers) and not wanted.numbers <= sentence.numbers
        if wanted.negated != sentence.negated:
            return Judgement(Label.CONTRADICTED, sentence.text, confidence)
        if numbers_differ:
            return Judgement(Label.NOT_FOUND, None, confidence)
        return Judgement(Label.SUPPORTED, sentence.text, confidence)
