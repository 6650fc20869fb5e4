"""Answer parsing: statements and the URLs each cites, on a corpus of realistic answers in every
supported format (tests/answer_corpus: NAME.md or NAME.json, and NAME.expected.json)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from citation_verifier.answers.parse import answer_request_from_text, parse_answer
from citation_verifier.errors import InputError

CORPUS = Path(__file__).parent / "answer_corpus"
ANSWERS = sorted(p for p in CORPUS.iterdir() if not p.name.endswith(".expected.json"))


def claims(answer: str, citations: tuple[str, ...] = ()) -> list[tuple[str, tuple[str, ...]]]:
    return [(s.claim, s.urls) for s in parse_answer(answer, citations)]


def test_the_corpus_covers_every_format() -> None:
    assert len(ANSWERS) >= 19
    assert {p.suffix for p in ANSWERS} == {".md", ".json"}


@pytest.mark.parametrize("path", ANSWERS, ids=lambda p: p.name)
def test_corpus_answer_parses_into_the_expected_statements(path: Path) -> None:
    request = answer_request_from_text(path.read_text(encoding="utf-8"))
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text("utf-8"))
    got = [
        {
            "claim": s.claim,
            "urls": list(s.urls),
            **({"problems": list(s.problems)} if s.problems else {}),
        }
        for s in parse_answer(request.answer, request.citation_urls())
    ]
    assert got == expected


def test_the_issue_example_gives_four_statements_one_uncited() -> None:
    answer = (
        "Water boils at 100 degrees Celsius at sea level [1]. The Eiffel Tower is about 330 "
        "metres tall [2]. Sourdough is a bread. Water boils at 50 degrees Celsius at sea level "
        "[1][3].\n\nSources:\n[1] https://a.test/water\n[2] https://a.test/eiffel.pdf\n"
        "[3] https://a.test/gone\n"
    )
    statements = parse_answer(answer)
    assert [s.claim for s in statements] == [
        "Water boils at 100 degrees Celsius at sea level.",
        "The Eiffel Tower is about 330 metres tall.",
        "Sourdough is a bread.",
        "Water boils at 50 degrees Celsius at sea level.",
    ]
    assert [s.urls for s in statements] == [
        ("https://a.test/water",),
        ("https://a.test/eiffel.pdf",),
        (),
        ("https://a.test/water", "https://a.test/gone"),
    ]
    assert statements[0].text == "Water boils at 100 degrees Celsius at sea level [1]."
    assert [m.text for m in statements[3].markers] == ["[1]", "[3]"]
    assert [m.urls for m in statements[3].markers] == [
        ("https://a.test/water",),
        ("https://a.test/gone",),
    ]


@pytest.mark.parametrize(
    "sentence",
    ["It is hot [1].", "It is hot.[1]", "It is hot. [1]", "It is hot[1].", "It is hot.\n[1]"],
)
def test_a_marker_before_or_after_the_full_stop_cites_that_sentence(sentence: str) -> None:
    answer = f"{sentence} It is far away.\n\n[1] https://s.test/hot"
    assert claims(answer) == [("It is hot.", ("https://s.test/hot",)), ("It is far away.", ())]


@pytest.mark.parametrize("before", ["100 C", "the U.S", "Fig", "Dr"])
def test_a_marker_after_a_full_stop_ends_the_sentence_whatever_word_the_stop_follows(
    before: str,
) -> None:
    # "100 C." reads as an initial, "Fig." as an abbreviation: the marker after the stop and the
    # capital after it say the sentence ended there.
    answer = f"It boils at {before}. [1] The tower is tall [2].\n\n[1] https://s.test/a\n[2] https://s.test/b"
    assert claims(answer) == [
        (f"It boils at {before}.", ("https://s.test/a",)),
        ("The tower is tall.", ("https://s.test/b",)),
    ]


def test_a_marker_closing_a_paragraph_cites_only_its_last_sentence() -> None:
    answer = "Mars is red. It has two moons [1].\n\n- Phobos is larger.\n- Deimos is small [2]\n"
    answer += "\n[1] https://s.test/mars\n[2] https://s.test/deimos"
    assert claims(answer) == [
        ("Mars is red.", ()),
        ("It has two moons.", ("https://s.test/mars",)),
        ("Phobos is larger.", ()),
        ("Deimos is small", ("https://s.test/deimos",)),
    ]


def test_a_paragraph_of_markers_alone_cites_the_statement_before() -> None:
    answer = "Mars has two moons.\n\n[1][2]\n\n[1]: https://s.test/a\n[2]: https://s.test/b"
    assert claims(answer) == [("Mars has two moons.", ("https://s.test/a", "https://s.test/b"))]


def test_the_citations_array_numbers_sources_and_wins_over_the_text() -> None:
    answer = "Mars is red [1]. It is cold [2].\n\n[1] https://text.test/one"
    citations = ("https://array.test/one", "https://array.test/two")
    assert claims(answer, citations) == [
        ("Mars is red.", ("https://array.test/one",)),
        ("It is cold.", ("https://array.test/two",)),
    ]


def test_a_marker_with_no_source_is_a_problem_of_its_statement() -> None:
    [statement] = parse_answer("Mars is red [3].\n\n[1] https://s.test/one")
    assert statement.urls == ()
    assert statement.problems == ("[3] matches no source in the answer",)


def test_a_citation_that_is_not_an_http_url_is_a_problem() -> None:
    [statement] = parse_answer("Mars is red [1].", ("ftp://files.test/mars",))
    assert statement.urls == ()
    assert "not an http(s) URL" in statement.problems[0]


def test_markdown_structure_makes_no_junk_statements() -> None:
    answer = (
        "# Mars\n\n## Facts\n\nHere are the facts:\n\n```\nMars is red [1]. x = 3.5\n```\n\n"
        "| Planet | Moons |\n|---|---|\n| Mars | 2 |\n\n---\n\n<div>raw html</div>\n\n"
        "* **Mars** is *red* [1]\n"
    )
    assert claims(answer, ("https://s.test/mars",)) == [("Mars is red", ("https://s.test/mars",))]


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("The U.S. Army is old. It was founded in 1775.", 2),
        ("Pi is about 3.14159 and e is 2.718. Both are irrational.", 2),
        ("Dr. Smith and Mr. Jones met in St. Louis. They talked.", 2),
        ("Fruits, e.g. apples, i.e. pomes, grow on trees. Bananas do not.", 2),
        ("J. R. R. Tolkien wrote it. He was British.", 2),
        ("It grew 1.5% vs. last year. Prices fell.", 2),
        ('He said "stop." Then he left. Did he? Yes, he did!', 4),
        ("Apple Inc. The company is large.", 2),
        ("Apple Inc. makes phones.", 1),
    ],
)
def test_abbreviations_decimals_and_quotes_end_sentences_only_where_they_should(
    text: str, count: int
) -> None:
    assert len(parse_answer(text)) == count


def test_a_url_with_parentheses_is_kept_whole() -> None:
    url = "https://en.wikipedia.org/wiki/Mercury_(planet)"
    assert claims(f"Mercury is small ({url}). Its year lasts 88 days, see {url}.") == [
        ("Mercury is small.", (url,)),
        ("Its year lasts 88 days.", (url,)),
    ]


def test_repeated_sources_and_markers_cite_each_url_once() -> None:
    [statement] = parse_answer(
        "It is tall [1][2][1].\n\n[1] https://s.test/a\n[2] https://s.test/a"
    )
    assert statement.urls == ("https://s.test/a",)
    assert [m.text for m in statement.markers] == ["[1]", "[2]", "[1]"]


def test_ranges_and_lists_in_one_marker_expand() -> None:
    sources = "\n".join(f"[{n}] https://s.test/{n}" for n in range(1, 6))
    [statement] = parse_answer(f"It is safe [1, 3-5].\n\n{sources}")
    assert statement.urls == tuple(f"https://s.test/{n}" for n in (1, 3, 4, 5))


def test_answer_request_from_text_reads_json_or_markdown() -> None:
    request = answer_request_from_text(
        '{"answer": "Mars is red [1].", "citations": ["https://s.test"]}'
    )
    assert request.citation_urls() == ["https://s.test"]
    assert answer_request_from_text("Mars is red.").answer == "Mars is red."
    objects = answer_request_from_text(
        '{"answer": "x", "citations": [{"url": "https://s.test", "title": "T"}]}'
    )
    assert objects.citation_urls() == ["https://s.test"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"answer": "x",', "not valid JSON"),
        ('{"citations": []}', "answer"),
        ('{"answer": "x", "extra": 1}', "extra"),
        ("   \n", "blank"),
    ],
)
def test_an_unusable_answer_is_a_clear_input_error(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        answer_request_from_text(text)


def test_the_parser_never_crashes_on_arbitrary_markdown() -> None:
    pieces = [
        "[1]",
        "[^a]",
        "[",
        "]",
        "(",
        ")",
        "https://x.test/a_(b)",
        "<https://y.test>",
        ". ",
        "? ",
        "e.g. ",
        "U.S. ",
        "3.5",
        "**",
        "`",
        "```\n",
        "\n\n",
        "- ",
        "1. ",
        "# ",
        "| a |",
        "Sources:",
        "[1]: https://z.test",
        "[^a]: note",
        "word ",
        "Claim ",
        "\\[",
        "![i](https://i.test)",
    ]
    rng = random.Random(7)
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        for statement in parse_answer(text, ("https://c.test/1",)):
            assert statement.claim.strip()
            assert all(url.startswith(("http://", "https://")) for url in statement.urls)


def test_a_link_to_the_answers_own_site_keeps_its_text_and_cites_nothing() -> None:
    answer = (
        "[Water](/w) boils at sea level [1]. See [the notes](#n) for more.\n\n[1] https://a.test/w"
    )
    first, second = parse_answer(answer)
    assert first.claim == "Water boils at sea level." and first.urls == ("https://a.test/w",)
    assert first.text == "[Water](/w) boils at sea level [1]."
    assert second.claim == "See the notes for more." and second.urls == ()


def test_ordinal_dates_and_abbreviations_of_the_answers_language_do_not_split_a_statement() -> None:
    answer = (
        "Die Stadtbibliothek Lindenau wurde am 5. Oktober 2023 wiedereröffnet [1]. Der Bau "
        "begann am 1. Mai 2019 und kostete ca. 1,4 Mrd. Euro, d.h. mehr als geplant [1].\n\n"
        "[1]: https://example.org/bibliothek"
    )
    statements = parse_answer(answer, language="de")
    assert [s.claim for s in statements] == [
        "Die Stadtbibliothek Lindenau wurde am 5. Oktober 2023 wiedereröffnet.",
        "Der Bau begann am 1. Mai 2019 und kostete ca. 1,4 Mrd. Euro, d.h. mehr als geplant.",
    ]
    assert all(s.urls == ("https://example.org/bibliothek",) for s in statements)
    russian = "Заседание 2 сент. 2024 г. прошло спокойно, т. е. без сюрпризов [1].\n\n" + (
        "[1]: https://example.org/cb"
    )
    assert len(parse_answer(russian, language="ru")) == 1
