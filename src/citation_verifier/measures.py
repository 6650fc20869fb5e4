"""The amounts and dates a text states, in any language we judge, as comparable values.

"1,2 Mrd. Euro" = "1.2 billion euros" = "1,2 млрд евро"; "15,5%" = "15.5 per cent" = "15,5
Prozent"; "50 б. п." = "0,5 п. п." = "0.5 percentage points"; "6.8 miles" = "10.9 km" (units are
converted by pint, a maintained units library, and compared within rounding); "2 Std. 40 Min."
= "160 Minuten"; "5. Oktober 2023" = "October 5, 2023" = "5 октября 2023 г." = "5 de octubre
de 2023"; "tripled" = "threefold"; "a quarter" = "25%"; "third" = "3rd" = "dritten" = «третье» =
"tercer" (a rank). Decimal and thousands separators are
read by the text's language ("1.200" is 1200 in German, "1,200" is 1200 in English).

What the quote gate (``judge/quote_gate.py``) compares between a claim and the quote that is
meant to support it; the English exact checks read slots with :mod:`citation_verifier.quantities`.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citation_verifier.quantities import NUMBER_WORDS

# Languages that write "1.234,5"; every other writes "1,234.5".
_COMMA_DECIMAL = frozenset(
    {
        "de",
        "ru",
        "es",
        "fr",
        "it",
        "pt",
        "nl",
        "pl",
        "cs",
        "sk",
        "uk",
        "bg",
        "id",
        "da",
        "sv",
        "no",
        "fi",
        "tr",
        "ro",
        "hu",
        "el",
        "hr",
        "sl",
        "sr",
    }
)

_MONTH_NAMES: dict[int, tuple[str, ...]] = {
    1: ("january", "jan", "januar", "jänner", "janvier", "январ[ьяе]", "янв", "enero", "ene"),
    2: ("february", "feb", "februar", "феврал[ьяе]", "фев", "febrero"),
    3: ("march", "mar", "märz", "mär", "март[ае]?", "мар", "marzo"),
    4: ("april", "apr", "апрел[ьяе]", "апр", "abril", "abr"),
    5: ("may", "mai", "ма[йяе]", "mayo"),
    6: ("june", "jun", "juni", "июн[ьяе]", "junio"),
    7: ("july", "jul", "juli", "июл[ьяе]", "julio"),
    8: ("august", "aug", "август[ае]?", "авг", "agosto", "ago"),
    9: ("september", "sept", "sep", "сентябр[ьяе]", "сент?", "septiembre", "setiembre"),
    10: ("october", "oct", "oktober", "okt", "октябр[ьяе]", "окт", "octubre"),
    11: ("november", "nov", "ноябр[ьяе]", "ноя", "noviembre"),
    12: ("december", "dec", "dezember", "dez", "декабр[ьяе]", "дек", "diciembre", "dic"),
}
_MONTH_PATTERNS = [(re.compile(rf"(?:{p})", re.I), n) for n, ps in _MONTH_NAMES.items() for p in ps]
_MONTH = (
    r"(?P<month>"
    + "|".join(sorted((p for ps in _MONTH_NAMES.values() for p in ps), key=len, reverse=True))
    + r")(?![^\W\d_])\.?"
)
_YEAR = r"(?P<year>1[5-9]\d{2}|20\d{2})(?:\s?(?:г\.|года?|году)|\s+(?:AD|CE))?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th|\.|º|er)?"
_DATES = [
    re.compile(
        rf"(?<![\w.,]){_DAY}\s+(?:de\s+|of\s+)?{_MONTH}\s*,?\s+(?:de\s+|del\s+)?{_YEAR}", re.I
    ),
    re.compile(rf"(?<![\w.,]){_MONTH}\s+{_DAY},?\s+{_YEAR}", re.I),
    re.compile(
        r"(?<![\w.,])(?P<day>[0-3]?\d)\.(?P<month>[01]?\d)\.(?P<year>1[5-9]\d{2}|20\d{2})\b"
    ),
    re.compile(r"\b(?P<year>1[5-9]\d{2}|20\d{2})-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"(?<![\w.,]){_DAY}\s+(?:de\s+|of\s+)?{_MONTH}(?!\s*,?\s*\d)", re.I),
    # "Aug. 7, near the campground" (a comma after the day, no year), not "Aug. 7.5"
    re.compile(rf"(?<![\w.,]){_MONTH}\s+{_DAY}(?!\d)(?![.,]\d)(?!\s*,?\s*\d)", re.I),
    re.compile(rf"(?<![\w.]){_MONTH}\s+(?:de\s+|of\s+)?{_YEAR}", re.I),
    re.compile(rf"(?<![\w.,\d]){_YEAR}(?![\d.,]\d)"),
]

# Scale words after a number; "m", "k" and "bn" only where a currency marks the amount.
_SCALES: dict[str, float] = {
    "thousand": 1e3,
    "tausend": 1e3,
    "tsd": 1e3,
    "тыс": 1e3,
    "тысяч": 1e3,
    "тысячи": 1e3,
    "тысяча": 1e3,
    "mil": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "millionen": 1e6,
    "mio": 1e6,
    "млн": 1e6,
    "миллион": 1e6,
    "миллиона": 1e6,
    "миллионов": 1e6,
    "millón": 1e6,
    "millones": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "milliarde": 1e9,
    "milliarden": 1e9,
    "mrd": 1e9,
    "млрд": 1e9,
    "миллиард": 1e9,
    "миллиарда": 1e9,
    "миллиардов": 1e9,
    "millardo": 1e9,
    "millardos": 1e9,
    "bn": 1e9,
    "trillion": 1e12,
    "billionen": 1e12,
    "bio": 1e12,
    "трлн": 1e12,
    "триллион": 1e12,
    "триллиона": 1e12,
    "триллионов": 1e12,
    "billón": 1e12,
    "billones": 1e12,
}
_CURRENCY_SCALES = {"m": 1e6, "k": 1e3, "b": 1e9}

_CURRENCIES: dict[str, str] = {
    "£": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "pfund": "GBP",
    "фунт": "GBP",
    "фунтов": "GBP",
    "фунта": "GBP",
    "libras": "GBP",
    "gbp": "GBP",
    "$": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "доллар": "USD",
    "долларов": "USD",
    "доллара": "USD",
    "dólares": "USD",
    "dólar": "USD",
    "usd": "USD",
    "€": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "евро": "EUR",
    "eur": "EUR",
    "₽": "RUB",
    "руб": "RUB",
    "рубль": "RUB",
    "рубля": "RUB",
    "рублей": "RUB",
    "rubel": "RUB",
    "rub": "RUB",
    "¥": "JPY",
    "yen": "JPY",
    "иен": "JPY",
    "chf": "CHF",
    "franken": "CHF",
}

# Units and the pint unit each names (pint converts; the table only reads the languages).
_UNITS: dict[str, str] = {
    "km": "kilometer",
    "kilometre": "kilometer",
    "kilometres": "kilometer",
    "kilometer": "kilometer",
    "kilometers": "kilometer",
    "kilometern": "kilometer",
    "км": "kilometer",
    "километр": "kilometer",
    "километра": "kilometer",
    "километров": "kilometer",
    "kilómetro": "kilometer",
    "kilómetros": "kilometer",
    "m": "meter",
    "metre": "meter",
    "metres": "meter",
    "meter": "meter",
    "meters": "meter",
    "metern": "meter",
    "м": "meter",
    "метр": "meter",
    "метра": "meter",
    "метров": "meter",
    "metro": "meter",
    "metros": "meter",
    "cm": "centimeter",
    "см": "centimeter",
    "zentimeter": "centimeter",
    "сантиметров": "centimeter",
    "centimetres": "centimeter",
    "centímetros": "centimeter",
    "mm": "millimeter",
    "мм": "millimeter",
    "mile": "mile",
    "miles": "mile",
    "meile": "mile",
    "meilen": "mile",
    "миля": "mile",
    "мили": "mile",
    "миль": "mile",
    "milla": "mile",
    "millas": "mile",
    "mi": "mile",
    "ft": "foot",
    "feet": "foot",
    "foot": "foot",
    "фут": "foot",
    "футов": "foot",
    "pies": "foot",
    "inch": "inch",
    "inches": "inch",
    "zoll": "inch",
    "дюйм": "inch",
    "дюйма": "inch",
    "дюймов": "inch",
    "pulgadas": "inch",
    "kg": "kilogram",
    "kilogram": "kilogram",
    "kilograms": "kilogram",
    "kilogramm": "kilogram",
    "кг": "kilogram",
    "килограмм": "kilogram",
    "килограммов": "kilogram",
    "kilos": "kilogram",
    "g": "gram",
    "gram": "gram",
    "grams": "gram",
    "gramm": "gram",
    "грамм": "gram",
    "граммов": "gram",
    "gramos": "gram",
    "t": "metric_ton",
    "tonne": "metric_ton",
    "tonnes": "metric_ton",
    "tonnen": "metric_ton",
    "тонн": "metric_ton",
    "тонны": "metric_ton",
    "тонна": "metric_ton",
    "toneladas": "metric_ton",
    "ha": "hectare",
    "hectare": "hectare",
    "hectares": "hectare",
    "hektar": "hectare",
    "га": "hectare",
    "гектар": "hectare",
    "гектаров": "hectare",
    "hectáreas": "hectare",
    "h": "hour",
    "hour": "hour",
    "hours": "hour",
    "hrs": "hour",
    "std": "hour",
    "stunde": "hour",
    "stunden": "hour",
    "ч": "hour",
    "час": "hour",
    "часа": "hour",
    "часов": "hour",
    "hora": "hour",
    "horas": "hour",
    "min": "minute",
    "mins": "minute",
    "minute": "minute",
    "minutes": "minute",
    "minuten": "minute",
    "мин": "minute",
    "минута": "minute",
    "минуты": "minute",
    "минут": "minute",
    "minuto": "minute",
    "minutos": "minute",
    "s": "second",
    "sec": "second",
    "seconds": "second",
    "sekunden": "second",
    "сек": "second",
    "секунд": "second",
    "segundos": "second",
    "mah": "milliampere_hour",
    "w": "watt",
    "watts": "watt",
    "вт": "watt",
    "gb": "gigabyte",
    "tb": "terabyte",
    "гб": "gigabyte",
    "°c": "degree_Celsius",
    "°f": "degree_Fahrenheit",
}
# Counted things pint does not know: compared by name.
_NAMED_UNITS: dict[str, str] = {
    "mp": "megapixel",
    "megapixel": "megapixel",
    "megapixels": "megapixel",
    "мп": "megapixel",
    "мегапикселей": "megapixel",
    "megapíxeles": "megapixel",
    "nits": "nit",
    "nit": "nit",
    "нит": "nit",
    "km/h": "km/h",
    "км/ч": "km/h",
    "mph": "mph",
}
_PERCENT = {
    "%": 1.0,
    "percent": 1.0,
    "per cent": 1.0,
    "prozent": 1.0,
    "процент": 1.0,
    "процента": 1.0,
    "процентов": 1.0,
    "por ciento": 1.0,
    "pct": 1.0,
}
_POINTS = {
    "percentage point": 1.0,
    "percentage points": 1.0,
    "prozentpunkt": 1.0,
    "prozentpunkte": 1.0,
    "prozentpunkten": 1.0,
    "процентного пункта": 1.0,
    "процентных пункта": 1.0,
    "процентных пунктов": 1.0,
    "процентный пункт": 1.0,
    "п. п.": 1.0,
    "п.п.": 1.0,
    "pp": 1.0,
    "puntos porcentuales": 1.0,
    "punto porcentual": 1.0,
    "basis points": 0.01,
    "basis point": 0.01,
    "basispunkte": 0.01,
    "basispunkten": 0.01,
    "базисных пунктов": 0.01,
    "базисных пункта": 0.01,
    "базисный пункт": 0.01,
    "б. п.": 0.01,
    "б.п.": 0.01,
    "bp": 0.01,
    "bps": 0.01,
    "puntos básicos": 0.01,
}

_NUMBER_WORDS: dict[str, float] = {
    **NUMBER_WORDS,
    "hundred": 100,
    # German ("ein", "eine" are articles)
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
    "elf": 11,
    "zwölf": 12,
    "dreizehn": 13,
    "vierzehn": 14,
    "fünfzehn": 15,
    "zwanzig": 20,
    "dreißig": 30,
    "vierzig": 40,
    "fünfzig": 50,
    "hundert": 100,
    # Russian
    "два": 2,
    "две": 2,
    "три": 3,
    "четыре": 4,
    "пять": 5,
    "шесть": 6,
    "семь": 7,
    "восемь": 8,
    "девять": 9,
    "десять": 10,
    "двенадцать": 12,
    "двадцать": 20,
    "тридцать": 30,
    "двое": 2,
    "двоих": 2,
    "трое": 3,
    "троих": 3,
    "четверо": 4,
    "четверых": 4,
    "пятеро": 5,
    "пятерых": 5,
    "шестеро": 6,
    "шестерых": 6,
    "двух": 2,
    "трёх": 3,
    "трех": 3,
    "четырёх": 4,
    "четырех": 4,
    "пяти": 5,
    "семи": 7,
    # Spanish ("un", "una" are articles)
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
    "diez": 10,
    "once": 11,
    "doce": 12,
    "veinte": 20,
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "cien": 100,
}
# "tripled", "threefold", "втрое": a factor.
_FACTORS: dict[str, float] = {
    "doubled": 2,
    "double": 2,
    "twofold": 2,
    "twice": 2,
    "verdoppelt": 2,
    "doppelt": 2,
    "вдвое": 2,
    "удвоил": 2,
    "duplicó": 2,
    "duplicado": 2,
    "tripled": 3,
    "triple": 3,
    "threefold": 3,
    "verdreifacht": 3,
    "dreifach": 3,
    "втрое": 3,
    "утроил": 3,
    "triplicó": 3,
    "triplicado": 3,
    "quadrupled": 4,
    "fourfold": 4,
    "vervierfacht": 4,
    "вчетверо": 4,
    "cuadruplicó": 4,
}
_FACTOR_PHRASES: dict[str, float] = {
    "two times": 2,
    "three times": 3,
    "four times": 4,
    "five times": 5,
    "ten times": 10,
    "zweimal": 2,
    "dreimal": 3,
    "viermal": 4,
    "в два раза": 2,
    "в три раза": 3,
    "в четыре раза": 4,
    "dos veces": 2,
    "tres veces": 3,
    "el doble": 2,
    "el triple": 3,
}
_FACTORS.update(_FACTOR_PHRASES)
# "a quarter", "one in four", "die Hälfte": a share, read as a percentage.
_SHARES: dict[str, float] = {
    "a quarter": 25,
    "one in four": 25,
    "one quarter": 25,
    "ein viertel": 25,
    "четверть": 25,
    "четверти": 25,
    "una cuarta parte": 25,
    "un cuarto": 25,
    "a third": 100 / 3,
    "one in three": 100 / 3,
    "ein drittel": 100 / 3,
    "треть": 100 / 3,
    "un tercio": 100 / 3,
    "half": 50,
    "one in two": 50,
    "die hälfte": 50,
    "половина": 50,
    "половину": 50,
    "la mitad": 50,
    "three quarters": 75,
    "drei viertel": 75,
    "три четверти": 75,
    "two thirds": 200 / 3,
    "zwei drittel": 200 / 3,
    "две трети": 200 / 3,
}


@dataclass(frozen=True)
class Measure:
    """One value a text states.

    ``kind``: ``amount`` (``magnitude`` in ``dimension``'s base unit; dimension "" is a plain
    count, ``%`` a percentage, ``pp`` percentage points, ``x`` a factor, ``rank`` a place in an
    order, ``GBP`` etc. money, or a pint dimensionality) or ``date`` (``date``: year, month,
    day, each None when not given).
    """

    kind: str
    start: int
    end: int
    magnitude: float = 0.0
    dimension: str = ""
    converted: bool = False
    """Whether a unit was converted (compared within rounding, not exactly)."""
    date: tuple[int | None, int | None, int | None] = (None, None, None)
    plain: float = 0.0
    """The number as written, before scale and unit (what a plain count compares with)."""
    rough: bool = False
    """A share in words ("a third", "die Hälfte"): stated by a percentage within a tenth."""

    @property
    def bare_number(self) -> float | None:
        """A year alone, or a number with nothing after it: "2000" may be either."""
        if self.kind == "date":
            year, month, day = self.date
            return float(year) if year is not None and month is None and day is None else None
        return None if self.dimension else self.plain

    def same(self, other: Measure) -> bool:
        """Whether the two state the same value (a plain count is stated by the same number in
        any unit; a date by a date agreeing on every part the claim gives)."""
        if self.kind != other.kind:
            mine, theirs = self.bare_number, other.bare_number
            return mine is not None and mine == theirs
        if self.kind == "date":
            return all(a is None or a == b for a, b in zip(self.date, other.date, strict=True))
        if self.dimension and self.dimension != other.dimension:
            return False  # "62 %" is not stated by "62 people", nor "£48m" by "$48m"
        if not self.dimension and other.dimension in ("%", "pp", "x"):
            return False
        tolerance = 0.015 if (self.converted or other.converted) else 1e-9
        if self.rough or other.rough:
            tolerance = 0.1  # "a third" = 35 %, "a quarter" = 25 %
        a, b = self.magnitude, other.magnitude
        if not self.dimension and other.dimension:
            b = other.plain
        return math.isclose(a, b, rel_tol=tolerance, abs_tol=1e-9)

    def conflicts(self, other: Measure) -> bool:
        """Whether the two give different values of one measured thing (the same unit kind;
        dates disagreeing on a part both give)."""
        if self.kind != other.kind:
            return False
        if self.kind == "date":
            return any(
                a is not None and b is not None and a != b
                for a, b in zip(self.date, other.date, strict=True)
            )
        return bool(self.dimension) and self.dimension == other.dimension and not self.same(other)


@functools.cache
def _registry() -> Any:
    """pint's unit registry, loaded at the first converted unit (a quarter of a second)."""
    import pint

    return pint.UnitRegistry()


