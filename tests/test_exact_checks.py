"""The checker's exact checks (judge/exact_checks.py) and the values they compare
(quantities.py): overlap is not support."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.judge.checker import chunk_sentences
from citation_verifier.judge.exact_checks import ExactChecks, is_verbatim, opposite_polarity
from citation_verifier.judge.providers import checker_judge
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.pipeline import verify
from citation_verifier.quantities import quantities, values
from citation_verifier.settings import Settings


def checks(claim: str, page: str) -> ExactChecks:
    return ExactChecks(claim, chunk_sentences([page]))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("4 percent", "4%"),
        ("4 per cent", "4 %"),
        ("2,068 people", "2068 people"),
        ("1 March 2021", "March 1, 2021"),
        ("1 March 2021", "2021-03-01"),
        ("three cats", "3 cats"),
        ("1.2 million", "1,200,000"),
    ],
)
def test_two_spellings_of_one_value_compare_equal(one: str, other: str) -> None:
    assert values(quantities(one)) & values(quantities(other))


def test_a_year_is_stated_by_a_full_date() -> None:
    assert "2021" in values(quantities("It opened on 1 March 2021."))


def test_one_of_is_not_a_count() -> None:
    assert quantities("It is one of the largest cities.") == []


def test_another_value_in_the_claims_slot_contradicts_with_that_sentence() -> None:
    page = (
        "Mauna Kea is taller than Everest when measured from its base on the ocean floor. "
        "The summit of Mount Everest is 8,849 metres above sea level."
    )
    finding = checks("Mount Everest is 9,100 metres tall.", page).number_conflict()
    assert finding is not None and finding.label == Label.CONTRADICTED
    assert finding.sentence is not None and "8,849" in finding.sentence.text


def test_the_same_value_in_another_unit_conflicts() -> None:
    finding = checks("The tower is 120 feet tall.", "The tower is 120 metres tall.")
    assert finding.number_conflict() is not None


def test_a_value_in_another_slot_is_no_conflict() -> None:
    page = "The bridge opened in 1932. It carries 4 lanes of traffic."
    assert checks("The bridge opened in 1932.", page).number_conflict() is None


def test_a_value_stated_nowhere_is_missing() -> None:
    assert checks("It has 7 lanes.", "The bridge opened in 1932.").number_missing() is not None
    assert checks("It opened in 1932.", "The bridge opened in 1932.").number_missing() is None


@pytest.mark.parametrize(
    ("claim", "sentence", "opposite"),
    [
        ("Vitamin C prevents colds.", "Vitamin C does not prevent colds.", True),
        ("Humans can make vitamin C.", "Humans cannot make vitamin C.", True),
        ("He met her in Lyon.", "He denied meeting her in Lyon.", True),
        ("Arson caused the fire.", "Investigators ruled out arson.", True),
        ("He did not attend.", "He did not attend the summit.", False),
        (
            "Charlton Heston was born in Illinois.",
            "Illinois born Charlton Heston was not a young actor from Broadway.",
            False,
        ),
        ("Children are at the beach.", "Children do not enjoy their time on the beach.", False),
        ("He attended.", "He attended the summit.", False),
    ],
)
def test_polarity_is_told_apart(claim: str, sentence: str, opposite: bool) -> None:
    assert opposite_polarity(claim, sentence) is opposite


def test_a_quote_of_the_opposite_polarity_contradicts() -> None:
    page = "Large trials found that vitamin C supplements do not prevent the common cold."
    found = checks("Vitamin C supplements prevent the common cold.", page).polarity(page)
    assert found is not None and found.label == Label.CONTRADICTED


@pytest.mark.parametrize(
    ("claim", "swapped"),
    [
        ("Nadal defeated Federer in the final in Paris.", True),
        ("The lawyer saw the doctor.", False),  # checked against its own page below
        ("Nadal was defeated by Federer in the final in Paris.", False),
        ("In Paris, Federer defeated Nadal in the final.", False),
    ],
)
def test_roles_swapped_around_the_verb_are_not_support(claim: str, swapped: bool) -> None:
    page = "Federer defeated Nadal in the final in Paris. The match lasted three hours."
    assert (checks(claim, page).roles(page) is not None) is swapped


def test_the_same_words_in_swapped_roles_are_caught() -> None:
    page = "The doctor saw the lawyer."
    assert checks("The lawyer saw the doctor.", page).roles(page) is not None


@pytest.mark.parametrize(
    ("claim", "sentence", "expected"),
    [
        ("Water boils at 100 degrees.", "Water boils at 100 degrees.", True),
        ("water boils at 100 degrees", "Water boils at 100 degrees.", True),
        (
            "Water boils at 100 degrees Celsius at sea level.",
            "In fact, water boils at 100 degrees Celsius at sea level.",
            True,
        ),
        ("Water boils at 100 degrees.", "It is not true that water boils at 100 degrees.", False),
        ("Water boils.", "Water boils.", False),  # too short to be a statement by its words
        (
            "Reservists are called up only in times of war.",
            "Reservists are called up only in times of war or natural disaster.",
            False,  # a disjunct left out: the sentence does not state the rest alone
        ),
    ],
)
def test_a_claim_stated_word_for_word_is_verbatim(
    claim: str, sentence: str, expected: bool
) -> None:
    assert is_verbatim(claim, sentence) is expected


ARTICLE = (
    "<html><head><title>Myths</title></head><body><article>"
    "<h1>Five health and geography myths</h1>"
    "<p>Vitamin C is popular in winter. Large reviews of controlled trials found that vitamin C "
    "supplements do not prevent the common cold in the general population, although they may "
    "shorten it slightly.</p>"
    "<p>Most animals make their own vitamin C. Humans cannot synthesise vitamin C, so it must "
    "come from food such as citrus fruit and peppers.</p>"
    "<p>Everest is not the tallest mountain measured from base to peak: that is Mauna Kea in "
    "Hawaii, which rises over 10,000 metres from the ocean floor.</p>"
    "<p>The summit of Mount Everest stands 8,849 metres above sea level, the figure agreed by "
    "China and Nepal in 2020.</p>"
    "</article></body></html>"
)


@pytest.mark.parametrize(
    "claim",
    [
        "Vitamin C supplements prevent the common cold.",
        "Humans can synthesise vitamin C.",
        "Everest is the tallest mountain measured from base to peak.",
    ],
)
async def test_negated_claims_on_a_loopback_page_are_not_supported(
    serve: Callable[[dict[str, Route]], LoopbackSite], claim: str
) -> None:
    site = serve({"/myths": Page(ARTICLE)})
    settings = Settings(allow_private_urls=True, judge_provider="checker", audit_enabled=False)
    verdict = (await verify(claim, [site.url("/myths")], settings)).citations[0]
    assert verdict.label != Label.SUPPORTED, verdict


async def test_a_changed_height_is_contradicted_by_the_sentence_that_gives_it(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/myths": Page(ARTICLE)})
    settings = Settings(allow_private_urls=True, judge_provider="checker", audit_enabled=False)
    result = await verify("Mount Everest is 9,100 metres tall.", [site.url("/myths")], settings)
    verdict = result.citations[0]
    assert verdict.label == Label.CONTRADICTED, verdict
    assert verdict.evidence_quote is not None and "8,849 metres" in verdict.evidence_quote


async def test_the_sentence_itself_is_supported_with_that_sentence(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/myths": Page(ARTICLE)})
    settings = Settings(allow_private_urls=True, judge_provider="checker", audit_enabled=False)
    claim = "Humans cannot synthesise vitamin C, so it must come from food such as citrus fruit."
    verdict = (await verify(claim, [site.url("/myths")], settings)).citations[0]
    assert verdict.label == Label.SUPPORTED, verdict
    assert verdict.evidence_quote is not None and "Humans cannot" in verdict.evidence_quote


def test_exact_checks_can_be_turned_off_by_setting() -> None:
    from citation_verifier.judge.providers import checker_judge
    from citation_verifier.passages import split_passages

    page = "The summit of Mount Everest stands 8,849 metres above sea level."
    claim = "Mount Everest is 9,100 metres tall."
    on = checker_judge(Settings()).judge_sync(claim, split_passages(page))
    off = checker_judge(Settings(checker_exact_checks=False)).judge_sync(
        claim, split_passages(page)
    )
    assert on.detail == "exact check: number_conflict" and on.label == Label.CONTRADICTED
    assert off.detail is None


def test_values_given_as_alternatives_or_a_range_are_not_checked_alone() -> None:
    found = checks("He began recording in 1889 or 1890.", "He began recording in 1890.")
    assert found.number_conflict() is None and found.number_missing() is None


def test_a_value_in_another_unit_is_not_stated() -> None:
    found = checks("The tower is 70 feet tall.", "The tower is 70 metres tall.")
    assert not found.states_values("The tower is 70 metres tall.")
    assert found.states_values("The tower is 70 feet (21 metres) tall.")


def test_a_number_spelled_without_its_separator_is_still_verbatim() -> None:
    assert is_verbatim(
        "The firm employs 12083 people in Leeds.", "The firm employs 12,083 people in Leeds."
    )


def test_names_of_several_words_swapped_around_the_verb_are_caught() -> None:
    page = "Rahul Mehta defeated David Okafor in the final in Utrecht."
    assert checks("David Okafor defeated Rahul Mehta in the final in Utrecht.", page).roles(page)
    assert checks("Rahul Mehta defeated David Okafor in the final.", page).roles(page) is None


def test_a_pair_that_both_negate_something_is_left_to_the_model() -> None:
    claim = "This protective anguish was not milked by Bush for months."
    assert not opposite_polarity(claim, "Bush has not milked this protective anguish for months.")


BRIDGE = (
    "Harbor City opens new bridge after six years of construction\n\n"
    "The Lindqvist Bridge opened to traffic on 14 March 2023. Construction began in 2017 and "
    "cost 412 million euros, about 30 percent more than the original budget of 315 million "
    "euros. The bridge is 1,240 metres long and carries four lanes of traffic and a separate "
    "cycle path. It is the second-longest bridge in the country, after the Øresund link.\n\n"
    "Traffic counts in the first month showed an average of 31,000 vehicles a day, fewer than "
    "the 40,000 the planners had forecast. The city has not introduced a toll, and the council "
    "rejected a proposal to charge heavy trucks in November 2023. Some residents have "
    "complained about noise from the bridge, but an independent study found no increase in "
    "night-time noise levels."
)


def test_a_count_of_another_thing_elsewhere_does_not_excuse_a_conflict() -> None:
    # "six years" in the headline is no statement of six lanes
    for claim in ("The bridge carries six lanes.", "The bridge carries 6 lanes of traffic."):
        finding = checks(claim, BRIDGE).number_conflict()
        assert finding is not None and finding.sentence is not None
        assert "four lanes" in finding.sentence.text
    assert not checks("The bridge carries six lanes.", BRIDGE).states_values(
        "Harbor City opens new bridge after six years of construction"
    )


def test_a_count_of_the_same_thing_elsewhere_still_excuses_the_sentence() -> None:
    page = "The old bridge had six lanes. The new bridge carries four lanes of traffic."
    assert checks("The old bridge had 6 lanes.", page).number_conflict() is None


@pytest.mark.parametrize(
    ("claim", "opposite"),
    [
        ("Some residents have complained about noise from the bridge.", False),
        ("A study found that night-time noise increased.", True),
    ],
)
def test_a_word_stated_outside_a_negation_is_not_denied(claim: str, opposite: bool) -> None:
    sentence = (
        "Some residents have complained about noise from the bridge, but an independent study "
        "found no increase in night-time noise levels."
    )
    assert opposite_polarity(claim, sentence) is opposite


@pytest.mark.parametrize(
    ("claim", "label"),
    [
        ("The Lindqvist Bridge is the country's longest bridge.", Label.CONTRADICTED),
        ("The bridge is the longest in the country.", Label.CONTRADICTED),
        ("The bridge is the second-longest in the country.", None),
    ],
)
def test_the_top_where_the_page_ranks_lower_is_caught(claim: str, label: Label | None) -> None:
    from citation_verifier.judge.clause_roles import ClauseParser

    found = ExactChecks(claim, chunk_sentences([BRIDGE]), ClauseParser()).outranked()
    assert (found.label if found else None) == label


def test_a_rank_of_something_else_is_no_rank_of_the_claims_subject() -> None:
    from citation_verifier.judge.clause_roles import ClauseParser

    page = "Helium is the second most abundant element in the known universe, after hydrogen."
    claim = "The element hydrogen is the most abundant in the universe."
    assert ExactChecks(claim, chunk_sentences([page]), ClauseParser()).outranked() is None


def test_one_of_the_tallest_does_not_state_the_tallest() -> None:
    from citation_verifier.judge.clause_roles import ClauseParser

    page = "The Shard is one of the tallest buildings in Europe."
    found = ExactChecks(
        "The Shard is the tallest building in Europe.", chunk_sentences([page]), ClauseParser()
    ).outranked()
    assert found is not None and found.label == Label.NOT_FOUND


@pytest.mark.parametrize(
    ("claim", "contradicted"),
    [
        ("The bridge cost less than its original budget.", True),
        ("Traffic was higher than forecast in the first month.", True),
        ("The bridge cost more than its original budget.", False),
        ("Traffic was lower than the planners had forecast.", False),
        ("Some residents were more worried about traffic than noise.", False),
    ],
)
def test_a_comparison_the_page_makes_the_other_way_contradicts(
    claim: str, contradicted: bool
) -> None:
    found = checks(claim, BRIDGE).comparison()
    assert (found is not None and found.label == Label.CONTRADICTED) is contradicted


@pytest.mark.parametrize(
    ("claim", "contradicted"),
    [
        ("The effect was stronger in people over 70.", True),
        ("The effect was weaker in people over 70.", False),
        ("Sales were higher in people over 70.", False),  # another thing compared
        ("The effect was stronger in women.", False),  # compared somewhere else
    ],
)
def test_a_comparative_without_than_is_read_too(claim: str, contradicted: bool) -> None:
    page = "The effect was similar in men and women but weaker in people over 70."
    found = checks(claim, page).comparison()
    assert (found is not None) is contradicted


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        # the converse: the same statement
        (
            "If the buoyant force is greater than the force of gravity, the ship floats.",
            "If the force of gravity pulling the ship down is less than the buoyant force, the "
            "ship floats.",
        ),
        # "far" names nothing compared
        (
            "Bloomington spent far more on scholarships than our own law school.",
            "It is far less than is available at most law schools, including Bloomington.",
        ),
    ],
)
def test_a_converse_or_a_degree_word_is_no_opposite_comparison(claim: str, page: str) -> None:
    assert checks(claim, page).comparison() is None


def test_a_possessive_is_its_noun() -> None:
    from citation_verifier.terms import analyse

    assert analyse("the country's longest bridge").tokens == {"country", "longest", "bridge"}


@pytest.mark.parametrize(
    ("claim", "label"),
    [
        ("The city has not introduced a toll.", Label.SUPPORTED),
        ("The city did not introduce a toll.", Label.SUPPORTED),
        ("Some residents have complained about noise from the bridge.", Label.SUPPORTED),
        ("The bridge carries six lanes.", Label.CONTRADICTED),
        ("The Lindqvist Bridge is the longest bridge in the country.", Label.CONTRADICTED),
        ("The bridge cost less than its original budget.", Label.CONTRADICTED),
    ],
)
async def test_ordinary_claims_on_a_news_page_get_the_page_s_answer(
    serve: Callable[[dict[str, Route]], LoopbackSite], claim: str, label: Label
) -> None:
    paragraphs = "".join(f"<p>{p}</p>" for p in BRIDGE.split("\n\n")[1:])
    html = (
        "<html><head><title>Bridge</title></head><body><article>"
        f"<h1>{BRIDGE.split(chr(10))[0]}</h1>{paragraphs}</article></body></html>"
    )
    site = serve({"/bridge": Page(html)})
    settings = Settings(allow_private_urls=True, judge_provider="checker", audit_enabled=False)
    verdict = (await verify(claim, [site.url("/bridge")], settings)).citations[0]
    assert verdict.label == label, verdict


@pytest.mark.parametrize(
    "claim", ["The city has not introduced a toll.", "The city did not introduce a toll."]
)
def test_a_negated_claim_is_read_against_the_sentence_that_states_it(claim: str) -> None:
    # Over the whole 180-word passage the model reads the claim's "not" as a contradiction
    # (P 0.92, quoting the bridge's length); against its sentence, as support.
    from citation_verifier.judge.providers import checker_judge
    from citation_verifier.passages import split_passages

    page = BRIDGE.replace("\n\n", " ") + (
        " Mayor Elena Vasquez said the bridge would cut commuting times by up to 20 minutes. "
        "Engineers from the Danish firm Kraemer & Holt designed the cable-stayed structure."
    )
    judgement = checker_judge(Settings()).judge_sync(claim, split_passages(page))
    assert judgement.label == Label.SUPPORTED, judgement
    assert judgement.evidence_quote is not None
    assert "has not introduced a toll" in judgement.evidence_quote


def test_a_future_the_page_states_supports_the_present_but_not_the_past() -> None:
    judge = checker_judge(Settings())
    page = split_passages(
        "The bridge opened on Saturday. A toll of 3.50 euros per car will be charged in both "
        "directions. The museum in Oslo will open in 2027."
    )
    present = judge.judge_sync("A toll of 3.50 euros per car is charged in both directions.", page)
    assert present.detail != "exact check: certainty"
    past = judge.judge_sync("The museum in Oslo opened in 2027.", page)
    assert past.label != Label.SUPPORTED
