"""Offsets of the evidence quote in the page snapshot."""

from __future__ import annotations

from citation_verifier.audit.quotes import locate_quote
from citation_verifier.passages import split_passages

TEXT = "Intro line.\n\nHe said “water boils\n  at 100 °C” at sea level.\n\nOther text here."


def test_an_exact_quote_maps_to_its_offsets() -> None:
    passages = split_passages(TEXT, 200)
    span = locate_quote("Other text here.", passages)
    assert span is not None and TEXT[span[0] : span[1]] == "Other text here."


def test_a_quote_differing_in_quotes_and_whitespace_maps_to_the_page_characters() -> None:
    passages = split_passages(TEXT, 200)
    span = locate_quote('"water boils at 100 °C"', passages)
    assert span is not None
    assert TEXT[span[0] : span[1]] == "“water boils\n  at 100 °C”"


def test_offsets_are_absolute_in_the_page_not_the_passage() -> None:
    passages = split_passages(TEXT, 3)  # several small passages
    span = locate_quote("Other text here.", passages)
    assert span is not None and TEXT[span[0] : span[1]] == "Other text here."
    assert span[0] > passages[0].end


def test_a_missing_or_empty_quote_has_no_offsets() -> None:
    passages = split_passages(TEXT, 200)
    assert locate_quote("water boils at 50 °C", passages) is None
    assert locate_quote(None, passages) is None
    assert locate_quote("  ", passages) is None
    assert locate_quote("Other", []) is None
