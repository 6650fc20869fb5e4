"""Who did what to whom (judge/clause_roles.py): the same words in other roles are not support."""

from __future__ import annotations

import pytest

from citation_verifier.judge.clause_roles import ClauseParser, commitment, conflicting_roles
from citation_verifier.judge.providers import checker_judge
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.settings import Settings


@pytest.fixture(scope="module")
def parser() -> ClauseParser:
    return ClauseParser()


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        # a passive read as active
        ("The senators were helped by the managers.", "The senators helped the managers."),
        # the noun that only qualifies the subject taken for it
        ("The professor near the artist advised the doctor.", "The doctor advised the professor."),
        ("The scientist near the banker slept.", "The banker slept."),
        ("The lawyer next to Aisha Bello fainted.", "Aisha Bello fainted."),
        # a relative clause's roles
        (
            "The actor who the lawyer recommended saw the banker.",
            "The banker recommended the lawyer.",
        ),
        (
            "The professor recommended the scientist who called the tourist.",
            "The tourist recommended the scientist.",
        ),
        # two objects read as subject and object
        ("The professor saw the student and the scientist.", "The student saw the scientist."),
        # what was known is a clause, not a person
        ("The manager knew the athlete mentioned the actor.", "The manager knew the athlete."),
        ("Beats Electronics was acquired by Apple Inc. in 2014.", "Beats acquired Apple in 2014."),
    ],
)
def test_the_same_words_in_other_roles_conflict(
    parser: ClauseParser, sentence: str, claim: str
) -> None:
    assert conflicting_roles(parser, claim, sentence)


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("If the student slept, the athlete thanked the president.", "The student slept."),
        (
            "The actor helped the lawyer, or the managers stopped the author.",
            "The actor helped the lawyer.",
        ),
    ],
)
def test_a_clause_under_if_or_beside_or_is_not_stated(
    parser: ClauseParser, sentence: str, claim: str
) -> None:
    assert conflicting_roles(parser, claim, sentence)


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("The senators were helped by the managers.", "The managers helped the senators."),
        ("The professor near the artist advised the doctor.", "The professor advised the doctor."),
        (
            "The actor who the lawyer recommended saw the banker.",
            "The lawyer recommended the actor.",
        ),
        ("The student and the scientist saw the professor.", "The scientist saw the professor."),
        ("Since the student slept, the athlete thanked the president.", "The student slept."),
        ("Beats Electronics was acquired by Apple Inc. in 2014.", "Apple acquired Beats in 2014."),
    ],
)
def test_a_sentence_that_states_the_roles_is_no_conflict(
    parser: ClauseParser, sentence: str, claim: str
) -> None:
    assert not conflicting_roles(parser, claim, sentence)


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        # other words: a paraphrase, left to the model
        (
            "Consumers find a product by visiting the website of the retailer directly.",
            "People find the same products by visiting the retailer's website.",
        ),
        # a garden path the parser reads wrong ("the lawyer slept" as what was seen)
        ("The actor who saw the lawyer slept.", "The actor saw the lawyer."),
        # a pronoun: who fills the role, the parse does not say
        ("She was thanked by the mayor.", "The mayor thanked Anna."),
        # no verb at all
        ("axl rose and lead guitarist slash.", "axl rose and lead guitarist slash."),
    ],
)
def test_what_the_parse_cannot_tell_decides_nothing(
    parser: ClauseParser, sentence: str, claim: str
) -> None:
    assert not conflicting_roles(parser, claim, sentence)


def test_the_checker_does_not_support_a_passive_read_as_active() -> None:
    page = (
        "The committee met on Tuesday. The senators were helped by the managers. "
        "The vote was held a week later."
    )
    judge = checker_judge(Settings())
    swapped = judge.judge_sync("The senators helped the managers.", split_passages(page))
    assert swapped.label == Label.NOT_FOUND
    assert swapped.detail == "exact check: clause_roles"
    stated = judge.judge_sync("The managers helped the senators.", split_passages(page))
    assert stated.label == Label.SUPPORTED


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("The minister did not say that taxes would rise next year.", "Taxes will rise next year."),
        ("Smith believes that the vaccine causes autism.", "The vaccine causes autism."),
        ("Critics questioned whether the drug reduces mortality.", "The drug reduces mortality."),
        ("The man, police believe, killed his wife.", "The man killed his wife."),
    ],
)
def test_a_clause_only_believed_asked_or_said_by_nobody_is_unasserted(
    parser: ClauseParser, sentence: str, claim: str
) -> None:
    assert commitment(parser, claim, sentence) == "unasserted"


