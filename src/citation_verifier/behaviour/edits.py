"""Edits of real sentences that change (or keep) what they state: the suite's cases from real
pages, and the checker's hard negatives in training (``training/data.py``)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence

from citation_verifier.behaviour.cases import Case
from citation_verifier.models import Label

_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w])")
_THOUSANDS = re.compile(r"(?<![\w.,])(\d{1,3}),(\d{3})(?![\w,.])|(?<![\w.,])(\d{4,6})(?![\w,.])")
AUXILIARIES = r"is|are|was|were|has|have|had|can|could|will|would|should|does|did|do|may|might|must"
"""The auxiliary verbs a negation follows, as a regular-expression alternation."""
_AUXILIARY = re.compile(rf"\b({AUXILIARIES})\b")
# Two capitalised names with lower-case words between them: "Smith defeated Jones".
_NAME = r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?"
_ROLES = re.compile(rf"^({_NAME})(\s+(?:[a-z]+\s+){{1,3}})({_NAME})\b")
_ENTITY = re.compile(r"(?<=\s)[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]{2,})?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
# Word pairs of opposite meaning (either direction). The measured templates' pairs (rose/fell,
# won/lost, open/closed) are not among them: the suite checks that the lesson generalises.
_ANTONYMS = (
    ("increased", "decreased"),
    ("increase", "decrease"),
    ("increases", "decreases"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("more", "fewer"),
    ("before", "after"),
    ("allowed", "banned"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("gained", "lost"),
    ("rising", "falling"),
    ("strengthened", "weakened"),
    ("positive", "negative"),
    ("first", "last"),
    ("earliest", "latest"),
    ("largest", "smallest"),
    ("highest", "lowest"),
    ("success", "failure"),
    ("legal", "illegal"),
    ("male", "female"),
    ("older", "younger"),
    ("north", "south"),
    ("east", "west"),
    ("entered", "left"),
    ("joined", "left"),
    ("born", "died"),
)
_OPPOSITE = {a: b for a, b in _ANTONYMS} | {b: a for a, b in _ANTONYMS}
_OPPOSABLE = re.compile(r"\b(" + "|".join(sorted(_OPPOSITE, key=len, reverse=True)) + r")\b")
_HEDGE = re.compile(
    r"\b(?:may|might|could)\s+(?:be\s+)?|\b(?:is|are|was|were)\s+(?:linked|associated)\s+with\b"
)


def change_number(claim: str, evidence: str, rng: random.Random) -> str | None:
    """The claim with one number it shares with the evidence changed, or None."""
    shared = [m for m in _NUMBER.finditer(claim) if m.group() in evidence]
    if not shared:
        return None
    match = rng.choice(shared)
    value = match.group().replace(",", "")
    try:
        number = float(value)
    except ValueError:
        return None
    if "." in value:
        new = f"{number * rng.choice((0.5, 1.5, 2.0, 3.0)):.{len(value.split('.')[1])}f}"
    elif 1800 <= number <= 2100:
        new = str(int(number) + rng.choice((-7, -3, -2, 2, 3, 5)))
    else:
        new = str(max(0, int(number * rng.choice((0.5, 2, 3)) + rng.choice((-1, 1, 7)))))
    if new == value:
        return None
    return claim[: match.start()] + new + claim[match.end() :]


def negate(claim: str) -> str | None:
    """The claim with its first auxiliary verb negated ("was" → "was not"), or None."""
    match = _AUXILIARY.search(claim)
    if match is None or re.match(r"\s+(not|never|no)\b", claim[match.end() :]):
        return None
    return claim[: match.end()] + " not" + claim[match.end() :]


def regroup_thousands(sentence: str) -> str | None:
    """The same sentence with a number's thousands separator added or removed ("2,068" ↔
    "2068"; years are left alone), or None."""
    for m in _THOUSANDS.finditer(sentence):
        if m.group(1):
            new = m.group(1) + m.group(2)
        else:
            value = int(m.group(3))
            if 1000 <= value <= 2100:
                continue
            new = f"{value:,}"
        return sentence[: m.start()] + new + sentence[m.end() :]
    return None


def swap_roles(sentence: str) -> str | None:
    """The sentence with the names before and after its verb swapped ("Smith defeated Jones" →
    "Jones defeated Smith"), or None when it does not open that way."""
    m = _ROLES.match(sentence)
    if m is None or m.group(1) == m.group(3) or m.group(1) in {"The", "In", "On", "At"}:
        return None
    return m.group(3) + m.group(2) + m.group(1) + sentence[m.end() :]


def swap_entity(sentence: str, others: Sequence[str], rng: random.Random) -> str | None:
    """The sentence with one capitalised name (not its first word) replaced by a name from
    ``others`` that it does not contain, or None."""
    names = list(_ENTITY.finditer(sentence))
    candidates = [o for o in others if o not in sentence]
    if not names or not candidates:
        return None
    m = rng.choice(names)
    return sentence[: m.start()] + rng.choice(candidates) + sentence[m.end() :]


def swap_antonym(sentence: str) -> str | None:
    """The sentence with one word replaced by its opposite ("increased" → "decreased"), or
    None when it holds none of the listed words."""
    m = _OPPOSABLE.search(sentence)
    if m is None:
        return None
    return sentence[: m.start()] + _OPPOSITE[m.group(1)] + sentence[m.end() :]


def drop_hedge(sentence: str) -> str | None:
    """The sentence with its hedge made certain ("may reduce" → "will reduce", "is linked
    with" → "causes"), or None when it is not hedged."""
    m = _HEDGE.search(sentence)
    if m is None:
        return None
    first = m.group().split()[0]
    if first in {"may", "might", "could"}:
        certain = "will be " if m.group().rstrip().endswith("be") else "will "
    else:
        certain = "causes" if first in {"is", "was"} else "cause"
    return sentence[: m.start()] + certain + sentence[m.end() :]


def names(text: str) -> list[str]:
    """The capitalised names of ``text`` (not sentence-initial words)."""
    return [m.group() for m in _ENTITY.finditer(text)]


def sentences(passage: str) -> list[str]:
    """The passage's whole sentences of 8 to 40 words (claim-sized)."""
    return [
        s
        for s in map(str.strip, _SENTENCE_END.split(passage))
        if 8 <= len(s.split()) <= 40 and s[-1] in ".!?" and s[0].isupper()
    ]


def sentence_cases(
    passages: Sequence[tuple[str, str]], rng: random.Random, per_passage: int = 1
) -> Iterator[Case]:
    """Cases from real sentences: ``passages`` are (dataset, passage text) pairs; each case is
    checked against the passage its sentence comes from.

    - the sentence itself → supported (verbatim); its thousands regrouped → supported;
    - a number changed, the verb negated → contradicted;
    - a name swapped for one from another passage → contradicted (entities);
    - the names around its verb swapped → not_found (roles);
    - the sentence joined to one from another passage → not_found (partial)."""
    pool = [(source, text, sentences(text)) for source, text in passages]
    pool = [p for p in pool if p[2]]
    all_names = sorted({n for _, text, _ in pool for n in names(text)})
    for index, (source, passage, found) in enumerate(pool):
        for draw in range(per_passage):
            sentence = rng.choice(found)
            other = (
                pool[(index + 1 + rng.randrange(len(pool) - 1)) % len(pool)]
                if len(pool) > 1
                else None
            )
            edits: list[tuple[str, str | None, Label, str]] = [
                ("verbatim", sentence, Label.SUPPORTED, "real-verbatim"),
                ("numbers", regroup_thousands(sentence), Label.SUPPORTED, "real-regroup"),
                (
                    "numbers",
                    change_number(sentence, passage, rng),
                    Label.CONTRADICTED,
                    "real-number",
                ),
                ("negation", negate(sentence), Label.CONTRADICTED, "real-negate"),
                (
                    "entities",
                    swap_entity(sentence, all_names, rng),
                    Label.CONTRADICTED,
                    "real-entity",
                ),
                ("roles", swap_roles(sentence), Label.NOT_FOUND, "real-roles"),
                ("antonyms", swap_antonym(sentence), Label.CONTRADICTED, "real-antonym"),
                ("hedges", drop_hedge(sentence), Label.NOT_FOUND, "real-hedge"),
            ]
            if other is not None:
                joined = rng.choice(other[2])
                partial = f"{sentence[:-1]}, and {joined[0].lower()}{joined[1:]}"
                edits.append(("partial", partial, Label.NOT_FOUND, "real-partial"))
            for category, claim, expected, edit in edits:
                if claim is None or (claim == sentence and edit != "real-verbatim"):
                    continue
                yield Case(
                    id=f"{edit}:{source}:{index}:{draw}",
                    category=category,
                    claim=claim,
                    evidence=passage,
                    expected=expected,
                    template=edit,
                    source=source,
                )
