"""Confidence as the probability of being right: signals, the fitted card, the review mark and
the measures eval reports."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.judge.calibration import (
    FEATURES,
    MIN_RULE_ROWS,
    SHIPPED_CARD,
    CalibrationCard,
    Signals,
    deciding_rule,
    expected_calibration_error,
    family_of,
    fit,
    parts_disagreement,
    review_priority,
    review_reason,
    risk_coverage,
    signals_of,
)
from citation_verifier.models import Label, VerifyRequest
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier


def _signals(confidence: float, **extra: object) -> Signals:
    return Signals(family="checker", label="supported", judge_confidence=confidence, **extra)  # type: ignore[arg-type]


def test_a_fitted_card_gives_the_rate_at_which_verdicts_are_right() -> None:
    # Verdicts right with probability equal to a hidden function of the judge's score.
    rng = random.Random(3)
    rows = []
    for _ in range(4000):
        score = rng.uniform(0.3, 0.99)
        truly = 0.2 + 0.75 * (score - 0.3) / 0.69
        rows.append(("set", _signals(score), rng.random() < truly))
    card = fit(rows)
    for score in (0.35, 0.65, 0.95):
        truly = 0.2 + 0.75 * (score - 0.3) / 0.69
        assert card.confidence(_signals(score)) == pytest.approx(truly, abs=0.07)
    confidences = [card.confidence(s) for _, s, _ in rows]
    error = expected_calibration_error(confidences, [r for *_, r in rows])
    assert error is not None and error < 0.03


def test_a_card_can_read_more_signals_than_the_judges_score() -> None:
    # Right exactly when the quote holds most of the claim, whatever the judge's score.
    rows = [("set", _signals(0.8, quote_coverage=n % 2 * 0.9), n % 2 == 1) for n in range(400)]
    plain = fit(rows)
    wider = fit(rows, features=("bias", "judge_logit", "quote_coverage"), ridge=0.01)
    held, missing = _signals(0.8, quote_coverage=0.9), _signals(0.8)
    assert plain.confidence(held) == plain.confidence(missing) == pytest.approx(0.5, abs=0.01)
    assert wider.confidence(held) > 0.95 > 0.05 > wider.confidence(missing)


def test_a_rule_that_decided_is_as_confident_as_it_was_precise() -> None:
    rows = [("set", _signals(0.9, rule="exact:number"), n < 15) for n in range(20)]
    rows += [("set", _signals(0.9, rule="quote:rare"), True)] * (MIN_RULE_ROWS - 1)
    card = fit(rows)
    assert card.rules["exact:number"] == {"n": 20, "right": 15}
    assert card.confidence(_signals(0.9, rule="exact:number")) == pytest.approx(16 / 22, abs=1e-4)
    # Too few rows to measure a rule: the family's model answers.
    rare = card.confidence(_signals(0.9, rule="quote:rare"))
    assert rare == card.confidence(_signals(0.9))


def test_a_family_with_few_rows_uses_the_model_fitted_on_all() -> None:
    rows = [("set", _signals(0.4 + n / 200), n % 3 != 0) for n in range(100)]
    rows += [("set", Signals("llm", "supported", 0.9), True) for _ in range(5)]
    card = fit(rows)
    assert "llm" not in card.weights and "all" in card.weights
    assert card.fitted_on["family:llm"] == 5
    llm = Signals("llm", "supported", 0.9)
    checker = _signals(0.9)
    assert card.confidence(llm) == pytest.approx(
        CalibrationCard(weights={"all": card.weights["all"]}).confidence(checker), abs=1e-4
    )


def test_a_card_round_trips_and_refuses_other_features(tmp_path: Path) -> None:
    card = fit([("set", _signals(0.5 + n / 400), n % 2 == 0) for n in range(100)])
    card.save(tmp_path / "card.json")
    again = CalibrationCard.load(tmp_path / "card.json")
    assert again.confidence(_signals(0.7)) == card.confidence(_signals(0.7))
    card.features = ["bias", "page_colour"]
    card.save(tmp_path / "old.json")
    with pytest.raises(ValueError, match="page_colour"):
        CalibrationCard.load(tmp_path / "old.json")


def test_the_shipped_card_was_fitted_on_licensed_tune_rows() -> None:
    card = CalibrationCard.load(SHIPPED_CARD)
    datasets = {k for k in card.fitted_on if not k.startswith("family:")}
    assert datasets and datasets <= {"wice", "expertqa", "factcheckgpt", "checkcovid"}
    assert "checker" in card.weights


def test_signals_read_the_verdict_and_the_judge() -> None:
    signals = signals_of(
        "The bridge is 4.2 kilometres long.",
        judge_name="checker/minilm-l6-checker-7c5c63d5",
        judge_label=Label.SUPPORTED,
        judge_confidence=0.81,
        label=Label.CONTRADICTED,
        quote="The crossing is 4.2 kilometres long.",
        reason=None,
        detail="exact check: number_mismatch 5 km vs 4.2 km",
        cross_check=None,
        english=True,
        passages=["The crossing is 4.2 kilometres long.", "It opened in 2020."],
        support=0.7,
    )
    assert signals.rule == "exact:number_mismatch"
    assert signals.best_coverage == signals.quote_coverage
    assert signals.passage_chars == 36 + 18
    assert signals.rule_overturned
    assert signals.quote_coverage > 0.5
    assert signals.claim_words == 6


def test_every_signal_value_is_named_in_features() -> None:
    assert tuple(_signals(0.7).values()) == FEATURES


def test_judge_families_and_deciding_rules_by_name() -> None:
    assert family_of("checker/minilm-l6-checker-7c5c63d5") == "checker"
    assert family_of("checker/minilm+local/qwen") == "checker"
    assert family_of("checker/minilm+local/qwen", "checker unsure (confidence 0.5 …") == "llm"
    assert family_of("openai/gpt-4o-mini") == "llm"
    assert family_of("lexical") == "lexical"
    assert deciding_rule("quote rule: polarity: 'not yet' negates") == "quote:polarity"
    assert deciding_rule("claim judged in 3 parts") is None
    detail = "claim judged in 4 parts (3 supported, 1 contradicted, 0 not_found); part 2 decided"
    assert parts_disagreement(detail) == pytest.approx(0.25)


def test_a_verdict_under_the_threshold_gets_the_reason_in_words() -> None:
    assert review_reason(_signals(0.9), 0.85, 0.7) is None
    assert review_reason(_signals(0.5), 0.55, 0.7) == (
        "model unsure (confidence 0.55 < REVIEW_BELOW 0.7)"
    )
    overturned = _signals(0.5, rule_overturned=True)
    assert review_reason(overturned, 0.6, 0.7).startswith("rule and model disagree")  # type: ignore[union-attr]
    assert review_reason(_signals(0.5, cross_disagree=True), 0.6, 0.7).startswith(  # type: ignore[union-attr]
        "judges disagree"
    )
    assert review_reason(_signals(0.5, partly_read=True), 0.6, 0.7).startswith(  # type: ignore[union-attr]
        "page only partly read"
    )


def test_a_doubtful_supported_is_reviewed_before_a_doubtful_not_found() -> None:
    assert review_priority(Label.SUPPORTED, 0.6) > review_priority(Label.NOT_FOUND, 0.5)
    assert review_priority("contradicted", 0.6) > review_priority("not_found", 0.6)


def test_calibration_error_and_risk_coverage() -> None:
    assert expected_calibration_error([0.9] * 10, [True] * 9 + [False]) == pytest.approx(0.0)
    assert expected_calibration_error([0.9] * 10, [True] * 5 + [False] * 5) == pytest.approx(0.4)
    # The confident half is right; the unsure half is a coin toss.
    confidences = [0.9] * 4 + [0.5] * 4
    predicted = [True, True, False, False, True, True, False, False]
    gold = [True, True, False, False, False, False, True, True]
    table = risk_coverage(confidences, predicted, gold, coverages=(1.0, 0.5))
    assert table == {"1": 0.5, "0.5": 1.0}


ARTICLE = (
    "<html><head><title>Water</title></head><body><article><h1>Water</h1>"
    "<p>At sea level, water boils at 100 degrees Celsius. Its freezing point is 0 degrees "
    "Celsius. Water covers about 71 percent of the Earth's surface.</p></article></body></html>"
)


@pytest.mark.parametrize("review_below", [0.0, 1.0])
async def test_a_verdict_carries_the_cards_confidence_and_the_review_mark(
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
    settings: Settings,
    embedder: MiniLMEmbedder,
    review_below: float,
) -> None:
    site = serve({"/water": Page(ARTICLE)})
    chosen = settings.model_copy(update={"judge_provider": "checker", "review_below": review_below})
    async with Verifier(chosen, embedder=embedder) as verifier:
        result = await verifier.verify(
            VerifyRequest(
                claim="Water boils at 100 degrees Celsius at sea level.", urls=[site.url("/water")]
            )
        )
    verdict = result.citations[0]
    assert verdict.label == Label.SUPPORTED
    assert verdict.confidence_signals is not None
    signals = Signals(**verdict.confidence_signals)
    assert signals.family == "checker"
    assert verdict.confidence == CalibrationCard.load(SHIPPED_CARD).confidence(signals)
    assert verdict.needs_review is (review_below == 1.0) is result.needs_review
    assert (verdict.review_reason is not None) is verdict.needs_review
    # The signals stay in memory: never in what users or the audit store receive.
    assert "confidence_signals" not in verdict.model_dump_json()
    assert '"needs_review"' in result.model_dump_json()


async def test_an_unreadable_page_is_no_verdict_and_never_marked_for_review(
    serve: Callable[[Mapping[str, Route]], LoopbackSite], settings: Settings
) -> None:
    site = serve({})
    async with Verifier(settings.model_copy(update={"review_below": 1.0})) as verifier:
        result = await verifier.verify(
            VerifyRequest(claim="Water boils at 100 degrees.", urls=[site.url("/missing")])
        )
    assert result.citations[0].label == Label.UNREACHABLE
    assert not result.needs_review
