"""What a claim changed in the page's sentence it nearly repeats.

A claim made from a page's sentence and then edited keeps most of its words in order; the
words it changed say what the claim asserts that the sentence does not. The changes are read
off a word alignment (``difflib``) of the claim against the sentence; articles are ignored,
every other word counts (a "not" is a change)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from citation_verifier.antonyms import opposite
from citation_verifier.models import Label

_WORD = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*", re.UNICODE)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_ARTICLES = frozenset({"a", "an", "the"})
_CONTRACTION = re.compile(r"\b([^\W_]+?)n['’]t\b", re.UNICODE)
_IRREGULAR_CONTRACTIONS = {"ca": "can", "wo": "will", "sha": "shall"}
_CANNOT = re.compile(r"\b(can)not\b", re.I)
_PERCENT_SIGN = re.compile(r"\s*%")
_PER_CENT = re.compile(r"\bper\s+cent\b", re.I)
_NUMERAL = re.compile(r"^\d+(?:\.\d+)?$")
# Words that make a statement possible or reported rather than a fact, and words that make it
# a plan or a future. A claim that holds the first kind hedges too; "will" in a claim does not.
_HEDGES = frozenset(
    {
        "may",
        "might",
        "could",
        "would",
        "should",
        "likely",
        "unlikely",
        "possibly",
        "probably",
        "perhaps",
        "potentially",
        "suggest",
        "suggests",
        "suggested",
        "linked",
        "associated",
    }
)
_PLANS = frozenset(
    {
        "will",
        "shall",
        "plan",
        "plans",
        "planned",
        "planning",
        "expected",
        "expects",
        "proposed",
        "proposes",
        "intend",
        "intends",
        "aims",
        "hopes",
        "scheduled",
    }
)
_NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "neither", "cannot", "without"})
# Ranks before a superlative ("the second largest").
ORDINALS = frozenset(
    {
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "2nd",
        "3rd",
        "4th",
        "5th",
        "6th",
        "7th",
        "8th",
        "9th",
        "10th",
    }
)
# Quantifiers are ordered, not opposite: "all" entails "some" (WordNet lists them as antonyms).
_QUANTIFIERS = frozenset(
    {"all", "some", "none", "no", "any", "every", "each", "many", "few", "most", "much", "little"}
)
# Prepositions of time and place: a closed class WordNet leaves out.
_OPPOSITE_PREPOSITIONS = frozenset(
    {("after", "before"), ("above", "below"), ("over", "under"), ("inside", "outside")}
)  # each pair in sorted order
# A claim that a state goes on where the sentence says it ended ("is still the mayor" against
# "was the mayor until 2008").
_GOES_ON = frozenset({"still", "currently", "today", "now", "remains", "remain", "continues"})
_ENDED = frozenset({"until", "till", "former", "formerly", "previously", "ex"})
# Words around which two names may trade places without a change of meaning.
_SYMMETRIC = frozenset({"and", "or", "nor", "&"})
# Quantifiers by strength: a weaker one is entailed by a stronger ("all" → "some").
_STRENGTH = {
    "no": 0,
    "none": 0,
    "few": 1,
    "some": 2,
    "several": 2,
    "many": 3,
    "most": 4,
    "all": 5,
    "every": 5,
    "each": 5,
}
# A word that may be a superlative (a parse tells): "largest", "best", "most" (popular).
SUPERLATIVE = re.compile(r"^(?:\w+est|most|least|best|worst)$")


@dataclass(frozen=True)
class Change:
    """One difference: the claim's words where the sentence has ``page``'s (either may be
    empty), as written."""

    claim: tuple[str, ...]
    page: tuple[str, ...]
    before: str
    """The word both share just before the change (lower case; "" at the start)."""
    after: str
    """The word both share just after it (lower case; "" at the end)."""
    first: bool
    """The change holds the first word of the claim or of the sentence (capitalised there
    whatever it is)."""


@dataclass(frozen=True)
class Alignment:
    """The claim against one sentence: the changes and how many words the two share."""

    changes: tuple[Change, ...]
    shared: int
    claim_words: int
    page_words: int


def without_thousands(text: str) -> str:
    """The text with its numbers' thousands separators dropped ("12,083" is "12083")."""
    return _THOUSANDS.sub("", text)


