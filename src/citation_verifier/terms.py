"""The content words, numbers and polarity of a text: what the lexical retrieval ranks by, and
what the judges' decision rules (claim-term coverage, number agreement, negation) compare."""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Terms:
    """A text's content words (lower-cased, stemmed; stop words, negations and numbers left
    out), its numbers and whether it is negated."""

    text: str
    tokens: frozenset[str]
    numbers: frozenset[str]
    negated: bool


def _stem(word: str) -> str:
    word = word.removesuffix("'s").removesuffix("'")  # "country's" is "country"
    for suffix in ("ing", "edly", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


# Scripts written without spaces between words: a run of them is read as overlapping character
# pairs (the usual lexical unit for Chinese and Japanese retrieval), not as one long "word".
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def _pieces(word: str) -> list[str]:
    """``word`` itself, or the character pairs of its runs of an unspaced script."""
    if not _UNSPACED.search(word):
        if _CYRILLIC.search(word) and len(word) > 5:
            # Russian-style inflection lives in the last one or two letters: compare the rest.
            return [word[: max(5, len(word) - 2)]]
        return [word]
    pieces: list[str] = []
    for part in re.split(f"({_UNSPACED.pattern})", word):
        if not part:
            continue
        if _UNSPACED.fullmatch(part):
            pieces.extend(part[i : i + 2] for i in range(max(1, len(part) - 1)))
        else:
            pieces.append(part)
    return pieces


def _words(text: str) -> list[str]:
    words = (w.lower().replace("’", "'") for w in _TOKEN.findall(text))
    return [piece for word in words for piece in _pieces(word)]


def analyse(text: str) -> Terms:
    """The text's content words, numbers and polarity."""
    words = _words(text)
    numbers = frozenset(w.replace(",", "") for w in words if _NUMBER.match(w))
    tokens = frozenset(
        _stem(w) for w in words if w not in _STOPWORDS and w not in _NEGATIONS and w not in numbers
    )
    negated = any(w in _NEGATIONS or w.endswith("n't") for w in words)
    return Terms(text, tokens, numbers, negated)


def coverage(claim: Terms, evidence: Terms) -> float:
    """Share of the claim's content words found in ``evidence``."""
    return len(claim.tokens & evidence.tokens) / len(claim.tokens) if claim.tokens else 0.0


def index_terms(text: str) -> list[str]:
    """The text's content words (stemmed) and numbers in reading order, repeats kept: the terms
    lexical retrieval counts."""
    terms = []
    for word in _words(text):
        if _NUMBER.match(word):
            terms.append(word.replace(",", ""))
        elif word not in _STOPWORDS and word not in _NEGATIONS:
            terms.append(_stem(word))
    return terms


def content_sequence(text: str) -> list[str]:
    """The text's content words (stemmed) in reading order, numbers left out: the order the
    role check compares."""
    return [
        _stem(w)
        for w in _words(text)
        if w not in _STOPWORDS and w not in _NEGATIONS and not _NUMBER.match(w)
    ]
