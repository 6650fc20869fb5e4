from citation_verifier.guard import apply_guard
from citation_verifier.judge.base import Judgement
from citation_verifier.models import Label, Reason
from citation_verifier.passages import (
    Passage,
    normalise_for_quote,
    quote_in_passages,
    split_passages,
)

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


def _page(text: str, language: str) -> list[Passage]:
    return split_passages(text, 200, language)


def test_a_supported_quote_without_the_claims_amount_becomes_not_found() -> None:
    page = _page("Die Sanierung dauerte zwei Jahre. Der Jahresausweis kostet 20 Euro.", "de")
    judgement = Judgement(Label.SUPPORTED, "Der Jahresausweis kostet 20 Euro.", 0.61)
    verdict = apply_guard(judgement, page, "Die Sanierung kostete 20 Millionen Euro.", "de")
    assert (verdict.label, verdict.reason) == (Label.NOT_FOUND, Reason.QUOTE_LACKS_CLAIM)
    assert verdict.evidence_quote is None
    assert "20 Millionen Euro" in (verdict.detail or "")


def test_a_sentence_about_the_claim_giving_another_amount_contradicts_it() -> None:
    page = _page("Die Sanierung kostete 14 Millionen Euro. Der Jahresausweis kostet 20 Euro.", "de")
    claim = "Die Sanierung kostete 20 Millionen Euro."
    for said in (
        Judgement(Label.SUPPORTED, "Der Jahresausweis kostet 20 Euro.", 0.61),
        Judgement(Label.NOT_FOUND, None, 0.7),
    ):
        verdict = apply_guard(said, page, claim, "de")
        assert verdict.label == Label.CONTRADICTED
        assert verdict.evidence_quote == "Die Sanierung kostete 14 Millionen Euro."


def test_another_value_of_the_same_unit_in_another_form_contradicts() -> None:
    page = _page("The 4.2-kilometre crossing opened on Saturday.", "en")
    verdict = apply_guard(
        Judgement(Label.NOT_FOUND, None, 0.6), page, "The crossing is 5 km long.", "en"
    )
    assert verdict.label == Label.CONTRADICTED


def test_a_value_the_page_states_elsewhere_is_no_contradiction() -> None:
    page = _page("The tower is 186 metres tall. The deck is 40 metres above the water.", "en")
    judgement = Judgement(Label.NOT_FOUND, None, 0.6)
    assert apply_guard(judgement, page, "The tower is 186 metres tall.", "en").label == (
        Label.NOT_FOUND
    )


def test_a_supported_quote_stating_the_value_in_another_form_stands() -> None:
    page = _page("Die Investitionen beziffert LithoSax auf rund 1,2 Mrd. Euro.", "de")
    judgement = Judgement(Label.SUPPORTED, page[0].text, 0.8)
    claim = "LithoSax beziffert die Investitionen auf rund 1,2 Milliarden Euro."
    assert apply_guard(judgement, page, claim, "de").label == Label.SUPPORTED


def test_a_verdict_whose_quote_shares_no_word_with_the_claim_becomes_not_found() -> None:
    page = _page("Строительство моста обошлось в 2 млрд рублей.", "ru")
    judgement = Judgement(Label.SUPPORTED, page[0].text, 0.7)
    verdict = apply_guard(judgement, page, "Мэр города — Игорь Белов.", "ru")
    assert (verdict.label, verdict.reason) == (Label.NOT_FOUND, Reason.QUOTE_LACKS_CLAIM)


def test_without_the_claim_only_the_quote_is_checked() -> None:
    page = _page("Der Jahresausweis kostet 20 Euro.", "de")
    judgement = Judgement(Label.SUPPORTED, page[0].text, 0.6)
    assert apply_guard(judgement, page).label == Label.SUPPORTED
