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
  4.2-kilometre crossing"; "ranked third" against "climbs to second"). Tried on ``supported``
  verdicts with such a claim value, and on ``not_found``.
- ``roles``: a claim of two clauses, each naming its doer, whose words each sit on the page
  with the other doer ("orders issued by the Calder County Sheriff's Office. The American Red
  Cross has opened a shelter" against "The American Red Cross issued the orders, while the
  Sheriff's Office opened a shelter") → contradicted. Tried on ``supported`` and ``not_found``.
- ``about``: a ``supported`` quote shares at least one content word with the claim (claim and
  page in one language) → else not_found: a sentence about something else does not state it
  ("Мэр города — Игорь Белов" against the construction cost); a ``contradicted`` one holds at
  least half of them, or contradicts nothing the claim says.
- ``speaker``: a ``supported`` verdict on a claim that reports someone's words, estimate or
  decision ("said", "estimates", "confirmed", "sagte", "назвал", "dijo"…) whose quote lacks one
  of the claim's names and names someone else → not_found: the same words given to another
  person or body are no evidence of what the claim's one said ("Dr. Lena Hartmann said …"
  against "…, said Prof. Ingrid Solberg").
- ``hedge``: a ``supported`` verdict on a claim that hedges nowhere whose quote holds a word
  of the claim only under a hedge ("could", "whether", "expected", "könnte", «может»,
  "podría"…) → not_found: what may happen is no evidence that it will ("will fall" against
  "could lose ground"; "was sparked by" against "examining whether … may have sparked it").