def _base(number: float, unit: str) -> tuple[float, str]:
    quantity = _registry().Quantity(number, unit)
    quantity = quantity.to("kelvin") if unit.startswith("degree_") else quantity.to_base_units()
    return float(quantity.magnitude), str(quantity.dimensionality)


def _month_number(name: str) -> int | None:
    if name.isdigit():
        return int(name)
    for pattern, number in _MONTH_PATTERNS:
        if pattern.fullmatch(name.rstrip(".")):
            return number
    return None


def _dates(text: str, taken: list[tuple[int, int]]) -> list[Measure]:
    found = []
    for pattern in _DATES:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            groups = m.groupdict()
            month = _month_number(groups["month"]) if groups.get("month") else None
            if groups.get("month") and month is None:
                continue
            if (
                groups.get("month")
                and groups["month"].lower() == "may"
                and not groups["month"][0].isupper()
            ):
                continue  # the modal verb
            day = int(groups["day"]) if groups.get("day") else None
            year = int(groups["year"]) if groups.get("year") else None
            if (day is not None and not 1 <= day <= 31) or (month and not 1 <= month <= 12):
                continue
            found.append(Measure("date", m.start(), m.end(), date=(year, month, day)))
            taken.append((m.start(), m.end()))
    return found


@functools.cache
def _number_pattern(language: str) -> re.Pattern[str]:
    if language in _COMMA_DECIMAL:
        body = r"\d{1,3}(?:[. \u00a0\u202f]\d{3})+(?:,\d+)?(?!\d)|\d+(?:[,.]\d+)?"
    else:
        body = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:[.,]\d+)?"
    words = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
    return re.compile(rf"(?<![\w.,])(?P<value>{body}|(?:{words})(?![^\W\d_]))", re.I)


