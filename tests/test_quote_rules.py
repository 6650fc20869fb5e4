"""The quote rules, each on its own: what the quote of a verdict must hold of the claim."""

from __future__ import annotations

from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.quote_rules import (
    OWN_CHECKS,
    QUOTE_RULES,
    QuoteContext,
    about,
    conflict,
    rule_of,
    rule_on,
    rules_for,
    values,
)


def context(
    claim: str, label: Label, quote: str | None, page: str, language: str = "en"
) -> QuoteContext:
    passages = split_passages(page, 200, language)
    return QuoteContext(claim, label, quote, passages, language, language)


def test_rules_are_tried_in_one_documented_order() -> None:
    assert [name for name, _ in QUOTE_RULES] == ["conflict", "about", "values"]


def test_a_quote_about_something_else_is_no_evidence() -> None:
    page = "Строительство моста обошлось в 2 млрд рублей."
    ruling = about(context("Мэр города — Игорь Белов.", Label.SUPPORTED, page, page, "ru"))
    assert ruling is not None and ruling.label == Label.NOT_FOUND
    assert about(context("Мэр города — Игорь Белов.", Label.CONTRADICTED, page, page, "ru")) is None


def test_about_is_not_asked_across_languages() -> None:
    page = "The bridge cost 2 billion roubles."
    passages = split_passages(page, 200, "en")
    ruling = about(
        QuoteContext("Мэр города — Игорь Белов.", Label.SUPPORTED, page, passages, "ru", "en")
    )
    assert ruling is None


def test_a_claim_value_no_passage_states_is_not_supported() -> None:
    page = "Die Bürgerinitiative prüft eine Klage. Sie hat 300 Mitglieder."
    claim = "Die Bürgerinitiative hat bereits 20.000 Euro an Spenden gesammelt."
    ruling = values(
        context(claim, Label.SUPPORTED, "Die Bürgerinitiative prüft eine Klage.", page, "de")
    )
    assert ruling is not None and "20.000 Euro" in ruling.why


def test_a_value_the_page_states_elsewhere_passes_values() -> None:
    page = "Der Brand wuchs über Nacht. Kosten der Brandbekämpfung bisher\n21,6 Mio. Dollar"
    claim = "Die Kosten der Brandbekämpfung liegen bei 21,6 Millionen Dollar."
    quote = "Der Brand wuchs über Nacht."
    assert values(context(claim, Label.SUPPORTED, quote, page, "de")) is None


def test_english_claims_values_are_left_to_the_checkers_own_rule() -> None:
    page = "The fire grew overnight."
    claim = "The firefighting cost has reached $21.6 million."
    assert values(context(claim, Label.SUPPORTED, page, page)) is None


def test_conflict_quotes_the_sentence_that_gives_another_date() -> None:
    page = "La 15.ª edición se celebrará el 30 de noviembre de 2025, anunció el alcalde."
    claim = "La próxima edición se celebrará el 23 de noviembre de 2025."
    ruling = conflict(context(claim, Label.NOT_FOUND, None, page, "es"))
    assert ruling is not None and ruling.label == Label.CONTRADICTED
    assert ruling.quote == page


def test_the_deciding_rule_is_read_back_from_the_detail() -> None:
    page = "Der Jahresausweis kostet 20 Euro."
    ruling = rule_on(
        context("Die Sanierung kostete 20 Millionen Euro.", Label.SUPPORTED, page, page, "de")
    )
    assert ruling is not None
    assert rule_of(f"quote rule: {ruling.rule}: {ruling.why}") == "values"
    assert rule_of("exact check: verbatim") is None


def test_the_checkers_english_verdicts_get_only_the_conflict_rule() -> None:
    page = "The committee met again on Tuesday."
    rules = rules_for("checker/minilm-l6-checker", english=True)
    assert rules == OWN_CHECKS
    ruling = rule_on(context("Smith won the race.", Label.SUPPORTED, page, page), rules)
    assert ruling is None
    assert rules_for("checker/minilm-l6-checker", english=False) is None
    assert rules_for("checker/minilm-l6-checker+local/qwen", english=True) is None
    assert rules_for("local/qwen2.5-coder-1.5b-instruct", english=True) is None
    assert rule_on(context("Smith won the race.", Label.SUPPORTED, page, page)) is not None
