"""Batch input: citations in order, and every unusable line reported with its number."""

from __future__ import annotations

import json
from pathlib import Path

from citation_verifier.batch.records import read_input


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