def _read_number(raw: str, language: str) -> float | None:
    word = _NUMBER_WORDS.get(raw.lower())
    if word is not None:
        return word
    compact = re.sub(r"[\s\u00a0\u202f]", "", raw)
    if language in _COMMA_DECIMAL:
        if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", compact) or "," in compact:
            compact = compact.replace(".", "").replace(",", ".")
    elif re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", compact):
        compact = compact.replace(",", "")
    else:
        compact = compact.replace(",", ".")
    try:
        return float(compact)
    except ValueError:
        return None


# Shares then factors, longest first: "three quarters" before "a quarter" takes the words.
_PHRASES = [
    (re.compile(rf"(?<![^\W\d_]){re.escape(phrase)}(?![^\W\d_])"), value, dimension)
    for table, dimension in ((_SHARES, "%"), (_FACTORS, "x"))
    for phrase, value in sorted(table.items(), key=lambda item: len(item[0]), reverse=True)
]
_DE = "(?:e|er|en|em|es)"
_RU = "(?:ый|ий|ой|ая|ья|ое|ье|ого|ьего|ой|ей|ьей|ом|ем|ьем|ую|ью|ые|ьи|ых|ьих)"
_ES = "(?:o|a|er)"
# Ranks in words ("third", "2nd", "zweiten", «второе», "cuarto"), compared as values of the
# dimension "rank": "ranked third" against "climbs to second". Spanish "segundos" and the like
# after a number are a duration (the number's), not a rank; "un cuarto de" is a share.
_ORDINALS = [
    (re.compile(rf"(?<![^\W\d_])(?:{pattern})(?![^\W\d_])"), float(rank))
    for rank, pattern in enumerate(
        (
            rf"first|1st|erst{_DE}|перв{_RU}|primer{_ES}?",
            rf"second|2nd|zweit{_DE}|втор{_RU}|segund[oa]",
            rf"third|3rd|dritt{_DE}|трет{_RU}|tercer{_ES}?",
            rf"fourth|4th|viert{_DE}|четв[её]рт{_RU}|cuart[oa](?!\s+(?:de|parte)\b)",
            rf"fifth|5th|fünft{_DE}|пят{_RU}|quint[oa]",
            rf"sixth|6th|sechst{_DE}|шест{_RU}|sext[oa]",
            rf"seventh|7th|siebt{_DE}|седьм{_RU}|séptim[oa]",
            rf"eighth|8th|acht{_DE}|восьм{_RU}|octav[oa]",
            rf"ninth|9th|neunt{_DE}|девят{_RU}|noven[oa]",
            rf"tenth|10th|zehnt{_DE}|десят{_RU}|décim[oa]",
        ),
        start=1,
    )
]
_AFTER_NUMBER = re.compile(r"\d[\s\u00a0]*$")
_A_FRACTION = re.compile(r"\b(?:a|one)\s+$")  # "a third", "one fifth": shares
# ... when "of" or the end of a phrase follows ("a third of", "by a third."): "a fifth season"
# is a place.
_SHARE_AFTER = re.compile(r"\s+of\b|\s*(?:[^\w\s]|$)")
# An English ordinal ranks something after a determiner, a possessive or a word of placing
# ("the second", "world's third-largest", "ranked third", "climbs to second", "from second to
# third") or before a hyphen or "place"; else it is an adverb ("was first recorded").
_RANKED_AFTER = re.compile(
    r"(?:\b(?:the|its|his|her|their|our|a|an|ranked|ranks|rank|finished|came|placed|to|from|in|"
    r"at)|['’]s)\s+$"
)
_RANKED_BEFORE = re.compile(r"-|\s+(?:place|position|spot)\b")
# A superlative after a determiner ranks its thing first ("the top scorer", "the world's
# largest", «крупнейший клад», "el mejor"): "top scorer" against "second-highest scorer". Not
# among several ("one of the largest", «один из крупнейших», "uno de los mayores"), after a
# rank of its own ("second-largest", «второй крупнейший»), before a count ("the top five") or in
# a compound ("best-selling").
_SUPERLATIVE = re.compile(
    rf"(?:\b(?:the|its|his|her|their)\s+|['’]s\s+)(?:top|largest|biggest|highest|best)\b"
    rf"|\b(?:der|die|das|den|dem|des)\s+(?:größt|höchst|best){_DE}\b"
    rf"|(?<![^\W\d_])(?:крупнейш|лучш){_RU}(?![^\W\d_])"
    rf"|\b(?:el|la)\s+(?:mayor|mejor)\b(?!\s+que\b)"
)
_AMONG = re.compile(
    r"(?:\bone\s+of|\b(?:einer|eines|eine|einem)|\bодн\w*\s+из|\b(?:uno|una)\s+de\s+(?:los|las)"
    r"|\b(?:first|second|third|fourth|fifth|перв\w*|втор\w*|трет\w*|четв[её]рт\w*|пят\w*))"
    r"\s*(?:the\s+|der\s+|los\s+|las\s+)?$"
)
_COUNTED = re.compile(r"\s+(?:\d|ten\b|five\b|three\b|twenty\b|hundred\b|fifty\b)")
# A race time or duration "2:06:41" (hours, minutes, seconds).
_CLOCK = re.compile(r"(?<![\d:.,])(\d{1,2}):([0-5]\d):([0-5]\d)(?![\d:])")
_WORD_AFTER = re.compile(
    r"[ \t\u00a0\u202f]*([^\W\d_]+\.?(?:[ \u00a0]?[^\W\d_]+\.?)?|%|°\s?[CF]\b)"
)
_CURRENCY_BEFORE = re.compile(r"([£$€₽¥])\s?$")
_CURRENCY_AFTER = re.compile(r"[\s\u00a0]*([£$€₽¥]|[^\W\d_]+)")


