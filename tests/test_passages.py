import pytest

from citation_verifier.passages import split_passages


def test_paragraphs_share_a_passage_until_the_next_would_overflow() -> None:
    text = "one two three\n\nfour five\n\nsix seven eight"
    passages = split_passages(text, max_words=5)
    assert [p.text for p in passages] == ["one two three\n\nfour five", "six seven eight"]


def test_long_paragraph_is_cut_on_word_boundaries() -> None:
    text = " ".join(f"w{i}" for i in range(12))
    passages = split_passages(text, max_words=5)
    assert [len(p.text.split()) for p in passages] == [5, 5, 2]
    assert passages[0].text == "w0 w1 w2 w3 w4"


def test_crlf_and_cr_are_normalised_before_splitting() -> None:
    passages = split_passages("alpha beta\r\n\r\ngamma\r\rdelta", max_words=2)
    assert [p.text for p in passages] == ["alpha beta", "gamma\n\ndelta"]


def test_blank_blocks_are_dropped() -> None:
    assert split_passages("\n\n   \n\t\n\n") == []
    assert [p.text for p in split_passages("a\n\n  \n\n\nb", max_words=1)] == ["a", "b"]


def test_passages_are_verbatim_slices_with_offsets() -> None:
    text = "First paragraph here.\n\nSecond one,  with  spaces.\n\n" + "x " * 300
    for passage in split_passages(text, max_words=200):
        assert text[passage.start : passage.end] == passage.text


def test_word_count_matches_str_split() -> None:
    text = "a\tb\u00a0c\u2003d e"
    passages = split_passages(text, max_words=len(text.split()))
    assert len(passages) == 1


def test_cap_below_one_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        split_passages("text", max_words=0)


def test_default_cap_is_two_hundred_words() -> None:
    passages = split_passages(" ".join(["w"] * 401))
    assert [len(p.text.split()) for p in passages] == [200, 200, 1]
