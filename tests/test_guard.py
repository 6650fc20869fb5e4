from citation_verifier.guard import apply_guard
from citation_verifier.judge.base import Judgement
from citation_verifier.models import Label, Reason
from citation_verifier.passages import normalise_for_quote, quote_in_passages, split_passages

PASSAGES = split_passages("He said “water boils\n at   100 °C” at sea level.\n\nOther text.", 50)


def test_normalisation_straightens_quotes_and_collapses_whitespace() -> None:
    assert normalise_for_quote(" “a”\n\t ‘b’  ") == "\"a\" 'b'"


def test_supported_with_matching_quote_is_kept_with_confidence() -> None:
    verdict = apply_guard(Judgement(Label.SUPPORTED, '"water boils at 100 °C"', 0.9), PASSAGES)
    assert (verdict.label, verdict.confidence, verdict.reason) == (Label.SUPPORTED, 0.9, None)
    assert verdict.evidence_quote == '"water boils at 100 °C"'


def test_contradicted_with_matching_quote_is_kept() -> None:
    verdict = apply_guard(Judgement(Label.CONTRADICTED, "at sea level.", 0.7), PASSAGES)
    assert verdict.label == Label.CONTRADICTED


def test_supported_with_invented_quote_becomes_not_found() -> None:
    verdict = apply_guard(Judgement(Label.SUPPORTED, "water boils at 50 °C", 0.99), PASSAGES)
    assert verdict.label == Label.NOT_FOUND
    assert verdict.evidence_quote is None
    assert verdict.confidence == 0.0
    assert verdict.reason == Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE


def test_empty_quote_never_passes() -> None:
    for quote in ("", "   ", None):
        verdict = apply_guard(Judgement(Label.CONTRADICTED, quote, 0.8), PASSAGES)
        assert verdict.reason == Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE


def test_not_found_with_unmatched_quote_is_flagged() -> None:
    verdict = apply_guard(Judgement(Label.NOT_FOUND, "nowhere on the page", 0.6), PASSAGES)
    assert (verdict.label, verdict.evidence_quote, verdict.confidence) == (
        Label.NOT_FOUND,
        None,
        0.0,
    )
    assert verdict.reason == Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE


def test_not_found_keeps_judge_confidence_and_drops_quote() -> None:
    for quote in (None, "Other text."):
        verdict = apply_guard(Judgement(Label.NOT_FOUND, quote, 0.6), PASSAGES)
        assert (verdict.label, verdict.evidence_quote, verdict.confidence, verdict.reason) == (
            Label.NOT_FOUND,
            None,
            0.6,
            None,
        )


def test_quote_must_lie_within_one_passage() -> None:
    passages = split_passages("alpha beta\n\ngamma delta", max_words=2)
    assert quote_in_passages("beta", passages)
    assert not quote_in_passages("beta gamma", passages)