def _after(text: str, end: int, table: dict[str, float] | dict[str, str]) -> tuple[str, int] | None:
    """The longest key of ``table`` (one or two words, a trailing full stop allowed) right after
    ``end``, and where it ends."""
    m = _WORD_AFTER.match(text, end)
    if not m:
        return None
    words = m.group(1)
    candidates = [words]
    if re.search(r"[ \u00a0]", words):
        candidates.append(re.split(r"[ \u00a0]", words)[0])
    for candidate in candidates:
        key = candidate.lower().replace("\u00a0", " ")
        for form in (key, key.rstrip(".")):
            if form in table:
                stop = m.start(1) + len(candidate)
                return form, stop
    return None


def measures(text: str, language: str | None = None, *, claim: bool = False) -> list[Measure]:
    """The dates and amounts of ``text`` (in ``language``; English when unknown) in reading
    order. Compound durations ("2 Std. 40 Min.") are also given as their sum. In a ``claim``,
    a number that is part of a name ("Arc 5", "VB-214") is no value of its (on a page, where a
    table cell reads "About 41,000", the number is kept: an extra value states nothing false).
    """
    language = language or "en"
    taken: list[tuple[int, int]] = []
    found = _dates(text, taken)

    def free(m: re.Match[str]) -> bool:
        return not any(a < m.end() and m.start() < b for a, b in taken)

    lower = text.lower()
    for pattern, rank in _ORDINALS:
        for m in pattern.finditer(lower):
            before = lower[: m.start()]
            if language == "en" and (
                not (_RANKED_AFTER.search(before) or _RANKED_BEFORE.match(lower, m.end()))
                or (rank > 2 and _A_FRACTION.search(before) and _SHARE_AFTER.match(lower, m.end()))
            ):
                continue
            if free(m) and not _AFTER_NUMBER.search(before):
                found.append(Measure("amount", m.start(), m.end(), rank, "rank", plain=rank))
                taken.append((m.start(), m.end()))
    for m in _SUPERLATIVE.finditer(lower):
        word = re.search(r"[^\W\d_]+$", m.group())
        start = m.start() + (word.start() if word else 0)
        if (
            _AMONG.search(lower[:start])
            or _COUNTED.match(lower, m.end())
            or lower[m.end() : m.end() + 1] == "-"
        ):
            continue
        if free(m):
            found.append(Measure("amount", start, m.end(), 1.0, "rank", plain=1.0))
            taken.append((start, m.end()))
    for pattern, value, dimension in _PHRASES:
        for m in pattern.finditer(lower):
            if free(m):
                rough = dimension == "%"
                found.append(
                    Measure(
                        "amount",
                        m.start(),
                        m.end(),
                        value,
                        dimension,
                        rough,
                        plain=value,
                        rough=rough,
                    )
                )
                taken.append((m.start(), m.end()))
    for m in _CLOCK.finditer(text):
        if free(m):
            hours, minutes, seconds = (int(g) for g in m.groups())
            total = float(hours * 3600 + minutes * 60 + seconds)
            found.append(Measure("amount", m.start(), m.end(), total, "[time]", True, plain=total))
            taken.append((m.start(), m.end()))
    for m in _number_pattern(language).finditer(text):
        if not free(m) or (claim and _names(text, m.start(), m.end(), language)):
            continue
        number = _read_number(m.group("value"), language)
        if number is not None:
            found.append(_amount(text, m.start(), m.end(), number))
    found.extend(_compound_durations(text, found))
    return sorted(found, key=lambda q: (q.start, q.end))


