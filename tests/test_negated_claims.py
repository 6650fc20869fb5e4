"""A negated claim read through its positive form (judge/positive_form.py): the checker learned
that a "not" in a claim means contradiction, whatever the page says."""

from __future__ import annotations

import pytest

from citation_verifier.judge.checker import CheckerJudge
from citation_verifier.judge.positive_form import positive_form
from citation_verifier.judge.providers import checker_judge
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.settings import Settings


@pytest.mark.parametrize(
    ("claim", "positive"),
    [
        ("The kids are not cutting ribbons.", "The kids are cutting ribbons."),
        ("Oil prices did not rise to $37.80.", "Oil prices did rise to $37.80."),
        ("She doesn't like tea.", "She does like tea."),
        ("He won't come.", "He will come."),
        ("Humans cannot synthesise vitamin C.", "Humans can synthesise vitamin C."),
        ("He never lies.", "He lies."),
        ("Not all birds fly.", "All birds fly."),
        ("No one was hurt.", None),  # a quantifier, not the negation of "One was hurt"
        ("He is not unhappy and never late.", None),  # two negations
        ("Vitamin C prevents the common cold.", None),
    ],
)
def test_the_positive_form_drops_the_one_plain_negation(claim: str, positive: str | None) -> None:
    assert positive_form(claim) == positive


@pytest.fixture(scope="module")
def checker() -> CheckerJudge:
    return checker_judge(Settings())


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        # a page that never mentions it
        (
            "The company did not report a loss in 2020.",
            "The company opened a new office in Oslo. It hired twelve engineers there.",
        ),
        # a page that contradicts the positive form by exclusion only: not a statement of it
        (
            "Northwind did not open an office in Paris.",
            "Northwind opened a new office in Oslo in March 2021. It hired twelve engineers.",
        ),
        (
            "The kids are not cutting ribbons.",
            "Two kids are drawing pictures on paper at a kitchen table.",
        ),
    ],
)
def test_a_negated_claim_the_page_does_not_state_is_neither_contradicted_nor_supported(
    checker: CheckerJudge, claim: str, page: str
) -> None:
    judgement = checker.judge_sync(claim, split_passages(page))
    assert judgement.label == Label.NOT_FOUND
    # the passage, and any of its sentences also scored, negate nothing: read positively
    reading = checker.read(claim, split_passages(page))
    assert reading.checked_positively == frozenset(range(len(reading.texts)))


def test_a_negated_claim_is_contradicted_where_the_page_states_its_positive_form(
    checker: CheckerJudge,
) -> None:
    page = "Northwind opened a new office in Oslo in March 2021. It hired twelve engineers."
    claim = "Northwind did not open an office in Oslo."
    judgement = checker.judge_sync(claim, split_passages(page))
    assert judgement.label == Label.CONTRADICTED
    assert judgement.evidence_quote is not None and "Oslo" in judgement.evidence_quote


def test_a_passage_that_negates_is_read_against_the_claim_itself(checker: CheckerJudge) -> None:
    page = "Large trials found that vitamin C supplements do not prevent the common cold."
    claim = "Vitamin C supplements do not prevent the common cold."
    reading = checker.read(claim, split_passages(page))
    assert reading.checked_positively == frozenset()
    assert checker.judge_sync(claim, split_passages(page)).label == Label.SUPPORTED


def test_the_positive_form_can_be_switched_off() -> None:
    checker = checker_judge(Settings(checker_positive_form=False))
    page = "The company opened a new office in Oslo."
    reading = checker.read("The company did not report a loss in 2020.", split_passages(page))
    assert reading.positive is None and reading.checked_positively == frozenset()
    judgement = checker.judge_sync(
        "The company did not report a loss in 2020.", split_passages(page)
    )
    assert judgement.label == Label.CONTRADICTED  # the cue decides without it
