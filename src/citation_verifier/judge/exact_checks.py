"""Exact checks: where a rule is exact and the checker is weak (word overlap is not support).

The checker scores how well a passage supports a claim, and a passage that repeats the claim's
words with one number changed or a "not" added still scores high. These checks compare the
claim with the page's sentence that states its content words (the *aligned* sentence):

- ``number_conflict``: the aligned sentence gives another value in the claim's slot (same kind
  and unit: "8,849 metres" against the claim's "9,100 metres") → contradicted, that sentence as
  the quote (the sentence that states the conflicting fact, not the nearest topical one);
- ``number_missing``: a supported verdict whose claim states a value that is nowhere in the
  passages → not_found (the page does not state it). For both, a number with no unit counts
  the plural noun after it: "six lanes" is neither stated nor excused by "six years";
- ``polarity``: the sentence the checker's support rests on says the opposite polarity
  ("does not prevent" against "prevents") → contradicted with that sentence;
- ``comparison``: the best-aligned sentence compares the same measure of the same thing
  against the same thing the other way ("cost 30 percent more than the original budget"
  against "cost less than its budget") → contradicted with that sentence;
- ``roles``: the sentence the support rests on holds the claim's first three content words in
  reverse order, with no passive ("by") in either ("Smith defeated Jones" against "Jones
  defeated Smith") → not_found;
- ``clause_roles``: the sentence the support rests on has the claim's verb and role words, but
  parsed, no occurrence of that verb has the claim's agent and patient ("The senators were
  helped by the managers" against "The senators helped the managers"; "The scientist near the
  banker slept" against "The banker slept"), or the one that has them is under "if" or beside
  an "or" → not_found;
- ``commitment``: the sentence holds the claim only as what someone believes, hopes or asks
  ("Critics questioned whether the drug reduces mortality"), what someone is only charged with
  ("was accused of murdering his wife", "arrested on suspicion of …"), or what nobody says
  ("did not say that taxes would rise") → not_found, whatever the model or a negation rule
  said; a clause known, even where not known ("did not know that the shop had closed"), is
  no negation of it;
- ``verbatim``: the claim is, word for word, a sentence of the passages (or that sentence with
  nothing but a lead-in) → supported with that sentence.

And where the claim is a sentence of the page with a few words changed (the *near copy*, read
by :mod:`citation_verifier.judge.sentence_diff`):

- ``antonym``: its one change is a word for its opposite (WordNet's antonyms, and the
  prepositions "before"/"after", "above"/"below": "fell" against "rose") → contradicted, that
  sentence as the quote;
- ``other_name``: its one change is a name for one the page never mentions ("born in Lyon"
  against "born in Paris") → contradicted;
- ``other_rank``: its one change is the rank before a superlative ("the largest" against "the
  second largest") → contradicted; the same, worded otherwise, for any claim whose best-aligned
  sentence ranks its subject lower ("the country's longest bridge" against "It is the
  second-longest bridge in the country"; "one of the tallest" → not_found);
- ``quantifier``: its one change is a quantifier the sentence's does not entail ("most"
  against "few" → contradicted; "all" against "some" → not_found; "some" against "all" is
  entailed and left alone);
- ``goes_on``: it says a state goes on where the sentence says it ended ("is still the mayor"
  against "was the mayor until 2008") → contradicted;
- ``swapped``: a supported claim in which two of the sentence's words or names trade places
  ("Jones defeated Smith" against "Smith defeated Jones"; not around an "and") → not_found;
- ``added_fact``: a supported claim that is the sentence plus words, most of whose content the
  page never states ("… and studied law in Oslo") → not_found;
- ``certainty``: a supported claim that states as fact what the sentence states as possible,
  planned or linked ("prevents" against "may be linked to a lower risk of") → not_found.

Values are compared after normalisation (:mod:`citation_verifier.quantities`). How often each
rule fires on dev rows, and its confusion when it does: docs/CHECKER_MODEL.md.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from citation_verifier import comparatives
from citation_verifier.judge import sentence_diff
from citation_verifier.judge.clause_roles import ClauseParser, commitment, conflicting_roles
from citation_verifier.judge.sentence_diff import Alignment, Change
from citation_verifier.models import Label
from citation_verifier.quantities import Quantity, quantities, values
from citation_verifier.terms import Terms, analyse, content_sequence, coverage

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
# Words and phrases that turn a statement into its negation.
_NEGATIVE = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without|"
    r"\w+n['’]t|fail(?:s|ed)?\s+to|den(?:y|ies|ied)|ruled?\s+out|refut(?:e|es|ed)|"
    r"refus(?:e|es|ed)\s+to|declin(?:e|es|ed)\s+to|reject(?:s|ed)?|dismiss(?:es|ed)?|"
    r"disprov(?:e|es|ed)|lack(?:s|ed)?|absence\s+of|unable\s+to)\b",
    re.I,
)
_PASSIVE = re.compile(r"\bby\b", re.I)
# Comparatives with their direction: opposites share a scale (1: more/less, 2: longer/shorter …)
_DIRECTIONS = {
    word: sign * scale
    for scale, pair in enumerate(comparatives.ENGLISH, start=1)
    for sign, words in zip((1, -1), pair, strict=True)
    for word in words
}
_COMPARISON = re.compile(
    r"\b(?P<word>" + "|".join(_DIRECTIONS) + r")\s+(?:(?P<dimension>[^\W\d_]+)\s+)?(?:than\s+)?"
    r"(?P<against>(?:[^,.;:()]|(?<=\d)[,.](?=\d)){1,60})",
    re.I,
)
_DEGREE = frozenset(
    content_sequence("far much even slightly significantly considerably substantially somewhat")
)
_RANK_WORDS = frozenset(content_sequence(" ".join(("one", *sentence_diff.ORDINALS))))
# A name of several words is one role: "David Okafor" → "DavidOkafor".
_NAMES_JOINED = re.compile(r"\b([A-Z][a-z]+)\s+(?=[A-Z][a-z]+\b)")
_FRONTED = re.compile(r"^\s*(?:\S+\s+){0,4}\S+,\s+")
_ALTERNATIVE = re.compile(r"^\s*(?:or|to|and|-|–|—)\s*$", re.I)
# A role swap holds the same words: the claim's are all in the sentence, and make up at least
# this share of the sentence's.
ROLES_SAME_WORDS = 0.8
# How many words after a negation it reaches.
NEGATION_SCOPE = 4
_SCOPE = re.compile(rf"(?:\s*\S+){{0,{NEGATION_SCOPE}}}")
# Aligned: the sentence holds at least this share of the claim's content words.
ALIGNED = 0.6
POLARITY_ALIGNED = 0.75
# A comparison is read from a sentence holding half the claim's content words: the
# comparative and what it compares with may be worded differently.
COMPARISON_ALIGNED = 0.5
# A sentence that leaves these out of the claim drops a disjunct: it does not state the rest.
_DISJUNCTIONS = frozenset({"or", "nor", "either", "neither"})
# A near copy: the sentence holds at least this share of the claim's content words (a claim
# that adds a fact to a sentence may be twice its length) ...
NEAR_COPY_ALIGNED = 0.25
# ... and, for a changed word, name, rank or hedge, repeats this share of its words in order.
NEAR_COPY_SHARED = 0.6
# A fact is added to a sentence of at least this many words (not to "It is small.") ...
ADDED_TO_WORDS = 5
# ... when fewer than this share of the added content words are on the page.
ADDED_ON_PAGE = 0.5
# The plain statement that replaces a hedge is at most this many words ("reduces").
CERTAIN_WORDS = 3


@dataclass(frozen=True)
class Sentence:
    """A candidate sentence: ``chunks[chunk][start:end]``."""

    chunk: int
    start: int
    end: int
    text: str
    terms: Terms


@dataclass(frozen=True)
class Finding:
    """What a rule decided: its label, the sentence that shows it and the rule's name."""

    rule: str
    label: Label
    sentence: Sentence | None


