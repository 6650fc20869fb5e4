"""locate_quote: where an accepted quote sits, with the guard's tolerance for whitespace and
quote characters, as a span in its passage (the highlighted context) and in the page (the
audit's offsets)."""

from __future__ import annotations

from citation_verifier.passages import Passage, locate_quote, split_passages

TEXT = "Intro line.\n\nHe said “water boils\n  at 100 °C” at sea level.\n\nOther text here."


def _passage(text: str, index: int = 0) -> Passage:
    return Passage(text=text, start=0, end=len(text), index=index)


def test_the_quote_span_points_into_the_passage_it_came_from() -> None:
    passages = [_passage("Nothing here."), _passage("Intro. Water boils at 100 degrees. End.", 1)]
    span = locate_quote("Water boils at 100 degrees.", passages)
    assert span is not None and span.passage is passages[1]
    assert span.passage.text[span.start : span.end] == "Water boils at 100 degrees."


def test_line_breaks_and_curly_quotes_in_the_passage_still_match() -> None:
    text = "He said “water\n  boils” at 100 degrees."
    span = locate_quote('He said "water boils" at 100 degrees.', [_passage(text)])
    assert span is not None and text[span.start : span.end] == text


def test_a_quote_differing_in_quotes_and_whitespace_maps_to_the_page_characters() -> None:
    span = locate_quote('"water boils at 100 °C"', split_passages(TEXT, 200))
    assert span is not None
    start, end = span.page_span
    assert TEXT[start:end] == "“water boils\n  at 100 °C”"


def test_page_offsets_are_absolute_in_the_page_not_the_passage() -> None:
    passages = split_passages(TEXT, 3)  # several small passages
    span = locate_quote("Other text here.", passages)
    assert span is not None
    start, end = span.page_span
    assert TEXT[start:end] == "Other text here." and start > passages[0].end


def test_no_quote_or_a_quote_not_in_any_passage_gives_no_span() -> None:
    passages = split_passages(TEXT, 200)
    assert locate_quote(None, passages) is None
    assert locate_quote("   ", passages) is None
    assert locate_quote("water boils at 50 °C", passages) is None
    assert locate_quote("Other", []) is None


def test_regex_characters_in_the_quote_are_literal() -> None:
    text = "The price rose (by 5.0%) [est.] in 2024*."
    span = locate_quote("(by 5.0%) [est.] in 2024*.", [_passage(text)])
    assert span is not None and text[span.start : span.end] == "(by 5.0%) [est.] in 2024*."