@pytest.mark.parametrize(
    "sentence",
    [
        "The man, 45, was accused of murdering his wife, prosecutors said on Monday.",
        "The man was accused of the murder of his wife.",
        "Police arrested the man on suspicion of murdering his wife.",
        "The man is alleged to have murdered his wife.",
        "The man is believed to have murdered his wife.",
        "The man was charged with murdering his wife.",
        "The man allegedly murdered his wife in 2019.",
    ],
)
def test_a_deed_someone_is_only_accused_of_is_unasserted(
    parser: ClauseParser, sentence: str
) -> None:
    assert commitment(parser, "The man murdered his wife.", sentence) == "unasserted"


def test_a_deed_charged_with_an_irregular_verb_is_unasserted_in_the_checker() -> None:
    page = "The senator is accused of taking bribes from a construction firm. He denies it."
    judgement = checker_judge(Settings()).judge_sync(
        "The senator took bribes.", split_passages(page)
    )
    assert (judgement.label, judgement.detail) == (Label.NOT_FOUND, "exact check: commitment")


def test_a_deed_someone_is_convicted_of_is_held_as_stated(parser: ClauseParser) -> None:
    sentence = "The man was convicted of murdering his wife in 2019."
    assert commitment(parser, "The man murdered his wife.", sentence) is None


def test_a_clause_stated_anywhere_in_the_sentence_is_held_as_stated(parser: ClauseParser) -> None:
    sentence = "Smith believes that the vaccine causes autism, and the vaccine causes autism."
    assert commitment(parser, "The vaccine causes autism.", sentence) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "The man, police said, killed his wife.",
        "The man killed his wife, and police believe it was planned.",
    ],
)
def test_a_clause_beside_a_report_or_a_belief_of_its_own_is_held_as_stated(
    parser: ClauseParser, sentence: str
) -> None:
    assert commitment(parser, "The man killed his wife.", sentence) is None


def test_a_clause_known_even_when_not_known_is_presupposed(parser: ClauseParser) -> None:
    sentence = "He did not know that the shop had closed."
    assert commitment(parser, "The shop had closed.", sentence) == "presupposed"


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        # reported: the page asserts through it
        ("Officials said that the factory had closed.", "The factory closed."),
        ("The report found that the drug reduces mortality.", "The drug reduces mortality."),
        # a denial is left to the negation rules
        ("Officials denied that the factory had closed.", "The factory closed."),
        ("The drug reduces mortality.", "The drug reduces mortality."),
    ],
)
def test_a_reported_or_plain_clause_is_held_as_stated(
    parser: ClauseParser, sentence: str, claim: str
) -> None:
    assert commitment(parser, claim, sentence) is None


@pytest.mark.parametrize(
    ("page", "claim", "label", "detail"),
    [
        (
            "The minister did not say that taxes would rise next year. The budget is due in May.",
            "Taxes will rise next year.",
            Label.NOT_FOUND,
            "exact check: commitment",
        ),
        (
            "Critics questioned whether the drug reduces mortality. The trial ended in 2020.",
            "The drug reduces mortality.",
            Label.NOT_FOUND,
            "exact check: commitment",
        ),
        (
            "The man, 45, was accused of murdering his wife. The trial begins in May.",
            "The man murdered his wife.",
            Label.NOT_FOUND,
            "exact check: commitment",
        ),
        (
            "He did not know that the shop had closed. He went there anyway.",
            "The shop had closed.",
            Label.SUPPORTED,
            None,
        ),
    ],
)
def test_the_checker_reads_what_the_page_commits_to(
    page: str, claim: str, label: Label, detail: str | None
) -> None:
    judgement = checker_judge(Settings()).judge_sync(claim, split_passages(page))
    assert (judgement.label, judgement.detail) == (label, detail)


def test_the_people_of_a_firm_doing_it_is_the_firm_doing_it(parser: ClauseParser) -> None:
    sentence = (
        "Engineers from the firm Halvorsen & Brook designed the crossing, while the "
        "construction consortium was led by Northgate Civil."
    )
    assert not conflicting_roles(
        parser, "The crossing was designed by Halvorsen & Brook.", sentence
    )
    assert conflicting_roles(parser, "The banker slept.", "The scientist near the banker slept.")