def negations(text: str) -> int:
    """How many negating words or phrases ``text`` holds."""
    return len(_NEGATIVE.findall(text))


def negated_words(text: str) -> set[str]:
    """The content words (stemmed) in the scope of a negation: the next ``NEGATION_SCOPE``
    words after each negating word or phrase ("does not *prevent the common cold*"), but those
    the text also states outside every such scope ("residents complained about *noise*, but a
    study found no increase in noise": noise is not denied)."""
    inside: set[str] = set()
    outside: list[str] = []
    at = 0  # where the text outside every negation and its scope resumes
    for match in _NEGATIVE.finditer(text):
        scope = _SCOPE.match(text, match.end())
        end = scope.end() if scope else match.end()
        inside.update(content_sequence(text[match.end() : end]))
        outside.append(text[at : max(at, match.start())])
        at = max(at, end)
    outside.append(text[at:])
    return inside - set(content_sequence(" ".join(outside)))


def opposite_polarity(claim: str, sentence: str) -> bool:
    """A content word both state is negated in one and not in the other ("prevents the cold"
    against "does not prevent the cold"). A negation about something else in the sentence
    ("Illinois-born Heston was not a Broadway actor" against "Heston was born in Illinois")
    is no opposite, and neither is a pair where both negate something."""
    if negations(claim) and negations(sentence):
        return False  # both negate something: which scopes differ is beyond a word rule
    shared = set(content_sequence(claim)) & set(content_sequence(sentence))
    return bool((negated_words(claim) ^ negated_words(sentence)) & shared)


