"""Values compared language-neutrally: scales, decimal commas, percentages and points, units
converted, compound durations, dates with month names in each language, factors and shares."""

from __future__ import annotations

import pytest

from citation_verifier.measures import measures, stated_by


def _stated(claim: tuple[str, str], page: tuple[str, str]) -> bool:
    found = measures(page[1], page[0])
    return all(stated_by(value, found) for value in measures(claim[1], claim[0]))


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        (("de", "rund 1,2 Milliarden Euro"), ("de", "rund 1,2 Mrd. Euro")),
        (("en", "1.2 billion euros"), ("de", "1,2 Mrd. Euro")),
        (("ru", "на 0,5 процентного пункта"), ("ru", "на 50 базисных пунктов (б. п.)")),
        (("de", "dauert 160 Minuten"), ("de", "Mit 2 Std. 40 Min. inklusive einer Pause")),
        (("en", "10.9 kilometres"), ("en", "The 6.8-mile extension")),
        (("de", "am 5. Oktober 2023"), ("en", "on October 5, 2023")),
        (("ru", "7 февраля 2025 г."), ("es", "el 7 de febrero de 2025")),
        (("en", "has risen threefold"), ("en", "has tripled since it opened")),
        (("ru", "на 25% меньше"), ("ru", "на четверть меньше")),
        (("en", "1,200 spaces"), ("de", "1.200 Plätze")),
        (("en", "2,000 lamps"), ("en", "2000 lamps")),
        (("ru", "около 0,4 м"), ("ru", "около 40 см")),
        (("en", "62% of people"), ("en", "62 per cent of people")),
    ],
)
def test_one_value_written_two_ways_is_stated(
    claim: tuple[str, str], page: tuple[str, str]
) -> None:
    assert _stated(claim, page)


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        (("de", "kostete 20 Millionen Euro"), ("de", "kostet weiterhin 20 Euro")),
        (("de", "rund 1,2 Millionen Euro"), ("de", "rund 1,2 Mrd. Euro")),
        (("en", "6.8 kilometres long"), ("en", "The 6.8-mile extension")),
        (("en", "5 kilometres long"), ("en", "the 4.2-kilometre crossing")),
        (("en", "until December 2025"), ("en", "until June 2025")),
        (("en", "62% of people"), ("en", "62 people")),
        (("en", "£48 million"), ("en", "$48 million")),
    ],
)
def test_another_value_is_not_stated(claim: tuple[str, str], page: tuple[str, str]) -> None:
    assert not _stated(claim, page)


def test_german_and_english_separators_are_read_by_language() -> None:
    assert [m.magnitude for m in measures("310.000 Euro", "de")] == [310000.0]
    assert [m.magnitude for m in measures("15,5%", "ru")] == [15.5]
    assert [m.magnitude for m in measures("2,068 m", "en")] == [2068.0]


def test_a_modal_may_is_no_month() -> None:
    assert measures("Prices may 2 fall", "en")[0].kind == "amount"


def test_a_different_value_of_the_same_unit_conflicts() -> None:
    (claim,) = measures("5 kilometres", "en")
    (page,) = measures("4.2-kilometre", "en")
    assert claim.conflicts(page)
    (plain,) = measures("5 bridges", "en")
    assert not plain.conflicts(page)


@pytest.mark.parametrize(
    ("text", "language", "rank"),
    [
        ("is ranked third in the rankings", "en", 3),
        ("the world's second-largest carrier", "en", 2),
        ("finished 4th", "en", 4),
        ("gewann den ersten Platz", "de", 1),
        ("второй по величине клад", "ru", 2),
        ("terminó con un cuarto puesto", "es", 4),
        ("is the top scorer this season", "en", 1),
        ("the world's largest carrier", "en", 1),
        ("das ist der größte Fund", "de", 1),
        ("это крупнейший клад", "ru", 1),
        ("fue la mejor española", "es", 1),
    ],
)
def test_a_rank_in_words_is_a_value(text: str, language: str, rank: int) -> None:
    (value,) = measures(text, language)
    assert (value.dimension, value.magnitude) == ("rank", rank)


def test_shares_durations_and_dates_are_no_ranks() -> None:
    for text, language in (
        ("a third of the vote", "en"),
        ("un cuarto de los votos", "es"),
        ("mejoró el récord en 77 segundos", "es"),
        ("on 5th October 2023", "en"),
    ):
        assert all(m.dimension != "rank" for m in measures(text, language)), text


def test_a_superlative_among_several_counted_or_ranked_is_no_first_place() -> None:
    for text, language in (
        ("one of the largest cities", "en"),
        ("the top five universities", "en"),
        ("the world's third-largest carrier", "en"),
        ("один из крупнейших кладов", "ru"),
        ("einer der größten Funde", "de"),
        ("es la mayor que la otra", "es"),
    ):
        assert all(m.magnitude != 1 for m in measures(text, language) if m.dimension == "rank"), (
            text
        )


def test_another_rank_conflicts() -> None:
    (claim,) = measures("ranked third", "en")
    (page,) = measures("climbs to second", "en")
    assert claim.conflicts(page) and not claim.conflicts(measures("came third", "en")[0])


def test_a_month_and_day_before_a_comma_is_a_date() -> None:
    (value,) = measures("The fire broke out Wednesday afternoon, Aug. 7, near the campground", "en")
    assert (value.kind, value.date) == ("date", (None, 8, 7))
