"""Claims that copy a page's sentence and change a few words (judge/sentence_diff.py and the
near-copy rules of judge/exact_checks.py): the changed words decide, not the shared ones."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from citation_verifier.antonyms import lemmas, opposite
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.judge.checker import chunk_sentences
from citation_verifier.judge.exact_checks import ExactChecks
from citation_verifier.judge.providers import checker_judge
from citation_verifier.judge.sentence_diff import align, normalised
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.pipeline import verify
from citation_verifier.settings import Settings

PAGE = (
    "Sales at Northwind rose by 4 percent in 2019. "
    "Tampere is the second largest city in the region. "
    "Drinking green tea may be linked to a lower risk of gout. "
    "Researchers suggest that kale might reduce the risk of gout. "
    "The museum in Tampere will open in 2027. "
    "Aino Virtanen was born in Turku. "
    "All of the bridges in Turku were inspected."
)


def checks(claim: str, page: str = PAGE) -> ExactChecks:
    return ExactChecks(claim, chunk_sentences([page]))


@pytest.mark.parametrize(
    ("one", "other", "expected"),
    [
        ("rose", "fell", True),
        ("won", "lost", True),
        ("open", "closed", True),
        ("increased", "decreased", True),
        ("bigger", "smaller", True),
        ("rose", "increased", False),
        ("the", "a", False),
    ],
)
def test_opposites_come_from_wordnet_through_any_inflection(
    one: str, other: str, expected: bool
) -> None:
    assert opposite(one, other) is expected


def test_an_irregular_form_reads_as_its_lemma() -> None:
    assert "rise" in lemmas("rose") and "big" in lemmas("bigger")


def test_the_alignment_ignores_articles_and_lists_every_other_change() -> None:
    alignment = align(
        "Sales at Northwind fell by 4 percent.", "The sales at Northwind rose by 4 percent."
    )
    assert [(c.claim, c.page) for c in alignment.changes] == [(("fell",), ("rose",))]


def test_a_word_swapped_for_its_opposite_is_contradicted_with_the_sentence() -> None:
    finding = checks("Sales at Northwind fell by 4 percent in 2019.").one_change()
    assert finding is not None and (finding.rule, finding.label) == ("antonym", Label.CONTRADICTED)
    assert finding.sentence is not None and "rose" in finding.sentence.text


def test_quantifiers_are_ordered_not_opposite() -> None:
    assert checks("Some of the bridges in Turku were inspected.").one_change() is None


def test_a_name_the_page_never_mentions_in_place_of_its_name_is_contradicted() -> None:
    finding = checks("Aino Virtanen was born in Oulu.").one_change()
    assert finding is not None and (finding.rule, finding.label) == (
        "other_name",
        Label.CONTRADICTED,
    )


def test_a_capitalised_first_word_is_no_name() -> None:
    page = "About 8,760 people attended the march in Turku."
    assert checks("Roughly 8,760 people attended the march in Turku.", page).one_change() is None


def test_two_capitalised_words_at_the_start_are_a_name() -> None:
    page = "Aino Virtanen plays for Northwind."
    finding = checks("Kenji Watanabe plays for Northwind.", page).one_change()
    assert finding is not None and finding.rule == "other_name"


def test_a_name_after_an_opening_article_is_still_a_name() -> None:
    page = "The International Cycling Union praised the riders in Turku."
    claim = "The Northern Cycling Union praised the riders in Turku."
    finding = checks(claim, page).one_change()
    assert finding is not None and finding.rule == "other_name"


def test_a_name_the_page_mentions_elsewhere_is_left_to_the_model() -> None:
    assert checks("Aino Virtanen was born in Tampere.").one_change() is None


@pytest.mark.parametrize(
    "claim",
    [
        "Tampere is the largest city in the region.",
        "Tampere is the third largest city in the region.",
    ],
)
def test_another_rank_before_a_superlative_is_contradicted(claim: str) -> None:
    finding = checks(claim).one_change()
    assert finding is not None and (finding.rule, finding.label) == (
        "other_rank",
        Label.CONTRADICTED,
    )


def test_before_for_after_is_an_opposite_too() -> None:
    page = "Aino Virtanen moved to Turku after the war."
    finding = checks("Aino Virtanen moved to Turku before the war.", page).one_change()
    assert finding is not None and finding.rule == "antonym"


def test_a_state_said_to_go_on_where_the_page_says_it_ended_is_contradicted() -> None:
    page = "Aino Virtanen was the mayor of Turku until 2008."
    finding = checks("Aino Virtanen is still the mayor of Turku today.", page).one_change()
    assert finding is not None and (finding.rule, finding.label) == ("goes_on", Label.CONTRADICTED)


@pytest.mark.parametrize(
    ("claim", "sentence", "expected"),
    [
        ("Jones defeated Smith in the final.", "Smith defeated Jones in the final.", True),
        ("Jones defeated Aino Virtanen.", "Aino Virtanen defeated Jones.", True),
        ("Turku is larger than Oulu.", "Oulu is larger than Turku.", True),
        ("Jones and Smith won the cup.", "Smith and Jones won the cup.", False),
        ("Ana moved to Porto in 2019.", "In 2019, Ana moved to Porto.", False),
    ],
)
def test_two_words_trading_places_are_not_support(
    claim: str, sentence: str, expected: bool
) -> None:
    finding = checks(claim, sentence).swapped()
    assert (finding is not None and finding.label == Label.NOT_FOUND) is expected


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Most of the orchards in Turku survived the storm.", Label.CONTRADICTED),
        ("None of the orchards in Turku survived the storm.", Label.CONTRADICTED),
        ("All of the bridges in Turku were inspected.", Label.NOT_FOUND),
        ("Some of the bridges in Turku were inspected.", None),
    ],
)
def test_a_quantifier_the_sentences_does_not_entail_is_not_support(
    claim: str, expected: Label | None
) -> None:
    page = "Few of the orchards in Turku survived the storm. Many of the bridges in Turku were inspected."
    finding = checks(claim, page).one_change()
    assert (finding.label if finding else None) == expected
    assert finding is None or finding.rule == "quantifier"


def test_refusing_or_rejecting_is_a_negation() -> None:
    page = "Aino Virtanen refused to sign the agreement with Northwind."
    assert checks("Aino Virtanen signed the agreement with Northwind.", page).polarity(page)
    assert (
        checks("Aino Virtanen did not sign the agreement with Northwind.", page).polarity(page)
        is None
    )


def test_a_sentence_plus_a_fact_the_page_never_states_is_not_found() -> None:
    finding = checks("Aino Virtanen was born in Turku and studied law in Vienna.").added_fact()
    assert finding is not None and finding.label == Label.NOT_FOUND


def test_a_lead_in_adds_no_fact() -> None:
    claim = "According to the city archive, Aino Virtanen was born in Turku."
    assert checks(claim).added_fact() is None


@pytest.mark.parametrize(
    "claim",
    [
        "Drinking green tea prevents gout.",
        "Kale reduces the risk of gout.",
        "The museum in Tampere opened in 2027.",
    ],
)
def test_a_hedge_or_a_plan_stated_as_fact_is_not_found(claim: str) -> None:
    finding = checks(claim).certainty()
    assert finding is not None and finding.label == Label.NOT_FOUND


def test_a_hedged_claim_of_a_hedged_sentence_is_left_to_the_model() -> None:
    assert checks("Green tea may reduce gout.").certainty() is None


def test_words_the_claim_leaves_out_are_no_hedge() -> None:
    page = "Smith, who will turn 40 next year, won the race in Turku."
    assert checks("Smith won the race in Turku.", page).certainty() is None


def test_what_is_written_two_ways_is_compared_one_way() -> None:
    assert normalised("It isn't 4% or 5 per cent; we can't, won't, cannot. 12,083") == (
        "It is not 4 percent or 5 percent; we can not, will not, can not. 12083"
    )
    assert checks("Sales at Northwind rose by 4 per cent in 2019.").verbatim() is not None
    assert checks("He is not a member.", "He isn't a member.").verbatim() is not None


TERM = "She was a judge in Maricopa county, a post she held from 1975 to 1979."


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        ("She was a judge in Maricopa county, a post she held from 1977 to 1979.", TERM),
        (
            "The study enrolled adults aged 18 to 63 years.",
            "The study enrolled adults aged 18 to 54 years.",
        ),
        ("The rate was 24.5 percent in 2019.", "The rate was 24.3 percent in 2019."),
    ],
)
def test_one_number_for_another_is_contradicted(claim: str, page: str) -> None:
    finding = checks(claim, page).one_change()
    assert finding is not None and finding.rule == "other_number", finding
    assert finding.label == Label.CONTRADICTED


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        ("The rate was 24 percent in 2019.", "The rate was 24.3 percent in 2019."),
        ("The rate was 24.30 percent in 2019.", "The rate was 24.3 percent in 2019."),
    ],
)
def test_a_rounded_number_is_no_other_number(claim: str, page: str) -> None:
    assert checks(claim, page).one_change() is None


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        (
            "People are not still debating the estimates, but we still haven't described most.",
            "People are still debating the estimates, but we still haven't described most.",
        ),
        (
            "This might be a stupid question and I might not know much.",
            "This might not be a stupid question and I might not know much.",
        ),
        (
            "There is no record of the treaty in the archive.",
            "There is a record of the treaty in the archive.",
        ),
    ],
)
def test_a_negation_added_or_left_out_is_contradicted_beside_another_negation(
    claim: str, page: str
) -> None:
    finding = checks(claim, page).one_change()
    assert finding is not None and finding.rule == "negated", finding
    assert finding.label == Label.CONTRADICTED


def test_a_left_out_no_may_be_a_numbers() -> None:
    page = "The No. 5 Squadron flew over the city in 1944."
    assert checks("The 5 Squadron flew over the city in 1944.", page).one_change() is None


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Sales at Northwind fell by 4 percent in 2019.", Label.CONTRADICTED),
        ("Aino Virtanen was born in Oulu.", Label.CONTRADICTED),
        ("Tampere is the largest city in the region.", Label.CONTRADICTED),
        ("Some of the bridges in Turku were inspected.", Label.SUPPORTED),
        ("Sales at Northwind rose by 4 percent in 2018.", Label.CONTRADICTED),
        ("Aino Virtanen was not born in Turku.", Label.CONTRADICTED),
    ],
)
def test_the_checker_gives_the_rules_verdict(claim: str, expected: Label) -> None:
    judgement = checker_judge(Settings()).judge_sync(claim, split_passages(PAGE))
    assert judgement.label == expected, judgement


def test_the_checker_never_supports_a_hedge_stated_as_fact() -> None:
    judgement = checker_judge(Settings()).judge_sync(
        "Drinking green tea prevents gout.", split_passages(PAGE)
    )
    assert judgement.label != Label.SUPPORTED, judgement


async def test_an_antonym_on_a_loopback_page_is_contradicted_by_the_sentence_it_changed(
    serve: Callable[[dict[str, Route]], LoopbackSite],
) -> None:
    site = serve({"/sales": Page(f"<html><body><article><p>{PAGE}</p></article></body></html>")})
    settings = Settings(allow_private_urls=True, judge_provider="checker", audit_enabled=False)
    result = await verify(
        "Sales at Northwind fell by 4 percent in 2019.", [site.url("/sales")], settings
    )
    verdict = result.citations[0]
    assert verdict.label == Label.CONTRADICTED, verdict
    assert verdict.evidence_quote == "Sales at Northwind rose by 4 percent in 2019."
