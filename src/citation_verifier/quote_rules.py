"""Quote rules: whether the quote a judge gives for its verdict holds the claim, for every judge
and every language (the guard applies them, ``guard.py``).

A judge's ``supported`` is a reading of a passage; the quote is what a reader checks it by. Each
rule below reads the claim and the quote (or the passages) with language-neutral tools, values
by :mod:`citation_verifier.measures`, words by :mod:`citation_verifier.terms`, and turns a
verdict the quote does not bear out into another. One rule one function, the same shape, tried
in the order of ``QUOTE_RULES``; how often each fires and how often it is right on the article
set and on dev rows: docs/CHECKER_MODEL.md (``bench/quote_rules.py``).

- ``conflict``: a sentence of the passages about the claim (half its content words, values
  left out) gives another value where the claim gives one the passages state nowhere →
  contradicted, quoting it ("1,2 Millionen Euro" against "1,2 Mrd. Euro"; "5 km" against "the
  4.2-kilometre crossing"). Tried on ``supported`` verdicts with such a claim value, and on
  ``not_found``.
- ``about``: a ``supported`` quote shares at least one content word with the claim (claim and
  page in one language) → else not_found: a sentence about something else does not state it
  ("Мэр города — Игорь Белов" against the construction cost).
- ``speaker``: a ``supported`` verdict on a claim that reports someone's words, estimate or
  decision ("said", "estimates", "confirmed", "sagte", "назвал", "dijo"…) whose quote lacks one
  of the claim's names and names someone else → not_found: the same words given to another
  person or body are no evidence of what the claim's one said ("Dr. Lena Hartmann said …"
  against "…, said Prof. Ingrid Solberg").
- ``values``: a ``supported`` verdict on a claim not in English whose claim value no passage
  states → not_found ("20 Millionen Euro" is not supported by "Der Jahresausweis kostet 20
  Euro"); English claims have the checker's ``number_missing``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from citation_verifier.measures import Measure, measures, stated_by
from citation_verifier.models import Label
from citation_verifier.passages import Passage
from citation_verifier.segment import sentence_spans
from citation_verifier.terms import analyse

CONFLICT_ALIGNED = 0.5
"""Share of the claim's content words a sentence holds to be about the claim's slot."""
RULE_DETAIL = "quote rule: "
"""How a verdict's ``detail`` names the quote rule that decided it."""


@dataclass(frozen=True)
class QuoteContext:
    """A verdict and what it rests on."""

    claim: str
    label: Label
    quote: str | None
    passages: Sequence[Passage]
    claim_language: str | None = None
    page_language: str | None = None

    @property
    def same_language(self) -> bool:
        """Whether claim and page are in one language (or either is unknown)."""
        languages = (self.claim_language, self.page_language)
        return None in languages or languages[0] == languages[1]

    def claim_values(self) -> list[Measure]:
        """The claim's values (numbers in names left out)."""
        return measures(self.claim, self.claim_language, claim=True)


@dataclass(frozen=True)
class QuoteRuling:
    """A rule's verdict instead of the judge's: its label, quote (None for not_found) and why."""

    rule: str
    label: Label
    quote: str | None
    why: str


def _matches(a: str, b: str) -> bool:
    """One content word for another, allowing for inflection (one the start of the other:
    "job"/"jobs", "Белов"/"Белова", "kostet"/"kostete")."""
    return a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))


def word_coverage(claim: str, text: str) -> float:
    """Share of the claim's content words that ``text`` holds (:func:`_matches`)."""
    wanted, have = analyse(claim).tokens, analyse(text).tokens
    if not wanted:
        return 1.0
    return sum(any(_matches(a, b) for b in have) for a in wanted) / len(wanted)


def _without(text: str, spans: Sequence[Measure]) -> str:
    """``text`` with the spans blanked out."""
    for span in sorted(spans, key=lambda m: m.start, reverse=True):
        text = text[: span.start] + " " + text[span.end :]
    return text


def about(context: QuoteContext) -> QuoteRuling | None:
    """A supported quote that shares no content word with the claim is about something else.
    (Not a contradicted one: the checker contradicts on a passage and quotes its likeliest
    sentence, and on dev rows such quotes were right more often than not.)"""
    if context.quote is None or context.label != Label.SUPPORTED or not context.same_language:
        return None
    if word_coverage(context.claim, context.quote) > 0:
        return None
    return QuoteRuling("about", Label.NOT_FOUND, None, "the quote shares no word with the claim")