- ``future``: ``hedge`` on a claim that says what will happen, for the checker's verdicts.
- ``comparison``: a ``supported`` verdict whose quote holds a sentence about the claim (half
  its content words) that compares on the claim's scale only the other way ("lithiumreicher
  als" against "ärmer als"; "lower than" against "exceeds"), or the same way with the claim's
  two things swapped ("the Orra still produces cleaner zoom shots" against "the Novu produces
  cleaner zoom shots than the Orra") → contradicted, quoting it.
- ``values``: a ``supported`` verdict on a claim not in English whose claim value no passage
  states → not_found ("20 Millionen Euro" is not supported by "Der Jahresausweis kostet 20
  Euro"); English claims have the checker's ``number_missing``.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from citation_verifier import comparatives
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
    """A supported quote that shares no content word with the claim is about something else,
    and so is a contradicting one that holds less than ``CONFLICT_ALIGNED`` of them (function
    words and values left out): a contradiction needs a sentence about the claim ("Die
    Genehmigung ist an 46 Auflagen geknüpft" contradicts nothing of "Die Lithiumförderung
    beginnt 2028"). The checker's English verdicts are left alone (``OWN_CHECKS``): it
    contradicts on a passage and quotes its likeliest sentence, and on dev rows such quotes
    were right more often than not; there supported ones measured 5 changes, 4 right. On the
    article set the contradicted ones: 4 changes, all right (three unmentioned facts, a hedge);
    Russian challenge half 1, of a gold supported claim (not_found instead of contradicted)."""
    if context.quote is None or not context.same_language:
        return None
    if context.label == Label.SUPPORTED and word_coverage(context.claim, context.quote) == 0:
        why = "the quote shares no word with the claim"
        return QuoteRuling("about", Label.NOT_FOUND, None, why)
    if context.label == Label.CONTRADICTED and _held(context) < CONFLICT_ALIGNED:
        why = "the quote is not about the claim: it holds few of its words"
        return QuoteRuling("about", Label.NOT_FOUND, None, why)
    return None


def _held(context: QuoteContext) -> float:
    """Share of the claim's content words (values and function words left out) that its
    quote holds, allowing for inflection."""
    claim = _without(context.claim, context.claim_values())
    function_words = _function_words()
    wanted = {w for w in _lower_words(claim) if w not in function_words and analyse(w).tokens}
    have = _lower_words(context.quote or "")
    if not wanted:
        return 1.0
    return sum(any(_alike(w, h) for h in have) for w in wanted) / len(wanted)


def _read(context: QuoteContext) -> list[tuple[str, list[Measure]]]:
    """Each sentence of the passages with its values. Where the claim gives a rank, a plain
    number of a table row (no closing full stop) that names the claim's first name (not its
    opening word: "El keniano Joseph Mutua") is read as a place too: "Masculina 4 Joseph Mutua
    Kenia 2:10:12" states "cuarto" of Mutua, and "la 14.ª edición" no place of anyone."""
    ranked = any(v.dimension == "rank" for v in context.claim_values())
    names = claim_names(context.claim, context.claim_language, context.passages) if ranked else []
    read = []
    for p in context.passages:
        for a, b in sentence_spans(p.text, p.language):
            text = p.text[a:b]
            found = measures(text, p.language)
            row = not text.rstrip().endswith(_CLOSERS)
            if names and row and _named(names[0], _lower_words(text)):
                found += [
                    replace(m, dimension="rank", magnitude=m.plain)
                    for m in found
                    if m.kind == "amount" and not m.dimension and text[m.start : m.end].isdigit()
                ]
            read.append((text, found))
    return read


_CLOSERS = tuple('.!?…»"”“')


def missing_value(context: QuoteContext, *, ranks: bool = True) -> str | None:
    """The first claim value of a supported verdict that none of its passages states, as the
    claim writes it (a rank too, with ``ranks``). (The passages, not the quote alone: on dev
    rows a claim's year or date is often in the sentence beside the quote, and the verdict is
    right.)"""
    if context.label != Label.SUPPORTED or context.quote is None:
        return None
    stated = [m for _, found in _read(context) for m in found]
    for value in context.claim_values():
        if (ranks or value.dimension != "rank") and not stated_by(value, stated):
            return context.claim[value.start : value.end]
    return None


# A number that opens or closes a range ("4 to 4.5 days", "between 3 and 5", "10–12").
_RANGE_BEFORE = re.compile(r"(?:\bto|\band|[-–—])\s*$", re.IGNORECASE)
_RANGE_AFTER = re.compile(r"\s*(?:to\b|[-–—])", re.IGNORECASE)


def _rounds(claimed: float, stated: float) -> bool:
    """Whether a round claim number may be the page's rounded ("8,000 tests" for 8,276)."""
    return claimed >= 100 and claimed % 100 == 0 and abs(stated - claimed) <= 0.1 * claimed


def _counted(text: str, value: Measure) -> list[str]:
    """The two words after a number: what it counts ("71 фрагмент", "50 Jahre lang")."""
    return _lower_words(text[value.end :])[:2]


def _other_count(claim: str, value: Measure, text: str, other: Measure) -> bool:
    """Whether ``other`` in ``text`` counts what the claim's plain number counts, another
    number of it: the word after each the same but for its ending ("71 фрагмент" against "17
    фрагментов", "50 Jahre" against "30 Jahre"); plain numbers counting unnamed things are
    no conflict."""
    if value.dimension or other.dimension or value.kind != "amount" or other.kind != "amount":
        return False
    in_range = _RANGE_BEFORE.search(claim[: value.start]) or _RANGE_AFTER.match(claim, value.end)
    if value.same(other) or in_range or _rounds(value.magnitude, other.magnitude):
        return False  # "4 to 4.5 days" is a range, and 4.6 may lie in another study's
    mine, theirs = _counted(claim, value), _counted(text, other)
    return bool(mine and theirs) and _alike(mine[0], theirs[0])


def conflict(context: QuoteContext) -> QuoteRuling | None:
    """The sentence of the passages about the claim (holding at least ``CONFLICT_ALIGNED`` of
    its content words; the most) that gives another value where the claim gives one the
    passages state nowhere. Measured: dev rows 4 changes, all right; article set 7, all right
    (5 values, 2 ranks). Counts of one thing, places said as superlatives and "Aug. 7," read
    as a date added 7 right changes on the article set and 1 right on dev rows, none of a
    binary label on held-out rows."""
    if context.label == Label.CONTRADICTED:
        return None
    claimed = context.claim_values()
    if not claimed:
        return None
    read = _read(context)  # once: the passages split and measured, as missing_value does
    words = _without(context.claim, claimed)  # "5 km long": "km" is the value's, no topic
    # A place is the claim's where a sentence about it or naming its subject gives it: "first"
    # is on most pages, of something else ("the first convincing evidence").
    names = claim_names(context.claim, context.claim_language, context.passages)
    aligned = [word_coverage(words, text) for text, _ in read]
    aligned_ranks = [
        m
        for (text, found), share in zip(read, aligned, strict=True)
        if share >= CONFLICT_ALIGNED or any(_named(n, _lower_words(text)) for n in names[:1])
        for m in found
        if m.dimension == "rank"
    ]
    stated = [m for _, found in read for m in found if m.dimension != "rank"] + aligned_ranks
    missing = [value for value in claimed if not stated_by(value, stated)]
    if context.label == Label.SUPPORTED and (context.quote is None or not missing):
        return None
    ranks = sum(value.dimension == "rank" for value in claimed)

    def placed(text: str) -> bool:
        return ranks == 1 if not names else any(_named(n, _lower_words(text)) for n in names)

    best: tuple[float, QuoteRuling] | None = None
    for (text, found), share in zip(read, aligned, strict=True):
        if share < CONFLICT_ALIGNED:
            continue
        for value in missing:
            other = next(
                (
                    m
                    for m in found
                    if (value.conflicts(m) or _other_count(context.claim, value, text, m))
                    and not stated_by(m, claimed)
                    # of places, one of a claim that names nothing or another place only of
                    # something it names ("fifth season … prior to the fourth season" has no
                    # place in "renewed for fifth seasons while McMafia … a second season")
                    and (m.dimension != "rank" or placed(text))
                ),
                None,
            )
            if other is not None and (best is None or share > best[0]):
                why = (
                    f"the page gives '{text[other.start : other.end]}' where the claim says "
                    f"'{context.claim[value.start : value.end]}'"
                )
                best = (share, QuoteRuling("conflict", Label.CONTRADICTED, text, why))
    return None if best is None else best[1]


def values(context: QuoteContext) -> QuoteRuling | None:
    """A supported verdict on a claim value no passage states, for a claim not in English: the
    checker's ``number_missing`` reads English values with the nouns they count, and this
    cruder reading cost right English verdicts on dev rows ("2018–19", "at 31"). A rank is left
    to ``conflict``: "first" is often said in other words ("erstmals", "the top"). Measured:
    article set 2 changes, both from a false supported."""
    if context.claim_language in (None, "en"):
        return None
    missing = missing_value(context, ranks=False)
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
    names others ("Dr. Lena Hartmann said …" against "…, said Prof. Ingrid Solberg").
    Measured: dev rows 1 change, wrong; article set 8, 6 to the gold label and 2 false
    supported to not_found."""
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


# Words that state something only as possible, planned, expected or asked, in the languages we
# judge ("may" only in lower case: "May 2024" is a month; "may not", "could not" deny, forbid
# or say what failed, and are no hedge).
_HEDGES = re.compile(
    r"\b(?:could|might|should|whether|possibly|perhaps|probably|likely|unlikely|expected|"
    r"expects?|plans?|planned|proposed|reportedly|earliest|"
    r"könnten?|dürften?|möglicherweise|vielleicht|wahrscheinlich|voraussichtlich|ob|geplant|"
    r"frühestens|"
    r"erwartet|может|могут|могл[иао]|мог|возможно|вероятно|планиру\w*|ожида\w*|"
    r"предположительно|якобы|ли|podrían?|posiblemente|probablemente|quizás?|prevé|espera)\b"
    r"|\bmay\b",
    re.IGNORECASE,
)
_DENIED = re.compile(r"\s+(?:not|never|n't)\b", re.IGNORECASE)
# A claim that says what something suggests hedges; a page's "a study suggests that X" reports
# a finding (dev rows: gold supported).
_SUGGESTS = re.compile(r"\bsuggest(?:s|ed|ing)?\b", re.IGNORECASE)
HEDGE_SCOPE = 5
"""Words after a hedge that it governs ("could *lose ground next year*")."""


def _hedges(text: str) -> list[re.Match[str]]:
    return [
        m for m in _HEDGES.finditer(text) if m.group() != "May" and not _DENIED.match(text, m.end())
    ]


# Words that deny, in the languages we judge ("not only", "no more than" deny nothing).
_NEGATIONS = re.compile(
    r"\b(?:not|never|no|none|neither|nor|nicht|kein(?:e|en|er|es|em)?|nie|niemals|"
    r"не|нет|ни|никогда|nunca|ningun[oa]?|ningún|jamás)\b(?!\s+(?:only|nur|только|solo|sólo)\b)"
    r"(?!\s+(?:more|less|fewer)\s+than\b)|n't\b",
    re.IGNORECASE,
)
NEGATION_SCOPE = 3
"""Words after a negation that it denies ("have not yet *been peer reviewed*")."""


@functools.cache
def _function_words() -> frozenset[str]:
    """German, Russian and Spanish function words (spaCy's lists; ``terms`` drops English
    ones): «по» or "die" under a negation denies nothing of the claim."""
    from spacy.lang.de.stop_words import STOP_WORDS as german
    from spacy.lang.es.stop_words import STOP_WORDS as spanish
    from spacy.lang.ru.stop_words import STOP_WORDS as russian

    return frozenset(german | spanish | russian)


# A negation or hedge governs its own clause: «не задумываясь, заявляют» denies no statement,
# and "did not know that X" does not deny X.
_CLAUSE_END = re.compile(r"[,;:()«»“”\"—–]|\b(?:that|which|who|dass|что|который|которая|que)\b")


def _under(text: str, matches: Sequence[re.Match[str]], scope: int) -> dict[str, str]:
    """The content words of ``text`` within ``scope`` words after one of ``matches`` (not past
    the end of its clause) and nowhere outside every such scope, each with the match that
    governs it."""
    inside: dict[str, str] = {}
    outside: list[str] = []
    at = 0
    for match in matches:
        clause = _CLAUSE_END.search(text, match.end())
        stop = clause.start() if clause else len(text)
        words = list(_WORD.finditer(text, match.end(), stop))[:scope]
        end = words[-1].end() if words else match.end()
        for word in analyse(text[match.end() : end]).tokens - _function_words():
            inside.setdefault(word, match.group())
        outside.append(text[at : max(at, match.start())])
        at = max(at, end)
    outside.append(text[at:])
    stated = analyse(" ".join(outside)).tokens
    return {w: m for w, m in inside.items() if not any(_matches(w, o) for o in stated)}


def hedged_words(text: str) -> dict[str, str]:
    """The content words of ``text`` that it states only under a hedge (within ``HEDGE_SCOPE``
    words after one) and nowhere outside every hedge's scope, each with its hedge."""
    return _under(text, _hedges(text), HEDGE_SCOPE)


def hedge(context: QuoteContext) -> QuoteRuling | None:
    """A claim stated as fact is not supported by a quote that states it only as possible,
    planned or expected ("will fall" against "could lose ground"; "was sparked by" against
    "are examining whether … may have sparked it"): a content word of the claim that the quote
    holds only under a hedge, and a claim that hedges nowhere. Measured: on the checker's
    English verdicts, dev rows 4 changes, 3 right, but held-out rows 47, 18 right (not among
    ``OWN_CHECKS``); article set, other judges, 1 change, right."""
    if context.quote is None or context.label != Label.SUPPORTED or not context.same_language:
        return None
    if _hedges(context.claim) or _SUGGESTS.search(context.claim):
        return None
    claimed = analyse(context.claim).tokens
    hedged = hedged_words(context.quote)
    governing = next((h for w, h in hedged.items() if any(_matches(w, c) for c in claimed)), None)
    if governing is None:
        return None
    why = f"the quote states it only as possible or expected ('{governing}')"
    return QuoteRuling("hedge", Label.NOT_FOUND, None, why)


_WILL = re.compile(r"\b(?:will|won't|shall)\b", re.IGNORECASE)


def future(context: QuoteContext) -> QuoteRuling | None:
    """``hedge`` on an English claim that says what will happen: a plan, an expectation or a
    possibility is no evidence that it will ("will reduce the heat" against "an update could
    reduce it"). The hedge the checker's English verdicts get (``OWN_CHECKS``): of ``hedge``'s
    47 changes on the held-out rows, the few on claims with "will" were right, and the rest
    mostly turned claims that say "can" or give advice. Measured: held-out rows 1 change, right;
    article set 5, 4 to the gold label; dev rows 0."""
    if not _WILL.search(context.claim):
        return None
    ruling = hedge(context)
    return None if ruling is None else replace(ruling, rule="future")


# A German comparative may close a compound ("lithiumreicher") and be inflected ("größere").
_COMPARATIVE_OF = {
    word: (scale, way)
    for scale, pair in enumerate((*comparatives.ENGLISH, *comparatives.OTHER_LANGUAGES))
    for way, words in enumerate(pair)
    for word in words
} | {word: (0, 0) for word in comparatives.ENGLISH_VERBS_MORE}
_GERMAN_ENDINGS = ("", "e", "en", "er", "es", "em")
# German comparatives that close compounds ("lithiumreicher"); English ones do not ("follower").
_GERMAN_STEMS = tuple(
    word
    for pair in comparatives.OTHER_LANGUAGES
    for words in pair
    for word in words
    if word.endswith("er") and len(word) >= 5
)


def _comparative(word: str) -> tuple[int, int] | None:
    """(scale, way) of a comparative word, a German compound or inflection read to its end."""
    found = _COMPARATIVE_OF.get(word)
    if found is not None:
        return found
    for ending in _GERMAN_ENDINGS[1:]:
        if word.endswith(ending) and word[: -len(ending)] in _COMPARATIVE_OF:
            return _COMPARATIVE_OF[word[: -len(ending)]]
    for stem in _GERMAN_STEMS:
        if word.endswith(stem) and len(word) > len(stem) + 2:
            return _COMPARATIVE_OF[stem]  # "lithiumreicher"
    return None


def _comparatives(text: str) -> set[tuple[int, int]]:
    return {c for w in _lower_words(text) if (c := _comparative(w)) is not None}


# What a comparison compares against ("than", "als", «чем», "que"), and where a sentence's
# clauses part ("…, though the Orra still produces cleaner shots").
_THAN = re.compile(r"(?<![^\W\d_])(?:than|als|чем|que)(?![^\W\d_])", re.IGNORECASE)
_CONTRAST = re.compile(
    r";|,?\s+(?:though|although|while|whereas|but|während|aber|obwohl|а|но|хотя|mientras|"
    r"pero|aunque)(?![^\W\d_])",
    re.IGNORECASE,
)
_NUMBER_WORD = re.compile(r"\d+(?:[.,]\d+)*")
# English words in -er that compare nothing.
_NOT_COMPARATIVES = frozenset(
    {"other", "rather", "never", "whether", "under", "after", "over", "water", "number"}
)


def _compares(word: str, claim: str) -> tuple[int, int] | str | None:
    """What ``word`` compares on, as the claim's comparative would: a listed comparative's
    (scale, way), or the word itself where it is a word in -er of the claim's ("cleaner")."""
    listed = _comparative(word)
    if listed is not None:
        return listed
    if len(word) >= 5 and word.endswith("er") and word not in _NOT_COMPARATIVES:
        return word if word in _lower_words(claim) else None
    return None


def _sides(
    text: str, claim: str
) -> tuple[tuple[int, int] | str, list[str], list[str] | None] | None:
    """What the clause of ``text`` that compares (:func:`_compares`) compares on, its words
    before the comparative's "than" and after it (None without one: "the Orra still produces
    cleaner shots" compares the Orra with what the sentence is about)."""
    for clause in _CONTRAST.split(text):
        words = _lower_words(clause)
        for at, word in enumerate(words):
            key = _compares(word, claim)
            if key is None:
                continue
            than = next((i for i in range(at + 1, len(words)) if _THAN.fullmatch(words[i])), None)
            if than is None:
                return key, words, None
            return key, words[:than], words[than + 1 :]
    return None


Compared = tuple[tuple[int, int] | str, set[str], set[str]]
"""What a claim compares on and the marks of its two things (:func:`_compared`)."""


def _compared(context: QuoteContext) -> Compared | None:
    """What the claim compares on and its two things, each told by the names and numbers the
    claim gives on its side of "than" only; None unless it compares two such things."""
    mine = _sides(context.claim, context.claim)
    if mine is None:
        return None
    key, first, second = mine
    if second is None:
        return None
    names = claim_names(context.claim, context.claim_language, context.passages)
    marks = [n.lower() for n in names] + _NUMBER_WORD.findall(context.claim)
    one = {m for m in marks if _named(m, first) and not _named(m, second)}
    other = {m for m in marks if _named(m, second) and not _named(m, first)}
    return (key, one, other) if one and other else None


def _swapped(compared: Compared | None, claim: str, sentence: str) -> bool:
    """Whether ``sentence`` compares the claim's two things (:func:`_compared`) on its scale
    the same way with their places swapped ("stronger in participants aged 60 to 74 … than in
    those aged 75 and over" for "stronger protection to people aged 75 and over than to those
    aged 60 to 74")."""
    theirs = _sides(sentence, claim)
    if compared is None or theirs is None or theirs[0] != compared[0]:
        return False
    _, one, other = compared
    _, before, after = theirs
    if not any(_named(m, before) for m in other) or any(_named(m, before) for m in one):
        return False
    return after is None or (
        any(_named(m, after) for m in one) and not any(_named(m, after) for m in other)
    )


def _before_comparative(text: str) -> set[str]:
    """The content words of ``text`` before its first comparative (what it compares)."""
    words = _lower_words(text)
    at = next((i for i, w in enumerate(words) if _comparative(w)), len(words))
    return set(analyse(" ".join(words[:at])).tokens)


def _converse(claim: str, sentence: str) -> bool:
    """Whether the sentence compares the claim's two things the other way round ("Kraków is
    larger than Gothenburg" for "Gothenburg is smaller than Kraków"): the same statement."""
    mine, theirs = _before_comparative(claim), _before_comparative(sentence)
    against = set(analyse(claim).tokens) - mine
    return bool(against & theirs) and not mine <= theirs


def comparison(context: QuoteContext) -> QuoteRuling | None:
    """A claim that compares one way is not supported by the sentence of its quote about the
    claim (half its content words) that compares on the same scale only the other way
    ("lithiumreicher als" against "ärmer als"; «больше, чем годом ранее» against «на четверть
    меньше, чем годом ранее») → contradicted, quoting it; and so is the claim's two things
    compared the same way with their places swapped, in the quote or in a sentence of the
    passages about the claim, or given figures there that compare the other way ("24 minutes,
    compared with 41 minutes on the X7 bus" against "will take longer than the X7 bus").
    Measured: dev rows 0 changes; article set 7, all right; held-out rows 0."""
    if context.quote is None or context.label != Label.SUPPORTED or not context.same_language:
        return None
    claimed = _comparatives(context.claim)
    if not claimed and not _THAN.search(context.claim):
        return None
    words = _without(context.claim, context.claim_values())
    opposite = {(scale, 1 - way) for scale, way in claimed}
    compared = _compared(context)
    for a, b in sentence_spans(context.quote, context.page_language):
        sentence = context.quote[a:b]
        stated = _comparatives(sentence)
        if word_coverage(words, sentence) < CONFLICT_ALIGNED:
            continue
        if stated & opposite and not stated & claimed and not _converse(context.claim, sentence):
            why = "the quote compares the other way"
            return QuoteRuling("comparison", Label.CONTRADICTED, sentence, why)
        if _swapped(compared, context.claim, sentence):
            why = "the quote compares the two the other way round"
            return QuoteRuling("comparison", Label.CONTRADICTED, sentence, why)
    if compared is None:
        return None
    for p in context.passages:  # the page's figures for the two, in a sentence about them
        for a, b in sentence_spans(p.text, p.language):
            text = p.text[a:b]
            if word_coverage(words, text) >= CONFLICT_ALIGNED and (
                _swapped(compared, context.claim, text)
                or _figures_reversed(compared, context, text)
            ):
                why = "the page compares the two the other way round"
                return QuoteRuling("comparison", Label.CONTRADICTED, text, why)
    return None


# What a sentence sets one figure against ("24 minutes, compared with 41 minutes").
_VERSUS = re.compile(
    r"(?<![^\W\d_])(?:than|compared (?:with|to)|versus|vs\.?|against|als|gegenüber|"
    r"im Vergleich zu|чем|по сравнению с|frente a|comparad[oa] con)(?![^\W\d_])",
    re.IGNORECASE,
)


def _figures_reversed(compared: Compared, context: QuoteContext, sentence: str) -> bool:
    """Whether ``sentence`` gives the claim's two things (:func:`_compared`) figures of one
    kind that compare the other way: "will take 24 minutes, compared with 41 minutes on the
    current X7 bus" against "will take longer than the current X7 bus" (the claim's own
    figures left out)."""
    split = _VERSUS.search(sentence)
    if split is None:
        return False
    key, one, other = compared
    if not isinstance(key, tuple):  # a word in -er of the claim's: which way it goes is unknown
        return False
    way = key[1]
    before, after = sentence[: split.start()], sentence[split.end() :]
    pre, post = _lower_words(before), _lower_words(after)
    if not (any(_named(m, pre) for m in one) or any(_named(m, post) for m in other)):
        return False
    if any(_named(m, pre) for m in other) or any(_named(m, post) for m in one):
        return False
    claimed = context.claim_values()
    figures = [
        [
            m
            for m in measures(part, context.page_language)
            if m.kind == "amount" and not stated_by(m, claimed)
        ]
        for part in (before, after)
    ]
    if not figures[0] or not figures[1]:
        return False
    first, second = figures[0][-1], figures[1][0]
    if first.dimension != second.dimension or first.magnitude == second.magnitude:
        return False
    return (first.magnitude < second.magnitude) == (way == 0)


# Where a claim's or a page sentence's clauses part, each with its own doer ("X will build it,
# and Y will run it"; "… issued by the Sheriff's Office. The Red Cross has opened a shelter").
_CLAUSES = re.compile(
    r";|\s(?:while|whereas|but|and|während|aber|und|а|но|и|mientras|pero|y)(?![^\W\d_])",
    re.IGNORECASE,
)
_CLAUSES_OR_COMMAS = re.compile(r",|" + _CLAUSES.pattern)
ROLES_MARGIN = 3
"""How many more of the two claim clauses' words must sit with the other doer than with their
own, together, for ``roles`` to call them swapped."""


def _alike(a: str, b: str) -> bool:
    """One word for another, allowing for inflection and the vowel of an irregular form
    ("build"/"built", "главный"/"главного", "заметила"/"заметил"); numbers exactly."""
    if a == b:
        return True
    if a.isdigit() or b.isdigit():
        return False
    prefix = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return prefix >= max(4, min(len(a), len(b)) - 2)


DOER_WITHIN = 5
"""A clause's doer starts within its first words ("while the Calder County Sheriff's Office
opened", "In der Uraufführung spielt Jonas Feld"); a name further on is where or what ("showed
up in the Olympics")."""


def _runs(words: Sequence[str], names: Collection[str]) -> list[tuple[str, ...]]:
    """The runs of consecutive capitalised words among the first ``DOER_WITHIN`` of ``words``
    that hold a name, lowercased: "Calder County Sheriff's Office" is one doer, and so is "SIB
    Sachsen" (where German names only its second word)."""
    runs: list[tuple[str, ...]] = []
    current: list[str] = []
    start = 0
    for at, word in enumerate([*words, ""]):
        opening = not current and (not analyse(word).tokens or word.lower() in _function_words())
        if word[:1].isupper() and not opening:  # "The American Red Cross": no "the"
            start = at if not current else start
            current.append(word.lower())
            continue
        if any(w in names for w in current) and start < DOER_WITHIN:
            runs.append(tuple(current))
        current = []
    return runs


def _names_run(run: tuple[str, ...], words: Sequence[str]) -> bool:
    """Whether ``words`` name the doer ``run``: its first word, or the last of two or more
    ("Tan" for "Daniel Tan", «Панова» for «Игорь Панов»)."""
    return _named(run[0], words) or (len(run) > 1 and _named(run[-1], words))


def _doers(context: QuoteContext) -> list[tuple[int, tuple[str, ...], set[str]]] | None:
    """The doers the claim's two clauses name, each as (its clause, the doer, the clause's
    other words: content words and numbers, not another doer's): None unless exactly two
    clauses name someone."""
    found = claim_names(context.claim, context.claim_language, context.passages)
    names = {n.lower() for n in found}
    clauses: list[list[str]] = []
    for piece in _CLAUSES_OR_COMMAS.split(context.claim):
        words = _WORD.findall(piece)
        if any(w.lower() in names for w in words) or not clauses:
            clauses.append(words)
        else:
            clauses[-1] += words  # a clause naming no one belongs to the one before
    named = [c for c in clauses if any(w.lower() in names for w in c)]
    if len(named) != 2:
        return None
    function_words = _function_words()
    doers = []
    for at, clause in enumerate(named):
        runs = _runs(clause, names)
        taken = {w for run in runs for w in run}
        rest = {
            w
            for w in _lower_words(" ".join(clause))
            if w not in taken
            and w not in function_words
            and (analyse(w).tokens or _NUMBER_WORD.fullmatch(w))
        }
        doers += [(at, run, rest) for run in runs]
    return doers


def _sits(words: set[str], part: Sequence[str]) -> int:
    return sum(any(_alike(w, p) for p in part) for w in words)


def roles(context: QuoteContext) -> QuoteRuling | None:
    """A claim of two clauses, each naming its doer ("Corvia will build it, and Halden will
    run it"), whose clause words each sit with the other doer on the page, more than with
    their own by ``ROLES_MARGIN`` together ("orders issued by the Calder County Sheriff's
    Office. The American Red Cross has opened a shelter" against "The American Red Cross
    issued the evacuation orders, while the Calder County Sheriff's Office opened a shelter")
    → contradicted, quoting the sentence that gives the first doer's part to the other.
    Sentences are read in parts, cut where a clause with its own doer may start. Measured:
    article set 4 changes, all right; held-out rows 1, right; dev rows 0."""
    if context.label == Label.CONTRADICTED or not context.same_language:
        return None
    doers = _doers(context)
    if not doers:
        return None
    parts = [
        (sentence, _lower_words(part))
        for p in context.passages
        for a, b in sentence_spans(p.text, p.language)
        for sentence in [p.text[a:b]]
        for part in {*_CLAUSES.split(sentence), *_CLAUSES_OR_COMMAS.split(sentence)}
    ]
    for (at, one, mine), (other_at, other, theirs) in itertools.permutations(doers, 2):
        if at == other_at or any(_alike(a, b) for a in one for b in other):
            continue
        own = [(s, w) for s, w in parts if _names_run(one, w) and not _names_run(other, w)]
        others = [(s, w) for s, w in parts if _names_run(other, w) and not _names_run(one, w)]
        if not own or not others:
            continue
        mine_at_home = max(_sits(mine, w) for _, w in own)
        quoted, mine_away = max(((s, _sits(mine, w)) for s, w in others), key=lambda x: x[1])
        theirs_at_home = max(_sits(theirs, w) for _, w in others)
        theirs_away = max(_sits(theirs, w) for _, w in own)
        if (
            mine_away > mine_at_home
            and theirs_away > theirs_at_home
            and mine_away - mine_at_home + theirs_away - theirs_at_home >= ROLES_MARGIN
        ):
            why = f"the page gives what the claim says of {' '.join(one)} to {' '.join(other)}"
            return QuoteRuling("roles", Label.CONTRADICTED, quoted, why)
    return None


def negation(context: QuoteContext) -> QuoteRuling | None:
    """A claim that denies nothing is contradicted by the sentence of its quote about the claim
    (half its content words) that denies a word of the claim and states it nowhere else ("have
    already been peer reviewed" against "have not yet been peer reviewed"). Measured: dev rows
    1 change, right; article set 3, all right."""
    if context.quote is None or context.label != Label.SUPPORTED or not context.same_language:
        return None
    if _NEGATIONS.search(context.claim):
        return None
    claimed = analyse(context.claim).tokens
    words = _without(context.claim, context.claim_values())
    for a, b in sentence_spans(context.quote, context.page_language):
        sentence = context.quote[a:b]
        if word_coverage(words, sentence) < CONFLICT_ALIGNED:
            continue
        denied = _under(sentence, list(_NEGATIONS.finditer(sentence)), NEGATION_SCOPE)
        word = next((m for w, m in denied.items() if any(_matches(w, c) for c in claimed)), None)
        if word is not None:
            why = f"the quote denies it ('{word}')"
            return QuoteRuling("negation", Label.CONTRADICTED, sentence, why)
    return None


QUOTE_RULES: tuple[tuple[str, Callable[[QuoteContext], QuoteRuling | None]], ...] = (
    ("conflict", conflict),
    ("roles", roles),
    ("about", about),
    ("speaker", speaker),
    ("hedge", hedge),
    ("future", future),
    ("comparison", comparison),
    ("negation", negation),
    ("values", values),
)
"""The quote rules, in the order they are tried (module docstring)."""
OWN_CHECKS = ("conflict", "roles", "speaker", "future", "comparison", "negation")
"""The rules tried on the checker's English verdicts, which its exact checks already hold to
their values, polarity and words (``number_missing``, ``polarity``, ``clause_roles``…): on
held-out English rows ``about`` turned right supports into not_found (AttributionBench 0.774
-> 0.761 with a polarity rule since removed), so it guards every other judge and language.
``speaker`` reads what no exact check does, who said it, ``comparison`` the comparatives the
``comparison`` check does not know ("exceeds") or that compare no named thing, and
``negation`` a denial in a sentence the ``polarity`` check aligns too loosely to read.
``roles`` reads two doers across two sentences, which ``clause_roles`` does not. ``hedge`` is
not among them: on the held-out English rows it turned 29 of the checker's right supports into
not_found and 18 wrong ones (docs/CHECKER_MODEL.md); ``future``, its part for claims of what
will happen, is."""


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
