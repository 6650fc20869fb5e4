"""The cross-check: the embedded judge (real MiniLM) re-reads an LLM's accepted quote."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citation_verifier.judge.base import Judgement
from citation_verifier.judge.crosscheck import CrossCheckedJudge, agreement_score
from citation_verifier.judge.providers import local_judge, make_llm_judge
from citation_verifier.models import Label, Reason
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder
from fake_llm import Verdict
from fake_openai import FakeOpenAI
from llm_setup import llm_settings

CLAIM = "Water boils at 100 degrees Celsius at sea level."
PAGE = (
    "Water boils at 100 degrees Celsius at sea level, the standard boiling point.\n\n"
    "Subscribe to our newsletter for weekly updates from the editors."
)
PASSAGES = split_passages(PAGE, 200)


@pytest.fixture(scope="module")
def openai_fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def checked(fake: FakeOpenAI, embedder: MiniLMEmbedder, *, downgrade: bool) -> CrossCheckedJudge:
    settings = llm_settings("openai", fake)
    return CrossCheckedJudge(
        make_llm_judge(settings, "openai"),
        local_judge(settings, embedder),
        threshold=settings.cross_check_threshold,
        downgrade=downgrade,
    )


def test_agreement_score_is_high_for_the_same_label_and_low_otherwise() -> None:
    assert agreement_score(Label.SUPPORTED, Judgement(Label.SUPPORTED, "q", 0.8)) == 0.9
    assert agreement_score(Label.SUPPORTED, Judgement(Label.NOT_FOUND, None, 0.8)) == 0.1
    assert agreement_score(Label.CONTRADICTED, Judgement(Label.SUPPORTED, "q", 1.0)) == 0.0


async def test_a_quote_that_states_the_claim_agrees(
    openai_fake: FakeOpenAI, embedder: MiniLMEmbedder
) -> None:
    quote = "Water boils at 100 degrees Celsius at sea level"
    openai_fake.script(Verdict("supported", quote, 0.9))
    judgement = await checked(openai_fake, embedder, downgrade=True).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.cross_check) == (Label.SUPPORTED, "agree")
    assert judgement.cross_check_score is not None and judgement.cross_check_score >= 0.5


async def test_an_unrelated_quote_is_flagged_but_kept(
    openai_fake: FakeOpenAI, embedder: MiniLMEmbedder
) -> None:
    quote = "Subscribe to our newsletter for weekly updates from the editors."
    openai_fake.script(Verdict("supported", quote, 0.95))
    judgement = await checked(openai_fake, embedder, downgrade=False).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.evidence_quote) == (Label.SUPPORTED, quote)
    assert judgement.cross_check == "disagree"
    assert judgement.cross_check_score is not None and judgement.cross_check_score < 0.05


async def test_downgrade_turns_disagreement_into_not_found(
    openai_fake: FakeOpenAI, embedder: MiniLMEmbedder
) -> None:
    quote = "Subscribe to our newsletter for weekly updates from the editors."
    openai_fake.script(Verdict("supported", quote, 0.95))
    judgement = await checked(openai_fake, embedder, downgrade=True).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.evidence_quote, judgement.reason) == (
        Label.NOT_FOUND,
        None,
        Reason.CROSS_CHECK_DISAGREE,
    )
    assert judgement.cross_check == "disagree" and judgement.usage is not None
    assert judgement.detail and "embedded judge disagrees" in judgement.detail


async def test_a_quote_the_guard_rejects_is_not_cross_checked(
    openai_fake: FakeOpenAI, embedder: MiniLMEmbedder
) -> None:
    openai_fake.script(Verdict("supported", "Water boils at 50 degrees.", 0.95))
    judgement = await checked(openai_fake, embedder, downgrade=True).judge(CLAIM, PASSAGES)
    assert judgement.label == Label.SUPPORTED  # left for the guard to reject
    assert judgement.cross_check is None and judgement.cross_check_score is None


async def test_not_found_is_not_cross_checked(
    openai_fake: FakeOpenAI, embedder: MiniLMEmbedder
) -> None:
    openai_fake.script(Verdict("not_found", None, 0.7))
    judgement = await checked(openai_fake, embedder, downgrade=True).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.cross_check) == (Label.NOT_FOUND, None)