def _words(text: str) -> list[str]:
    """Lower-cased words of the ``sentence_diff.normalised`` text ("12,083" is "12083", "isn't"
    is "is not", "4 %" is "4 percent")."""
    plain = sentence_diff.normalised(text)
    return [w.lower().replace("’", "'") for w in _WORD.findall(plain)]


def is_verbatim(claim: str, sentence: str) -> bool:
    """``sentence`` states ``claim`` word for word: the claim's words are the sentence's, or a
    contiguous run of them that is at least 80 % of the sentence with no negation, number or
    "or" among the words it leaves out ("during war" is not "during war or disasters")."""
    wanted, have = _words(claim), _words(sentence)
    if len(wanted) < 4 or len(wanted) > len(have):
        return False
    if wanted == have:
        return True
    if len(wanted) < 0.8 * len(have):
        return False
    for i in range(len(have) - len(wanted) + 1):
        if have[i : i + len(wanted)] == wanted:
            left_out = have[:i] + have[i + len(wanted) :]
            if _DISJUNCTIONS & set(left_out):
                return False
            rest = " ".join(left_out)
            return not negations(rest) and not quantities(rest)
    return False


def _time_parts(value: str) -> dict[str, str]:
    """What a year or date states: its year, year and month, month and day."""
    parts: dict[str, str] = {}
    if not value.startswith("-"):
        parts["year"] = value[:4]
        if len(value) >= 7:
            parts["month"] = value[:7]
    if len(value) == 10:
        parts["day"] = value[-5:]
    return parts


def _times_disagree(claimed: str, stated: str) -> bool:
    """The two disagree on a part both state ("1 March 2021" and "2020", but not "2021")."""
    mine, theirs = _time_parts(claimed), _time_parts(stated)
    return any(mine[k] != theirs[k] for k in mine.keys() & theirs.keys())


def _states(found: Sequence[Quantity], q: Quantity) -> bool:
    """Whether ``found`` states the value ``q``: a number as a count of the same thing ("six
    lanes" is not stated by "six years"), a year or date in any part of it ("2021" by "1 March
    2021")."""
    if q.kind != "number":
        return q.value in values(list(found))
    return any(p.value == q.value and p.counts_like(q) for p in found)


def _slot_conflict(
    claimed: Sequence[Quantity], stated: Sequence[Quantity], page: Sequence[Quantity] = ()
) -> bool:
    """A claim value the page never states, where the sentence gives another value of the same
    slot (or the claim's value in another unit: "120 feet" against "120 metres")."""
    have = values(list(stated))
    for q in claimed:
        if q.value in have:
            if (
                q.unit
                and any(s.value == q.value and s.unit and s.unit != q.unit for s in stated)
                and not any(s.value == q.value and s.unit == q.unit for s in stated)
            ):
                return True
            if _states(stated, q):
                continue
        if _states(page, q):
            continue  # stated elsewhere on the page: this sentence is about something else
        if q.kind in ("year", "date"):
            times = (s.value for s in stated if s.kind in ("year", "date"))
            if any(_times_disagree(q.value, t) for t in times):
                return True
        elif any(s.key == q.key and s.counts_like(q) for s in stated):
            return True
    return False


def single_values(text: str) -> list[Quantity]:
    """The text's quantities but those given as alternatives or a range ("in 1889 or 1890",
    "43 to 44", "2–3", "between 10 and 20"): such a value is not stated on its own."""
    found = quantities(text)
    paired: set[int] = set()
    for i in range(len(found) - 1):
        if _ALTERNATIVE.match(text[found[i].end : found[i + 1].start]):
            paired.update((i, i + 1))
    return [q for i, q in enumerate(found) if i not in paired]


