"""Sentence scoring shared by the embedded judges: the passages split into sentences (each a
verbatim slice), every sentence scored against the claim by embedding cosine and claim-term
coverage, plus the claim analysis (content words, numbers, polarity) the decision rules use."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citation_verifier.passages import Passage
from citation_verifier.retrieve import Embedder

_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|\n+")
_TOKEN = re.compile(r"[^\W_]+(?:[.,'’][^\W_]+)*", re.UNICODE)
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*$")
_NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "cannot",
        "without",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "doesn't",
        "don't",
        "didn't",
        "won't",
        "wouldn't",
        "can't",
        "couldn't",
        "shouldn't",
        "hasn't",
        "haven't",
        "hadn't",
    ]
)
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "of",
        "at",
        "by",
        "for",
        "with",
        "about",
        "against",
        "between",
        "into",
        "through",
        "during",
        "before",
        "after",
        "above",
        "below",
        "to",
        "from",
        "up",
        "down",
        "in",
        "out",
        "on",
        "off",
        "over",
        "under",
        "again",
        "further",
        "once",
        "here",
        "there",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "s",
        "t",
        "can",
        "will",
        "just",
        "should",
        "now",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "having",
        "do",
        "does",
        "did",
        "doing",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "it",
        "its",
        "they",
        "them",
        "their",
        "what",
        "which",
        "who",
        "whom",
        "this",
        "that",
        "these",
        "those",
        "am",
        "as",
        "until",
        "while",
        "also",
        "would",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "one",
        "ones",
        "per",
    ]
)
_MAX_SENTENCE_CHARS = 600


@dataclass(frozen=True)
class _Sentence:
    text: str
    tokens: frozenset[str]
    numbers: frozenset[str]
    negated: bool


def _stem(word: str) -> str:
    for suffix in ("ing", "edly", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _analyse(text: str) -> _Sentence:
    words = [w.lower().replace("’", "'") for w in _TOKEN.findall(text)]
    numbers = frozenset(w.replace(",", "") for w in words if _NUMBER.match(w))
    tokens = frozenset(
        _stem(w) for w in words if w not in _STOPWORDS and w not in _NEGATIONS and w not in numbers
    )
    negated = any(w in _NEGATIONS or w.endswith("n't") for w in words)
    return _Sentence(text, tokens, numbers, negated)


def split_sentences(passages: Sequence[Passage]) -> list[str]:
    """Sentences of the passages, each a verbatim slice of one passage."""
    sentences: list[str] = []
    for passage in passages:
        start = 0
        for match in [*_SENTENCE_END.finditer(passage.text), None]:
            end = match.start() if match else len(passage.text)
            piece = passage.text[start:end].strip()
            if len(piece) > _MAX_SENTENCE_CHARS:
                piece = piece[:_MAX_SENTENCE_CHARS].rsplit(" ", 1)[0]
            if any(ch.isalnum() for ch in piece):
                sentences.append(piece)
            if match:
                start = match.end()
    return sentences


@dataclass(frozen=True)
class ScoredSentence:
    """A sentence of the passages with how close it is to the claim."""

    position: int
    analysis: _Sentence
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
    wanted = analyse_claim(claim)
    scored = []
    for position, (text, similarity) in enumerate(zip(sentences, similarities, strict=True)):
        sentence = _analyse(text)
        scored.append(
            ScoredSentence(position, sentence, float(similarity), coverage(wanted, sentence))
        )
    return scored


def analyse_claim(claim: str) -> _Sentence:
    """The claim's content words, numbers and polarity."""
    return _analyse(claim)


def coverage(claim: _Sentence, evidence: _Sentence) -> float:
    """Share of the claim's content words found in ``evidence``."""
    return len(claim.tokens & evidence.tokens) / len(claim.tokens) if claim.tokens else 0.0


def best_sentence(scored: Sequence[ScoredSentence]) -> ScoredSentence:
    """The highest-scoring sentence (the earliest of equals): the quote of both local judges."""
    return max(scored, key=lambda s: (s.score, -s.position))


def is_about(sentence: ScoredSentence, *, relevance: float, support: float) -> bool:
    """Whether ``sentence`` is about the claim: close in meaning (cosine ≥ ``relevance``) and
    holding its content words (coverage ≥ ``support``)."""
    return sentence.similarity >= relevance and sentence.coverage >= support


def states_other_numbers(claim: _Sentence, sentence: _Sentence) -> bool:
    """The claim's numbers are not all in ``sentence``, which states numbers of its own."""
    return bool(claim.numbers) and bool(sentence.numbers) and not claim.numbers <= sentence.numbers
