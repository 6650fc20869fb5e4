"""A negated claim's positive form: what the checker also reads it as.

A small NLI model learns from its training data that a negation in the hypothesis means
contradiction (annotators write most contradictions by adding "not"), so it called "The company
did not report a loss in 2020" contradicted by a page about the company's new office. The
positive form ("The company did report a loss in 2020") carries no such cue: the model reads it
as not_found there, so the negated claim is not contradicted either (``judge.checker``).

Only a claim with exactly one plain negation of its verb is rewritten ("is not", "did not",
"doesn't", "cannot", "never", "not" before a word); "no", "none", "nobody", "nothing" and
"neither" are quantifiers whose positive form is no simple statement ("No one was hurt" is not
the negation of "One was hurt"), and a claim with two negations is left as it is.
"""

from __future__ import annotations

import re

# Every negation, to count them (the quantifiers included: a claim holding one is not rewritten).
_ANY_NEGATION = re.compile(
    r"\b(?:not|never|no|none|nobody|nothing|neither|nor|cannot|\w+n['’]t)\b", re.I
)
# "won't" and "can't" lose more than their "n't".
_IRREGULAR = {"won't": "will", "can't": "can", "shan't": "shall", "ain't": "is"}
_CONTRACTED = re.compile(r"\b(\w+)n['’]t\b", re.I)
_CANNOT = re.compile(r"\bcannot\b", re.I)
_NOT = re.compile(r"\s*\b(?:not|never)\b", re.I)


def positive_form(claim: str) -> str | None:
    """``claim`` without its one negation ("The drug does not work" → "The drug does work"),
    or None when it has none, more than one, or only a quantifier's ("No one …")."""
    found = _ANY_NEGATION.findall(claim)
    if len(found) != 1:
        return None
    word = found[0].lower().replace("’", "'")
    if word in _IRREGULAR:
        keep = _IRREGULAR[word]
        return re.sub(rf"\b{re.escape(found[0])}\b", _cased(found[0], keep), claim, count=1)
    if word.endswith("n't"):
        return _CONTRACTED.sub(lambda m: m.group(1), claim, count=1)
    if word == "cannot":
        return _CANNOT.sub(lambda m: _cased(m.group(0), "can"), claim, count=1)
    if word in {"not", "never"}:
        positive = _NOT.sub("", claim, count=1).strip()
        return positive[:1].upper() + positive[1:] if claim[:1].isupper() else positive
    return None


def _cased(original: str, word: str) -> str:
    return word.capitalize() if original[:1].isupper() else word