@dataclass(frozen=True)
class Comparison:
    """A comparative of a text ("cost 30 percent *more than the budget*"): its direction (the
    sign; opposites share a scale), what it measures ("massive" in "more massive than"), the
    content words before it in the text (what is compared) and after it (what with, or
    where)."""

    direction: int
    dimension: str
    compared: frozenset[str]
    against: frozenset[str]

    def shares(self, other: Comparison) -> bool:
        """The same measure of the same thing against the same thing (a word of degree,
        "far more", names no thing)."""
        return (
            abs(self.direction) == abs(other.direction)
            and self.dimension == other.dimension
            and bool((self.compared & other.compared) - _DEGREE and self.against & other.against)
        )

    def converse(self, other: Comparison) -> bool:
        """The two put the same things on opposite sides ("the buoyant force is greater than
        gravity" and "gravity is less than the buoyant force"): the same statement."""
        return bool((self.compared - self.against) & (other.against - other.compared))


def comparisons(text: str) -> list[Comparison]:
    """Each comparative of ``text`` ("more … than X", "weaker in X") not under a negation ("no
    more than"). "more massive than X" measures "massive" against X; "more blood" and "weaker
    in X" measure nothing named, against what follows."""
    found = []
    for m in _COMPARISON.finditer(text):
        if _NEGATIVE.search(text[max(0, m.start() - 8) : m.start()]):
            continue
        named = " than " in m.group(0).lower() and m.group("dimension")
        dimension = content_sequence(m.group("dimension")) if named else []
        against = m.group("against") if named else text[m.end("word") : m.end()]
        found.append(
            Comparison(
                _DIRECTIONS[m.group("word").lower()],
                dimension[0] if dimension else "",
                frozenset(content_sequence(text[: m.start()])),
                frozenset(content_sequence(against)),
            )
        )
    return found


