"""Sentences by the multilingual segmenter: abbreviations and ordinal dates of each language
never end a sentence, a line break always does, and every sentence is a slice of the text."""

from __future__ import annotations

import pytest

from citation_verifier.segment import sentence_spans, sentences


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        (
            "de",
            "Die Stadtbibliothek Lindenau wurde am 5. Oktober 2023 wiedereröffnet. Der Bau "
            "kostete ca. 1,4 Mrd. Euro, d.h. mehr als geplant.",
            2,
        ),
        (
            "de",
            "Mit 2 Std. 40 Min. inklusive einer Pause ist sie länger. Gefördert wurde "
            "sie u. a. von der Stiftung.",
            2,
        ),
        (
            "ru",
            "ЦБ снизил ставку на 50 б. п., т. е. с 16% до 15,5%. Заседание 2 сент. "
            "прошло спокойно.",
            2,
        ),
        (
            "en",
            "Its chief investigator, Dr. Helen Osei, said so. Prof. Martin Kruger disagreed.",
            2,
        ),
        ("es", "El Sr. García ganó el maratón. La carrera fue el 24 de nov. de 2024.", 2),
    ],
)
def test_abbreviations_and_ordinal_dates_do_not_end_a_sentence(
    language: str, text: str, expected: int
) -> None:
    assert len(sentences(text, language)) == expected


def test_a_line_break_always_ends_a_sentence() -> None:
    assert sentences("Total length\n4.2 km\nIt opened in May.", "en") == [
        "Total length",
        "4.2 km",
        "It opened in May.",
    ]


def test_every_sentence_is_a_trimmed_slice_of_the_text() -> None:
    text = "  Первая фраза. Вторая фраза!\n\n Третья "
    spans = sentence_spans(text, "ru")
    assert [text[a:b] for a, b in spans] == ["Первая фраза.", "Вторая фраза!", "Третья"]


def test_an_unknown_language_is_read_as_english() -> None:
    assert sentences("Dr. Smith came. He left.", None) == ["Dr. Smith came.", "He left."]


def test_a_long_line_is_read_in_windows_cut_after_a_sentence_mark() -> None:
    sentence = "The committee met again on Tuesday and approved the plan. "
    text = sentence * 100  # 5,800 characters on one line
    spans = sentence_spans(text, "en")
    assert [text[a:b] for a, b in spans] == [sentence.strip()] * 100