def missing_value(context: QuoteContext) -> str | None:
    """The first claim value of a supported verdict that none of its passages states, as the
    claim writes it. (The passages, not the quote alone: on dev rows a claim's year or date
    is often in the sentence beside the quote, and the verdict is right.)"""
    if context.label != Label.SUPPORTED or context.quote is None:
        return None
    stated = [m for p in context.passages for m in measures(p.text, p.language)]
    for value in context.claim_values():
        if not stated_by(value, stated):
            return context.claim[value.start : value.end]
    return None


def conflict(context: QuoteContext) -> QuoteRuling | None:
    """The sentence of the passages about the claim (holding at least ``CONFLICT_ALIGNED`` of
    its content words; the most) that gives another value where the claim gives one the
    passages state nowhere."""
    if context.label == Label.CONTRADICTED:
        return None
    if context.label == Label.SUPPORTED and missing_value(context) is None:
        return None
    claimed = context.claim_values()
    if not claimed:
        return None
    read = [
        (p.text[a:b], measures(p.text[a:b], p.language))
        for p in context.passages
        for a, b in sentence_spans(p.text, p.language)
    ]
    stated = [m for _, found in read for m in found]
    missing = [value for value in claimed if not stated_by(value, stated)]
    words = _without(context.claim, claimed)  # "5 km long": "km" is the value's, no topic
    best: tuple[float, QuoteRuling] | None = None
    for text, found in read:
        for value in missing:
            other = next((m for m in found if value.conflicts(m)), None)
            if other is None:
                continue
            aligned = word_coverage(words, text)
            if aligned >= CONFLICT_ALIGNED and (best is None or aligned > best[0]):
                why = (
                    f"the page gives '{text[other.start : other.end]}' where the claim says "
                    f"'{context.claim[value.start : value.end]}'"
                )
                best = (aligned, QuoteRuling("conflict", Label.CONTRADICTED, text, why))
    return None if best is None else best[1]


def values(context: QuoteContext) -> QuoteRuling | None:
    """A supported verdict on a claim value no passage states, for a claim not in English: the
    checker's ``number_missing`` reads English values with the nouns they count, and this
    cruder reading cost right English verdicts on dev rows ("2018–19", "at 31")."""
    if context.claim_language in (None, "en"):
        return None
    missing = missing_value(context)
    if missing is None:
        return None
    why = f"no passage states '{missing}'"
    return QuoteRuling("values", Label.NOT_FOUND, None, why)


_WORD = re.compile(r"[^\W_]+(?:[-'’.][^\W_]+)*")
_OPENERS = frozenset("\"“„«‹'‘([:.!?;-–—•*")
# Capitalised for another reason than naming: titles, and English weekdays (months are values).
_NOT_NAMES = frozenset(
    {"dr", "prof", "mr", "mrs", "ms", "sir", "st", "mt", "i", "monday", "tuesday", "wednesday"}
    | {"thursday", "friday", "saturday", "sunday"}
)
# Languages whose capitals mark names (German capitalises every noun: there only a word with a
# digit counts, "VB-214", "IP68").
_CAPITALS_NAME = frozenset({"en", "es", "ru", "fr", "it", "pt", "nl"})


def _opens(before: str) -> bool:
    """Whether a word after ``before`` opens a sentence or quotation (its capital says
    nothing): nothing before it, or an opening mark or a full stop not of a title or an
    initial ("Dr. Helen Osei", "J. Smith")."""
    before = before.rstrip()
    if not before:
        return True
    if before[-1] != ".":
        return before[-1] in _OPENERS
    last = before[:-1].rsplit(None, 1)[-1] if before[:-1].strip() else ""
    return not (last.lower() in _NOT_NAMES or (len(last) == 1 and last.isupper()))


def _capitalised_names(passages: Sequence[Passage]) -> set[str]:
    """The capitalised words of the passages that do not open a sentence (lowercased)."""
    return {
        m.group().lower()
        for p in passages
        for m in _WORD.finditer(p.text)
        if m.group()[0].isupper() and not _opens(p.text[: m.start()])
    }