class ExactChecks:
    """The rules above over one claim and its passages."""

    def __init__(
        self, claim: str, sentences: Sequence[Sentence], parser: ClauseParser | None = None
    ) -> None:
        self.claim = claim
        self.parser = parser
        self.terms = analyse(claim)
        self.quantities = single_values(claim)
        self.sentences = list(sentences)
        self._all_quantities = [q for s in sentences for q in quantities(s.text)]
        self._page_text = " ".join(s.text for s in self.sentences)

    @functools.cached_property
    def near_copy(self) -> tuple[Sentence, Alignment] | None:
        """The sentence the claim repeats most words of, in order, and the claim's changes
        against it (None when no sentence shares enough of the claim)."""
        best: tuple[Sentence, Alignment] | None = None
        for sentence in self.aligned(NEAR_COPY_ALIGNED):
            alignment = sentence_diff.align(self.claim, sentence.text)
            if best is None or alignment.shared > best[1].shared:
                best = (sentence, alignment)
        return best

    @functools.cached_property
    def close_copy(self) -> tuple[Sentence, list[Change]] | None:
        """The near copy's sentence and the changes that may alter what it states, when the
        claim repeats at least ``NEAR_COPY_SHARED`` of its words from it (a changed word,
        name, rank, quantifier or hedge is read only then)."""
        found = self.near_copy
        if found is None:
            return None
        sentence, alignment = found
        if alignment.shared < NEAR_COPY_SHARED * alignment.claim_words:
            return None
        return sentence, sentence_diff.significant(alignment.changes, self._page_text)

    def one_change(self) -> Finding | None:
        """A near copy whose one change swaps a word for its opposite, a name for one the page
        never mentions, or the rank before a superlative; or that says a state goes on where
        the sentence says it ended."""
        close = self.close_copy
        if close is None:
            return None
        sentence, changes = close
        if sentence_diff.goes_on(changes):
            return Finding("goes_on", Label.CONTRADICTED, sentence)
        if len(changes) != 1:
            return None
        for rule, test in (
            ("negated", sentence_diff.negated),
            ("other_number", sentence_diff.other_number),
            ("antonym", sentence_diff.antonym),
            ("other_name", lambda c: sentence_diff.other_name(c, self._page_text)),
            ("other_rank", sentence_diff.other_rank),
        ):
            if test(changes[0]):
                return Finding(rule, Label.CONTRADICTED, sentence)
        quantified = sentence_diff.quantifier(changes[0])
        if quantified is not None:
            return Finding("quantifier", quantified, sentence)
        return None

    def outranked(self) -> Finding | None:
        """The claim puts something at the top ("the longest bridge") where the best-aligned
        sentence ranks it lower ("the second-longest bridge": contradicted) or only among the
        top ("one of the longest bridges": not_found), wherever else the two differ. The
        sentence ranks what the claim is about: before its superlative stand words of the
        claim, or no content word at all ("It is the second-longest"); "Helium is the second
        most abundant element, after hydrogen" ranks no hydrogen."""
        claimed = (w.lower() for w in sentence_diff.words(self.claim))
        if self.parser is None or not any(sentence_diff.SUPERLATIVE.match(w) for w in claimed):
            return None
        top = [s for s in self.parser.superlatives(self.claim) if s.where == "top"]
        aligned = self.aligned()
        if not top or not aligned:
            return None
        stated = self.parser.superlatives(aligned[0].text)
        subject = set(content_sequence(self.claim))
        for mine in top:
            places = {
                s.where
                for s in stated
                if s.key == mine.key
                and (
                    not (before := set(content_sequence(s.before)) - _RANK_WORDS)
                    or before & subject
                )
            }
            if places == {"below"}:
                return Finding("other_rank", Label.CONTRADICTED, aligned[0])
            if places == {"among"}:
                return Finding("other_rank", Label.NOT_FOUND, None)
        return None

    def comparison(self) -> Finding | None:
        """The claim compares one way ("cost less than its budget", "stronger in people over
        70") where the best-aligned sentence compares the same measure of the same thing
        against the same thing the other way ("cost 30 percent more than the original budget",
        "weaker in people over 70"), and none of the claim's comparisons agrees with the
        sentence's → contradicted, that sentence."""
        claimed = comparisons(self.claim)
        aligned = self.aligned(COMPARISON_ALIGNED)
        if not claimed or not aligned:
            return None
        stated = comparisons(aligned[0].text)
        pairs = [(mine, c) for mine in claimed for c in stated if mine.shares(c)]
        if any(mine.direction == c.direction or mine.converse(c) for mine, c in pairs):
            return None
        if pairs:
            return Finding("comparison", Label.CONTRADICTED, aligned[0])
        return None

    def swapped(self) -> Finding | None:
        """A near copy with two of its words or names trading places."""
        found = self.near_copy
        if found is None:
            return None
        if sentence_diff.swapped(self.claim, found[0].text):
            return Finding("swapped", Label.NOT_FOUND, None)
        return None

    def added_fact(self) -> Finding | None:
        """The claim is a sentence of the page, every word in order, plus words after its start
        that state something the page does not (most of their content words are nowhere on
        it)."""
        found = self.near_copy
        if found is None:
            return None
        alignment = found[1]
        if (
            alignment.shared < alignment.page_words
            or alignment.page_words < ADDED_TO_WORDS
            or not alignment.changes
        ):
            return None
        # A lead-in ("According to the report,", "Studies show that") adds no fact.
        added = content_sequence(
            " ".join(w for c in alignment.changes if c.before for w in c.claim)
        )
        if len(added) < 2:
            return None
        on_page = set(content_sequence(self._page_text))
        if sum(w in on_page for w in added) < ADDED_ON_PAGE * len(added):
            return Finding("added_fact", Label.NOT_FOUND, None)
        return None

    def certainty(self) -> Finding | None:
        """The claim is the sentence with its hedge, plan or future replaced by a plain
        statement ("reduces" for "might reduce"): every change that may alter what is stated is
        such a replacement, of at most ``CERTAIN_WORDS`` words, or a hedging lead-in left out;
        and the claim hedges nowhere."""
        close = self.close_copy
        if close is None or sentence_diff.hedged(sentence_diff.words(self.claim)):
            return None
        sentence, changes = close
        if changes and all(
            sentence_diff.uncertain(c.page, c.claim)
            and len(c.claim) <= CERTAIN_WORDS
            and (c.claim or not c.before)  # or a hedging lead-in left out: "Studies suggest"
            for c in changes
        ):
            return Finding("certainty", Label.NOT_FOUND, sentence)
        return None

    def aligned(self, threshold: float = ALIGNED) -> list[Sentence]:
        """Sentences holding at least ``threshold`` of the claim's content words, best first
        (ties: reading order)."""
        scored = [(coverage(self.terms, s.terms), -i, s) for i, s in enumerate(self.sentences)]
        return [
            s for c, _, s in sorted(scored, key=lambda t: t[:2], reverse=True) if c >= threshold
        ]

    def verbatim(self) -> Finding | None:
        """The sentence that states the claim word for word."""
        for sentence in self.sentences:
            if is_verbatim(self.claim, sentence.text):
                return Finding("verbatim", Label.SUPPORTED, sentence)
        return None

    def number_conflict(self) -> Finding | None:
        """The best-aligned sentence that gives another value in a slot of the claim's."""
        if not self.quantities:
            return None
        for sentence in self.aligned():
            if _slot_conflict(self.quantities, quantities(sentence.text), self._all_quantities):
                return Finding("number_conflict", Label.CONTRADICTED, sentence)
        return None

    def states_values(self, text: str) -> bool:
        """``text`` states every value of the claim (in the claim's unit, where both give
        one)."""
        stated = quantities(text)
        return all(_states(stated, q) and not _slot_conflict([q], stated) for q in self.quantities)

    def number_missing(self) -> Finding | None:
        """A claim value stated nowhere in the passages (a number, nowhere as a count of the
        same thing: "36 classrooms" is not stated by "opened 36 years ago")."""
        if any(not _states(self._all_quantities, q) for q in self.quantities):
            return Finding("number_missing", Label.NOT_FOUND, None)
        return None

    def roles(self, quote: str) -> Finding | None:
        """The sentence ``quote`` rests on holds the claim's first three content words in
        reverse order (subject, verb, object against object, verb, subject: "Jones defeated
        Smith" against "Smith defeated Jones"; a fronted "In 2019, Smith defeated Jones" keeps
        their order), neither is passive, and the two hold the same words (a swap of roles, not
        a sentence that says more)."""
        inside = [s for s in self.aligned(POLARITY_ALIGNED) if s.text in quote]
        if not inside or _PASSIVE.search(self.claim) or _PASSIVE.search(inside[0].text):
            return None
        have = content_sequence(_NAMES_JOINED.sub(r"\1", inside[0].text))
        core = _FRONTED.sub("", self.claim, count=1)  # "In 2019, ..." is no role
        claimed = content_sequence(_NAMES_JOINED.sub(r"\1", core))
        if not set(claimed) <= set(have) or len(set(claimed)) < ROLES_SAME_WORDS * len(set(have)):
            return None
        order = list(dict.fromkeys(w for w in claimed if w in have))
        if len(order) < 3:
            return None
        first, second, third = (have.index(w) for w in order[:3])
        if first > second > third:  # exactly reversed: object, verb, subject
            return Finding("roles", Label.NOT_FOUND, None)
        return None

    def clause_roles(self, quote: str) -> Finding | None:
        """The sentence ``quote`` rests on has the claim's verb and role words, but no
        occurrence of the verb with the claim's agent and patient, or only one under "if" or
        beside an "or" (:mod:`citation_verifier.judge.clause_roles`)."""
        inside = [s for s in self.aligned(POLARITY_ALIGNED) if s.text in quote]
        if inside and self.parser and conflicting_roles(self.parser, self.claim, inside[0].text):
            return Finding("clause_roles", Label.NOT_FOUND, None)
        return None

    def held_as(self) -> str | None:
        """How the best-aligned sentence holds the claim when only as believed, asked
        "whether", charged or said by nobody ("unasserted"), or known, even when not known
        ("presupposed"); None otherwise (:func:`clause_roles.commitment`). Aligned at
        ``ALIGNED``: "took bribes" is in "accused of taking bribes" only by its lemmas."""
        aligned = self.aligned()
        if not aligned or self.parser is None:
            return None
        return commitment(self.parser, self.claim, aligned[0].text)

    def polarity(self, quote: str) -> Finding | None:
        """The sentence ``quote`` rests on (the best-aligned sentence inside it) is negated
        where the claim is not, or the other way round."""
        inside = [s for s in self.aligned(POLARITY_ALIGNED) if s.text in quote]
        if inside and opposite_polarity(self.claim, inside[0].text):
            return Finding("polarity", Label.CONTRADICTED, inside[0])
        return None