def _uncontracted(match: re.Match[str]) -> str:
    stem = match.group(1)
    return _IRREGULAR_CONTRACTIONS.get(stem.lower(), stem) + " not"


def normalised(text: str) -> str:
    """The text with what is written two ways written one way: no thousands separators,
    negations spelt out ("isn't" is "is not", "cannot" is "can not"), "%" and "per cent" as
    "percent"."""
    text = _CONTRACTION.sub(_uncontracted, without_thousands(text))
    text = _CANNOT.sub(r"\1 not", text)
    return _PER_CENT.sub("percent", _PERCENT_SIGN.sub(" percent", text))


def words(text: str) -> list[str]:
    """The text's words as written (``normalised``)."""
    return _WORD.findall(normalised(text))


def align(claim: str, sentence: str) -> Alignment:
    """The claim's changes against ``sentence``, articles ignored."""
    all_mine, all_theirs = words(claim), words(sentence)
    mine = [w for w in all_mine if w.lower() not in _ARTICLES]
    theirs = [w for w in all_theirs if w.lower() not in _ARTICLES]
    opens_mine = bool(all_mine) and all_mine[0].lower() not in _ARTICLES
    opens_theirs = bool(all_theirs) and all_theirs[0].lower() not in _ARTICLES
    lower_mine, lower_theirs = [w.lower() for w in mine], [w.lower() for w in theirs]
    matcher = difflib.SequenceMatcher(None, lower_theirs, lower_mine, autojunk=False)
    changes = []
    shared = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            shared += i2 - i1
            continue
        changes.append(
            Change(
                claim=tuple(mine[j1:j2]),
                page=tuple(theirs[i1:i2]),
                before=lower_theirs[i1 - 1] if i1 else "",
                after=lower_theirs[i2] if i2 < len(theirs) else "",
                first=(i1 == 0 and i2 > 0 and opens_theirs) or (j1 == 0 and j2 > 0 and opens_mine),
            )
        )
    return Alignment(tuple(changes), shared, len(mine), len(theirs))


def _on_page(span: Sequence[str], page_text: str) -> bool:
    """The words are on the page in this order (articles between them, as ``align`` drops)."""
    gap = r"\W+(?:(?:a|an|the)\W+)?"
    return re.search(rf"\b{gap.join(map(re.escape, span))}\b", page_text, re.I) is not None


def _marked(span: Sequence[str]) -> bool:
    """The words hold a negation, a rank, a hedge or a plan (what a change may not hide)."""
    lower = {w.lower() for w in span}
    return bool(
        lower & (_NEGATIONS | ORDINALS | _HEDGES | _PLANS) or any(w.endswith("n't") for w in lower)
    )


def significant(changes: Sequence[Change], page_text: str) -> list[Change]:
    """The changes that may alter what is stated: not words of the sentence the claim leaves
    out, nor words the claim adds that the page states (a claim that runs on into the next
    sentence); a negation, rank, hedge or plan always counts."""
    return [
        c
        for c in changes
        if _marked(c.claim + c.page)
        or (c.claim and c.page)
        or (c.claim and not _on_page(c.claim, page_text))
    ]


def _is_name(span: Sequence[str]) -> bool:
    return 0 < len(span) <= 3 and all(w[:1].isupper() and w[1:].islower() for w in span)


def antonym(change: Change) -> bool:
    """One word swapped for its opposite ("fell" where the page says "rose")."""
    if len(change.claim) != 1 or len(change.page) != 1:
        return False
    mine, theirs = change.claim[0].lower(), change.page[0].lower()
    if {mine, theirs} & _QUANTIFIERS:
        return False
    pair = tuple(sorted((mine, theirs)))
    return pair in _OPPOSITE_PREPOSITIONS or opposite(mine, theirs)


def other_name(change: Change, page_text: str) -> bool:
    """A name swapped for one the page never mentions ("born in Lyon" where the page says
    "born in Paris"). At the start only names of two words or more on both sides ("Kenji
    Watanabe" for "Maria Keller"): any one word is capitalised there ("Roughly" for "About")."""
    return (
        (not change.first or min(len(change.claim), len(change.page)) >= 2)
        and _is_name(change.claim)
        and _is_name(change.page)
        and not _on_page(change.claim, page_text)
    )


