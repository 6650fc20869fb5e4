"""locate_evidence: the quote's span in the passage it came from, with the guard's tolerance
for whitespace and quote characters."""

from __future__ import annotations

from citation_verifier.evidence import locate_evidence
from citation_verifier.passages import Passage


def _passage(text: str, index: int = 0) -> Passage:
    return Passage(text=text, start=0, end=len(text), index=index)


def test_the_quote_span_points_into_the_passage_it_came_from() -> None:
    passages = [_passage("Nothing here."), _passage("Intro. Water boils at 100 degrees. End.", 1)]
    context = locate_evidence("Water boils at 100 degrees.", passages)
    assert context is not None
    assert context.passage == passages[1].text
    assert context.passage[context.start : context.end] == "Water boils at 100 degrees."


def test_line_breaks_and_curly_quotes_in_the_passage_still_match() -> None:
    text = "He said “water\n  boils” at 100 degrees."
    context = locate_evidence('He said "water boils" at 100 degrees.', [_passage(text)])
    assert context is not None
    assert text[context.start : context.end] == text


def test_no_quote_or_a_quote_not_in_any_passage_gives_no_context() -> None:
    passages = [_passage("Water boils at 100 degrees.")]
    assert locate_evidence(None, passages) is None
    assert locate_evidence("   ", passages) is None
    assert locate_evidence("Water freezes", passages) is None


def test_regex_characters_in_the_quote_are_literal() -> None:
    text = "The price rose (by 5.0%) [est.] in 2024*."
    context = locate_evidence("(by 5.0%) [est.] in 2024*.", [_passage(text)])
    assert context is not None and text[context.start : context.end] == "(by 5.0%) [est.] in 2024*."
