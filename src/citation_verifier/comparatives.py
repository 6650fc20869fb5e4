"""Comparatives in the languages we judge, in pairs of opposite direction on one scale ("more"
against "less", "stronger" against "weaker"): what the English ``comparison`` exact check and
the ``comparison`` quote rule read."""

from __future__ import annotations

Scale = tuple[tuple[str, ...], tuple[str, ...]]

ENGLISH: tuple[Scale, ...] = (
    (("more", "greater", "higher", "larger", "bigger"), ("less", "fewer", "lower", "smaller")),
    (("longer",), ("shorter",)),
    (("faster",), ("slower",)),
    (("older",), ("younger",)),
    (("later",), ("earlier",)),
    (("stronger",), ("weaker",)),
    (("better",), ("worse",)),
    (("richer",), ("poorer",)),
    (("warmer",), ("colder", "cooler")),
    (("wider",), ("narrower",)),
    (("heavier",), ("lighter",)),
    (("deeper",), ("shallower",)),
)
ENGLISH_VERBS_MORE = ("exceeds", "exceeded", "surpasses", "surpassed")
"""Verbs that say "more than" ("the fee exceeds £31 million"), on ``ENGLISH``'s first scale."""
OTHER_LANGUAGES: tuple[Scale, ...] = (
    (("mehr", "größer", "höher"), ("weniger", "kleiner", "niedriger", "geringer")),
    (("länger",), ("kürzer",)),
    (("stärker",), ("schwächer",)),
    (("besser",), ("schlechter",)),
    (("reicher",), ("ärmer",)),
    (("teurer",), ("billiger", "günstiger")),
    (("älter",), ("jünger",)),
    (("später",), ("früher",)),
    (("schneller",), ("langsamer",)),
    (("больше", "выше", "крупнее"), ("меньше", "ниже", "мельче")),
    (("дороже",), ("дешевле",)),
    (("сильнее",), ("слабее",)),
    (("лучше",), ("хуже",)),
    (("длиннее",), ("короче",)),
    (("старше",), ("моложе", "младше")),
    (("позже", "позднее"), ("раньше",)),
    (("быстрее",), ("медленнее",)),
    (("богаче",), ("беднее",)),
    (("mayor",), ("menor",)),
    (("mejor",), ("peor",)),
)