def negated(change: Change) -> bool:
    """A negation added ("are not still revising" where the page says "are still revising")
    or left out ("not", "never"; a left-out "no" may be a number's: "No. 5 Squadron"), and
    nothing else changed."""
    if change.claim and change.page:
        return False
    allowed = _NEGATIONS if change.claim else {"not", "never"}
    return all(w.lower() in allowed for w in change.claim or change.page)


def other_number(change: Change) -> bool:
    """One number for another that neither rounds to ("from 1977 to 1979" where the page says
    "from 1975 to 1979"; "24" for "24.3" is a rounding)."""
    if len(change.claim) != 1 or len(change.page) != 1:
        return False
    mine, theirs = change.claim[0], change.page[0]
    if not (_NUMERAL.match(mine) and _NUMERAL.match(theirs)):
        return False

    def rounds_to(value: str, target: str) -> bool:
        return round(float(value), len(target.partition(".")[2])) == float(target)

    return not rounds_to(theirs, mine) and not rounds_to(mine, theirs)


def other_rank(change: Change) -> bool:
    """A rank before a superlative added, dropped or changed ("the largest" where the page says
    "the second largest")."""
    ranks = [w.lower() for w in (*change.claim, *change.page)]
    return (
        len(change.claim) <= 1
        and len(change.page) <= 1
        and all(w in ORDINALS for w in ranks)
        and bool(SUPERLATIVE.match(change.after))
    )


def quantifier(change: Change) -> Label | None:
    """One quantifier for another: the claim's is not entailed by the sentence's. "None" and
    any positive one, or "few" and "many" or more, cannot both hold → contradicted; a stronger
    positive one than the sentence's ("all" for "some") is not stated → not_found; a weaker
    one ("some" for "all") is entailed → None."""
    if len(change.claim) != 1 or len(change.page) != 1:
        return None
    mine, theirs = (_STRENGTH.get(w[0].lower()) for w in (change.claim, change.page))
    if mine is None or theirs is None or mine == theirs:
        return None
    if min(mine, theirs) == 0 or (min(mine, theirs) == 1 and max(mine, theirs) >= 3):
        return Label.CONTRADICTED
    return Label.NOT_FOUND if mine > theirs else None


_FUTURE = frozenset({"will", "shall"})
_PAST = re.compile(r"^(?:was|were|had|did|[a-z]+ed)$")


def uncertain(span: Sequence[str], instead: Sequence[str] = ()) -> bool:
    """The words hold a hedge, a plan or a future ("may", "plans to", "linked"), a future
    ("will") only where ``instead`` (the claim's words in its place) puts it in the past: a
    future the page states is stated ("A toll will be charged" states "A toll is charged"),
    it has not happened ("The museum will open" does not state "The museum opened")."""
    words = {w.lower() for w in span}
    if words & (_HEDGES | (_PLANS - _FUTURE)):
        return True
    return bool(words & _FUTURE) and any(_PAST.match(w.lower()) for w in instead)


def hedged(span: Sequence[str]) -> bool:
    """The words hold a hedge ("may", "could", "linked"; not "will")."""
    return any(w.lower() in _HEDGES for w in span)


def goes_on(changes: Sequence[Change]) -> bool:
    """The claim says a state goes on ("still", "today") where the sentence says it ended
    ("until 2008", "former")."""
    claimed = {w.lower() for c in changes for w in c.claim}
    stated = {w.lower() for c in changes for w in c.page}
    return bool(claimed & _GOES_ON and stated & _ENDED)


def _roles(text: str) -> list[str]:
    """Lower-case words, articles dropped, a name of several words as one ("david okafor")."""
    out: list[str] = []
    for word in words(text):
        if out and word[:1].isupper() and out[-1][:1].isupper():
            out[-1] += " " + word
        elif word.lower() not in _ARTICLES:
            out.append(word)
    return [w.lower() for w in out]


def swapped(claim: str, sentence: str) -> bool:
    """The claim is the sentence with two of its words or names trading places ("Jones
    defeated Smith" against "Smith defeated Jones"), not around an "and" ("Jones and Smith
    won")."""
    mine, theirs = _roles(claim), _roles(sentence)
    if mine == theirs or sorted(mine) != sorted(theirs):
        return False
    differ = [i for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b]
    if len(differ) != 2:
        return False
    i, j = differ
    between = set(theirs[i + 1 : j])
    return mine[i] == theirs[j] and mine[j] == theirs[i] and not between <= _SYMMETRIC
