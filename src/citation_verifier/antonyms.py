"""Words of opposite meaning, from WordNet 3.0's direct antonyms (``data/antonyms``, built by
``training/wordnet_antonyms.py``): "rose" against "fell", "open" against "closed".

A word is read as each lemma it may be an inflection of (WordNet's irregular forms and its
suffix rules), so "increased" meets "decrease" and "larger" meets "small"."""

from __future__ import annotations

import functools
from importlib import resources

# WordNet's detachment rules (morphy) for nouns, verbs and adjectives, as (suffix, ending).
_SUFFIXES = (
    ("s", ""),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
    ("es", "e"),
    ("es", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
)
_VOWELS = frozenset("aeiou")


def _rows(name: str) -> list[tuple[str, str]]:
    folder = resources.files("citation_verifier").joinpath("data", "antonyms")
    text = folder.joinpath(name).read_text("utf-8")
    return [
        (a, b)
        for a, b in (line.split("\t") for line in text.splitlines() if not line.startswith("#"))
    ]


@functools.cache
def _lexicon() -> tuple[frozenset[tuple[str, str]], dict[str, frozenset[str]]]:
    pairs = _rows("pairs.tsv")
    forms: dict[str, set[str]] = {}
    for form, lemma in _rows("forms.tsv"):
        forms.setdefault(form, set()).add(lemma)
    both = frozenset(pairs) | frozenset((b, a) for a, b in pairs)
    return both, {form: frozenset(lemmas) for form, lemmas in forms.items()}


def lemmas(word: str) -> set[str]:
    """The word itself and every lemma it may be an inflection of ("bigger" → "big")."""
    word = word.lower()
    out = {word, *_lexicon()[1].get(word, ())}
    for suffix, ending in _SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            stem = word[: -len(suffix)]
            out.add(stem + ending)
            if not ending and len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
                out.add(stem[:-1])  # "bigger" → "bigg" → "big"
    return out


def opposite(a: str, b: str) -> bool:
    """WordNet marks some lemma of ``a`` and some lemma of ``b`` as antonyms."""
    pairs = _lexicon()[0]
    return any((x, y) in pairs for x in lemmas(a) for y in lemmas(b))
