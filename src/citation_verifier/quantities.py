"""The numbers, percentages, years and dates a text states, normalised so that two spellings of
one value compare equal ("4 percent" = "4 %", "2,068" = "2068", "1 March 2021" = "March 1,
2021" = "2021-03-01", "three" = "3", "1.2 million" = "1200000"; not "one": "one of" counts
nothing). What the checker's exact checks compare between a claim and the sentence that states
it (``judge/exact_checks.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citation_verifier.terms import content_sequence

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>1\d{3}|20\d{2})"
_DATES = [
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I),
    re.compile(r"\b(?P<year>1\d{3}|20\d{2})-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b{_MONTH}\s+(?:of\s+)?{_YEAR}\b", re.I),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?!\w)", re.I),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!,?\s*\d)", re.I),
]
# English number words ("one" is left out: "one of" counts nothing).
NUMBER_WORDS = {
    "zero": 0,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
# A number that is part of a name is no value: "COVID-19", "SARS-CoV-2", "phase 1", "type 2".
_NAMING = re.compile(
    r"(?:[A-Za-z][-‐]|\b(?:phase|type|stage|grade|level|figure|fig\.|table|chapter|section|part|"
    r"article|no\.|number|version|class|category|step|round|series|model|grant|rule)\s*|§\s*)$",
    re.I,
)
_NUMBER = re.compile(
    r"(?<![\w.,])(?P<sign>[-−])?(?P<value>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|(?:"
    + "|".join(NUMBER_WORDS)
    + r"))(?![\w])(?:\s*(?P<scale>thousand|million|billion|trillion)\b)?"
    r"(?:\s*(?P<unit>%|percent\b|per\s+cent\b|percentage\s+points?\b|°\s*[CF]\b|[a-zA-Z°µ]+))?",
    re.I,
)
# A word after a number that names what is counted: same unit, same slot.
_UNITS = {
    "%": "%",
    "percent": "%",
    "per cent": "%",
    "m": "metre",
    "metre": "metre",
    "metres": "metre",
    "meter": "metre",
    "meters": "metre",
    "km": "kilometre",
    "kilometre": "kilometre",
    "kilometres": "kilometre",
    "kilometer": "kilometre",
    "kilometers": "kilometre",
    "ft": "foot",
    "feet": "foot",
    "foot": "foot",
    "mi": "mile",
    "mile": "mile",
    "miles": "mile",
    "kg": "kilogram",
    "kilogram": "kilogram",
    "kilograms": "kilogram",
    "g": "gram",
    "grams": "gram",
    "gram": "gram",
    "°c": "°C",
    "°f": "°F",
    "degrees": "degree",
    "degree": "degree",
    "years": "year",
    "year": "year",
    "months": "month",
    "month": "month",
    "days": "day",
    "day": "day",
    "hours": "hour",
    "hour": "hour",
    "people": "people",
    "percentage point": "point",
    "percentage points": "point",
}
_IRREGULAR_PLURALS = frozenset({"children", "men", "women", "mice", "teeth", "geese", "data"})
# The words right after a value, before any punctuation: what it counts ("four *lanes*").
_COUNTED = re.compile(r"[ \t]+([^\W\d_][\w'-]*)(?:[ \t]+([^\W\d_][\w'-]*))?")


@dataclass(frozen=True)
class Quantity:
    """One value a text states: ``kind`` is ``date``, ``year`` or ``number``; ``value`` its
    normalised form; ``unit`` what it counts (None when no known unit follows)."""

    kind: str
    value: str
    unit: str | None
    start: int
    end: int
    counted: frozenset[str] = field(default=frozenset(), compare=False)
    """What it counts: its unit, or the plural noun right after it, stemmed ("four lanes of
    traffic" → {lane}); empty when none follows."""

    @property
    def key(self) -> tuple[str, str | None]:
        """What two quantities must share to be values of the same slot."""
        return (self.kind, self.unit)

    def counts_like(self, other: Quantity) -> bool:
        """Whether the two may count the same thing: one names nothing it counts, or they
        share a counted word ("six lanes" and "four new lanes", not "six years")."""
        return not self.counted or not other.counted or bool(self.counted & other.counted)


def _number(value: str, scale: str | None) -> float | None:
    word = NUMBER_WORDS.get(value.lower())
    if word is not None:
        number = float(word)
    else:
        try:
            number = float(value.replace(",", ""))
        except ValueError:
            return None
    return number * _SCALES.get((scale or "").lower(), 1.0)


def _format(number: float) -> str:
    return str(int(number)) if number == int(number) else f"{number:g}"


def _unit(raw: str | None) -> str | None:
    if not raw:
        return None
    key = re.sub(r"\s+", " ", raw.lower().replace("° ", "°"))
    return _UNITS.get(key)


def _counted(text: str, end: int) -> frozenset[str]:
    """What the value ending at ``end`` counts: the first plural noun-like word (ending in "s",
    or an irregular plural) among the two words after it, before any stop word ("four new
    lanes" → {lane}; "40,000 the planners", "GTA 6 yet" → nothing: no count is named)."""
    after = _COUNTED.match(text, end)
    for word in filter(None, after.groups() if after else ()):
        stem = content_sequence(word)
        if not stem:
            return frozenset()
        lower = word.lower()
        if lower in _IRREGULAR_PLURALS or (lower.endswith("s") and not lower.endswith("ss")):
            return frozenset(stem)
    return frozenset()


def quantities(text: str) -> list[Quantity]:
    """The dates, years and numbers of ``text`` in reading order, each once (a date's day and
    year are not counted again as numbers)."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for pattern in _DATES:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            month = m.group("month")
            month_no = int(month) if month.isdigit() else _MONTHS[month.lower()]
            day = m.groupdict().get("day")
            year = m.groupdict().get("year") or "-"  # "12 July": a day of no given year
            value = f"{year}-{month_no:02d}" + (f"-{int(day):02d}" if day else "")
            found.append(Quantity("date", value, None, m.start(), m.end()))
            taken.append((m.start(), m.end()))
    for m in _NUMBER.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        if _NAMING.search(text[max(0, m.start() - 12) : m.start()]):
            continue
        number = _number(m.group("value"), m.group("scale"))
        if number is None:
            continue
        if m.group("sign"):
            number = -number
        unit = _unit(m.group("unit"))
        raw = m.group("value")
        is_year = (
            raw.isdigit() and len(raw) == 4 and 1000 <= number <= 2100 and not m.group("scale")
        )
        kind = "year" if is_year and unit is None else "number"
        end = m.end() if unit else m.end("scale") if m.group("scale") else m.end("value")
        counted = frozenset({unit}) if unit else _counted(text, end)
        found.append(Quantity(kind, _format(number), unit, m.start(), end, counted))
    return sorted(found, key=lambda q: q.start)


def values(found: list[Quantity]) -> set[str]:
    """Every value the quantities state, a date's year and month too (a claim's "2021" is
    stated by "1 March 2021")."""
    out: set[str] = set()
    for q in found:
        out.add(q.value)
        if q.kind == "date" and not q.value.startswith("-"):
            out.add(q.value[:4])
            out.add(q.value[:7])
            if len(q.value) == 10:
                out.add("-" + q.value[4:])
    return out
