"""Sentence scoring shared by the embedded judges: the passages split into sentences (each a
verbatim slice), every sentence scored against the claim by embedding cosine and claim-term
coverage (the content words themselves: :mod:`citation_verifier.terms`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citation_verifier.passages import Passage
from citation_verifier.retrieve import Embedder
from citation_verifier.segment import sentence_spans
from citation_verifier.terms import Terms, analyse, coverage

_MAX_SENTENCE_CHARS = 600


def split_sentences(passages: Sequence[Passage]) -> list[str]:
    """Sentences of the passages (:mod:`citation_verifier.segment`, in each passage's
    language), each a verbatim slice of one passage."""
    sentences: list[str] = []
    for passage in passages:
        for start, end in sentence_spans(passage.text, passage.language):
            piece = passage.text[start:end]
            if len(piece) > _MAX_SENTENCE_CHARS:
                piece = piece[:_MAX_SENTENCE_CHARS].rsplit(" ", 1)[0]
            sentences.append(piece)
    return sentences


@dataclass(frozen=True)
class ScoredSentence:
    """A sentence of the passages with how close it is to the claim."""

    position: int
    analysis: Terms
    similarity: float
    """Embedding cosine with the claim."""
    coverage: float
    """Share of the claim's content words (stemmed) the sentence contains."""

    @property
    def text(self) -> str:
        """The sentence, verbatim from its passage."""
        return self.analysis.text

    @property
    def score(self) -> float:
        """Ranking score: the mean of cosine and coverage."""
        return (self.similarity + self.coverage) / 2


def score_sentences(
    claim: str, passages: Sequence[Passage], embedder: Embedder
) -> list[ScoredSentence]:
    """Every sentence of ``passages`` (in reading order) scored against ``claim``."""
    sentences = split_sentences(passages)
    if not sentences:
        return []
    vectors = embedder.embed([claim, *sentences])
    similarities = vectors[1:] @ vectors[0]
    wanted = analyse(claim)
    scored = []
    for position, (text, similarity) in enumerate(zip(sentences, similarities, strict=True)):
        sentence = analyse(text)
        scored.append(
            ScoredSentence(position, sentence, float(similarity), coverage(wanted, sentence))
        )
    return scored


def best_sentence(scored: Sequence[ScoredSentence]) -> ScoredSentence:
    """The highest-scoring sentence (the earliest of equals): the quote of both local judges."""
    return max(scored, key=lambda s: (s.score, -s.position))


def is_about(sentence: ScoredSentence, *, relevance: float, support: float) -> bool:
    """Whether ``sentence`` is about the claim: close in meaning (cosine ≥ ``relevance``) and
    holding its content words (coverage ≥ ``support``)."""
    return sentence.similarity >= relevance and sentence.coverage >= support


def states_other_numbers(claim: Terms, sentence: Terms) -> bool:
    """The claim's numbers are not all in ``sentence``, which states numbers of its own."""
    return bool(claim.numbers) and bool(sentence.numbers) and not claim.numbers <= sentence.numbers