def _lower_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def claim_names(
    claim: str, language: str | None = None, passages: Sequence[Passage] = ()
) -> list[str]:
    """The words of ``claim`` that name something: a word that mixes letters and digits, and
    (in languages whose capitals mark names) a capitalised word that does not open the claim or
    a sentence or quotation inside it, or that opens it and is written capitalised inside a
    sentence of the ``passages``; in German, where every noun is capitalised, a capitalised
    word right after another or a title ("Dr. Felix Amsel", "Autorin Jana Wendt"). Values
    (dates, amounts) are left out."""
    text = _without(claim, measures(claim, language, claim=True))
    capitals = (language or "en") in _CAPITALS_NAME
    named_on_page: set[str] | None = None  # read from the passages when first needed
    names = []
    previous = ""  # the word before, when only a space or a full stop lies between
    for match in _WORD.finditer(text):
        word, after = match.group(), previous
        opens = _opens(text[: match.start()])
        previous = word if not opens and text[match.end() : match.end() + 1] in (" ", ".") else ""
        if any(c.isdigit() for c in word):
            if any(c.isalpha() for c in word):
                names.append(word)
            continue
        if not word[0].isupper() or word.lower().rstrip(".") in _NOT_NAMES:
            continue
        if not analyse(word).tokens:  # a capitalised stopword is no name
            continue
        if capitals:
            if opens and named_on_page is None:
                named_on_page = _capitalised_names(passages)
            if not opens or word.lower() in (named_on_page or ()):
                names.append(word)
        elif after[:1].isupper() and text[: match.start()].endswith((after + " ", after + ". ")):
            names.append(word)
    return names


def _named(name: str, words: Sequence[str]) -> bool:
    key = name.lower().removesuffix("'s").removesuffix("’s")
    return any(_matches(key, w) for w in words)


# Words that report what someone said, estimated or decided, in the languages we judge.
_REPORTING = re.compile(
    r"\b(?:said|says|say|told|tells|stated|estimated?s?|expects?|expected|confirmed?s?|"
    r"warned?s?|according|announced?s?|argued?s?|claimed?s?|"
    r"sagte|sagt|sagten|nannte|nennt|erklärte|erklärt|laut|betonte|schätzt|schätzte|"
    r"сказал\w*|заявил\w*|назвал\w*|считает|словам|отметил\w*|оценил\w*|"
    r"dijo|afirmó|declaró|según|aseguró|señaló|estimó)\b",
    re.IGNORECASE,
)


def speaker(context: QuoteContext) -> QuoteRuling | None:
    """A claim that someone said, estimated or decided something is not supported by a quote
    that gives it to someone else: a name of the claim is missing from the quote and the quote
    names others ("Dr. Lena Hartmann said …" against "…, said Prof. Ingrid Solberg")."""
    if context.quote is None or context.label != Label.SUPPORTED or not context.same_language:
        return None
    if not _REPORTING.search(context.claim):
        return None
    wanted = claim_names(context.claim, context.claim_language, context.passages)
    have = _lower_words(context.quote)
    missing = [name for name in wanted if not _named(name, have)]
    if not missing:
        return None
    claimed = _lower_words(context.claim)
    others = [  # words naming someone: "COVID-19" names no speaker
        name
        for name in claim_names(context.quote, context.page_language)
        if not _named(name, claimed) and not any(c.isdigit() for c in name)
    ]
    if not others:
        return None
    why = f"the claim gives it to {' '.join(missing)}; the quote to {' '.join(others)}"
    return QuoteRuling("speaker", Label.NOT_FOUND, None, why)


QUOTE_RULES: tuple[tuple[str, Callable[[QuoteContext], QuoteRuling | None]], ...] = (
    ("conflict", conflict),
    ("about", about),
    ("speaker", speaker),
    ("values", values),
)
"""The quote rules, in the order they are tried (module docstring)."""
OWN_CHECKS = ("conflict", "speaker")
"""The rules tried on the checker's English verdicts, which its exact checks already hold to
their values, polarity and words (``number_missing``, ``polarity``, ``clause_roles``…): on
held-out English rows ``about`` turned right supports into not_found (AttributionBench 0.774
-> 0.761 with a polarity rule since removed), so it guards every other judge and language.
``speaker`` reads what no exact check does, who said it (docs/CHECKER_MODEL.md)."""


def rules_for(judge: str, english: bool) -> Collection[str] | None:
    """The rules a verdict of ``judge`` (its recorded name) gets: ``OWN_CHECKS`` for the
    checker alone on an English pair, all of them (None) for every other judge and pair."""
    checker_alone = judge.startswith("checker/") and "+" not in judge  # not the cascade
    return OWN_CHECKS if checker_alone and english else None


def rule_on(context: QuoteContext, rules: Collection[str] | None = None) -> QuoteRuling | None:
    """The first of ``rules`` (default: all) that turns the verdict into another, or None."""
    for name, rule in QUOTE_RULES:
        if rules is not None and name not in rules:
            continue
        ruling = rule(context)
        if ruling is not None and (ruling.label, ruling.quote) != (context.label, context.quote):
            return ruling
    return None


def rule_of(detail: str | None) -> str | None:
    """The quote rule a verdict's ``detail`` names (``guard.apply_guard``), if any."""
    if detail is None or not detail.startswith(RULE_DETAIL):
        return None
    return detail.removeprefix(RULE_DETAIL).split(":")[0]