# Languages that capitalise every noun ("im Jahr 1871"): a capital before a number is no name.
_NOUNS_CAPITALISED = frozenset({"de", "lb"})


# Words after which a number names something ("phase 1", "type 2", "§ 120.08").
_NAMING = re.compile(
    r"(?:\b(?:phase|type|stage|grade|level|figure|fig\.|table|chapter|section|part|article|"
    r"no\.|nr\.|№|number|version|class|category|step|round|series|model|grant|rule|"
    r"penal law|code)\s*|§\s*)$",
    re.I,
)


def _names(text: str, start: int, end: int, language: str) -> bool:
    """Whether the number at ``start:end`` is no value of the claim's: part of a name ("VB-214",
    "COVID-19", "phase 1", and, mid-sentence, "Arc 5", "County Road 9", "Rankings 2025"), a
    citation marker ("[1, 2]") or a rank ("15th")."""
    before = text[max(0, start - 40) : start]
    if re.search(r"[^\W\d_][-‐]$", before) or _NAMING.search(before):
        return True
    if re.match(r"(?:st|nd|rd|th|ª|º|\.?[ºª])\b", text[end : end + 3]):
        return True
    if re.search(r"\[[\d,\s–-]*$", before) and re.match(r"[\d,\s–-]*\]", text[end:]):
        return True
    if language in _NOUNS_CAPITALISED:
        return False
    word = re.search(r"(?:^|[\s(\"“„«])([A-ZА-ЯЁ][^\W\d_]*)\s$", before)
    if word is None:
        return False
    lead = text[: max(0, start - 40) + word.start(1)].rstrip()
    return bool(lead) and lead[-1] not in ".!?:;|"


