"""Batch input: citations in order, and every unusable line reported with its number."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from citation_verifier.batch.records import read_input
from citation_verifier.errors import InputError


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_each_claim_url_pair_is_one_citation_in_input_order(tmp_path: Path) -> None:
    good = [
        json.dumps(
            {"id": "a", "claim": "C1", "urls": ["https://a.example/1", "https://b.example/"]}
        ),
        json.dumps({"id": 7, "claim": " C2 ", "urls": ["https://a.example/1"], "extra": 1}),
    ]
    batch = read_input(_write(tmp_path / "in.jsonl", good))
    assert [(c.record_id, c.index, c.claim, c.url) for c in batch.citations] == [
        ("a", 0, "C1", "https://a.example/1"),
        ("a", 1, "C1", "https://b.example/"),
        ("7", 0, "C2", "https://a.example/1"),
    ]
    assert batch.records == 2 and batch.errors == []


def test_invalid_lines_are_reported_with_their_line_number_and_reading_continues(
    tmp_path: Path,
) -> None:
    lines = [
        json.dumps({"id": "ok1", "claim": "C", "urls": ["https://a.example/x"]}),
        "{not json",
        json.dumps({"id": "m", "urls": ["https://a.example/x"]}),
        json.dumps({"id": "e", "claim": "   ", "urls": ["https://a.example/x"]}),
        json.dumps({"id": "n", "claim": "C", "urls": []}),
        json.dumps({"id": "b", "claim": "C", "urls": ["ftp://a.example/x"]}),
        "",
        json.dumps(["a", "list"]),
        json.dumps({"id": True, "claim": "C", "urls": ["https://a.example/x"]}),
        json.dumps({"id": "ok1", "claim": "again", "urls": ["https://a.example/y"]}),
        json.dumps({"id": "ok2", "claim": "C", "urls": ["https://a.example/z"]}),
    ]
    batch = read_input(_write(tmp_path / "in.jsonl", lines))
    errors = {e.line: e.error for e in batch.errors}
    assert sorted(errors) == [2, 3, 4, 5, 6, 8, 9, 10]
    assert errors[2].startswith("invalid JSON")
    assert "missing field(s): claim" in errors[3]
    assert "claim" in errors[4] and "blank" in errors[4]
    assert "urls" in errors[5]
    assert "not an http(s) URL" in errors[6]
    assert "JSON object" in errors[8]
    assert "id must be a string or an integer" in errors[9]
    assert "duplicate id (first used on line 1)" in errors[10]
    assert [c.record_id for c in batch.citations] == ["ok1", "ok2"]
    assert batch.records == 2


def test_an_invalid_record_keeps_its_id_and_a_truncated_line_its_own_column(
    tmp_path: Path,
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(
        '{"id": "r1", "claim": "", "urls": ["https://example.com/"]}\n'
        '{"id": "r2", "claim": "c", "urls": ["https://ex\n'
        '{"id": 7, "claim": "c"}\n',
        encoding="utf-8",
    )
    errors = read_input(path).errors
    assert [(e.line, e.record_id) for e in errors] == [(1, "r1"), (2, None), (3, "7")]
    assert "Value error" not in errors[0].error
    assert errors[1].error == "invalid JSON at column 37: Unterminated string starting at"
    assert errors[2].error == "missing field(s): urls"


def test_gzip_input_is_read_like_plain_jsonl(tmp_path: Path) -> None:
    record = {"id": "1", "claim": "c", "urls": ["https://example.com/a", "https://example.com/b"]}
    path = tmp_path / "in.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    assert [c.url for c in read_input(path).citations] == record["urls"]


def test_a_corrupt_gzip_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    with pytest.raises(InputError, match="cannot read"):
        read_input(path)


def test_record_errors_say_what_is_wrong_and_what_to_give_in_our_words(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": "a", "claim": "", "urls": []}),
        json.dumps({"id": "b", "claim": "C", "urls": "https://a.example/"}),
        json.dumps({"id": "c", "claim": "C", "urls": [3], "cited_at": "soon"}),
        json.dumps({"id": "d", "answer": "A [1] [2]", "citations": ["https://a.example/", 5]}),
    ]
    errors = [e.error for e in read_input(_write(tmp_path / "in.jsonl", lines)).errors]
    assert errors == [
        "claim: empty; give the claim to check; urls: empty; give at least one URL",
        "urls: not a list; give the http(s) URLs cited for the claim, as a list",
        "urls.0: not text; give an http(s) URL; "
        "cited_at: not a date (YYYY-MM-DD) or an ISO date-time",
        "citations: [2] is neither a URL nor an object with a url",
    ]