def _amount(text: str, start: int, end: int, number: float) -> Measure:
    """The amount whose number spans ``start:end``: its scale, currency, percent or unit."""
    plain = number
    currency = None
    before = _CURRENCY_BEFORE.search(text[max(0, start - 3) : start])
    if before:
        currency = _CURRENCIES[before.group(1)]
    scale = _after(text, end, _SCALES)
    if scale is None and currency:
        short = re.match(r"(m|k|bn|b)\b", text[end : end + 3], re.I)
        if short:
            scale = (short.group(1).lower(), end + len(short.group(1)))
    if scale is not None:
        key, end = scale
        number *= _SCALES.get(key, _CURRENCY_SCALES.get(key, 1.0))
    if currency is None:
        after = _CURRENCY_AFTER.match(text, end)
        if after and after.group(1).lower() in _CURRENCIES:
            currency = _CURRENCIES[after.group(1).lower()]
            end = after.end()
    if currency:
        return Measure("amount", start, end, number, currency, plain=plain)
    for table, dimension in ((_PERCENT, "%"), (_POINTS, "pp")):
        hit = _after(text, end, table)
        if hit is not None:
            return Measure("amount", start, hit[1], number * table[hit[0]], dimension, plain=plain)
    hit = _after(text, end, _NAMED_UNITS) or _after(text, end, _UNITS)
    if hit is None and text[end : end + 1] in ("-", "‑"):  # "6.8-mile", "4.2-kilometre"
        hit = _after(text, end + 1, _NAMED_UNITS) or _after(text, end + 1, _UNITS)
    if hit is not None:
        key, stop = hit
        if key in _NAMED_UNITS:
            return Measure("amount", start, stop, number, _NAMED_UNITS[key], plain=plain)
        magnitude, dimension = _base(number, _UNITS[key])
        return Measure("amount", start, stop, magnitude, dimension, True, plain=plain)
    return Measure("amount", start, end, number, "", plain=plain)


_JOINS_DURATIONS = re.compile(r"[\s,]*(?:(?:and|und|и|y)\s+)?", re.I)


def _compound_durations(text: str, found: Sequence[Measure]) -> list[Measure]:
    """ "2 Std. 40 Min.", "2 h 06 min 41 s", "1 minuto y 17 segundos": runs of adjacent
    durations, each run also as its sum."""
    durations = sorted((q for q in found if q.dimension == "[time]"), key=lambda q: q.start)
    out = []
    for i, first in enumerate(durations):
        total, last = first.magnitude, first
        for second in durations[i + 1 :]:
            if second.start < last.end or not _JOINS_DURATIONS.fullmatch(
                text[last.end : second.start]
            ):
                break
            total, last = total + second.magnitude, second
            out.append(Measure("amount", first.start, last.end, total, "[time]", True, plain=total))
    return out


def stated_by(claimed: Measure, found: Sequence[Measure]) -> bool:
    """Whether ``found`` states the claim's value."""
    return any(claimed.same(f) for f in found)
