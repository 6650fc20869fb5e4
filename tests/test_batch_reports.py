"""Per-citation reports: CSV columns, JSON, and the self-contained HTML report."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.batch.html_report import html_report
from citation_verifier.batch.records import LineError
from citation_verifier.batch.reports import LEADING_COLUMNS, csv_text, write_errors, write_report
from citation_verifier.batch.summary import summarize
from citation_verifier.models import Label, UrlVerdict

ROWS = [
    ResultRow(
        id="r1",
        index=0,
        claim="Water boils at 100 °C.",
        verdict=UrlVerdict(
            url="https://e.example/a",
            label=Label.SUPPORTED,
            evidence_quote='It boils at 100 °C, "at sea level".',
            confidence=0.9,
            final_url="https://e.example/a",
            original_status=200,
            rid="rid-1",
            credits=1.5,
        ),
    ),
    ResultRow(
        id="r2",
        index=0,
        claim="Water boils at 50 <b>°C</b>.",
        verdict=UrlVerdict(
            url="https://e.example/b",
            label=Label.CONTRADICTED,
            evidence_quote="<script>alert(1)</script> boils at 100",
            confidence=0.8,
            original_status=200,
        ),
    ),
    ResultRow(
        id="r3",
        index=1,
        claim="x",
        verdict=UrlVerdict(
            url="https://e.example/c",
            label=Label.UNREACHABLE,
            confidence=1.0,
            reason="http_404",
            detail="the origin answered HTTP 404",
            original_status=404,
        ),
    ),
]


def test_csv_has_one_row_per_citation_with_the_issue_columns_first() -> None:
    table = list(csv.DictReader(io.StringIO(csv_text(ROWS))))
    assert len(table) == 3
    assert list(table[0])[: len(LEADING_COLUMNS)] == [
        "id",
        "statement",
        "claim",
        "url",
        "label",
        "reason",
        "evidence_quote",
        "confidence",
        "final_url",
        "original_status",
        "rid",
        "credits",
    ]
    assert table[0]["evidence_quote"] == 'It boils at 100 °C, "at sea level".'
    assert (table[0]["rid"], table[0]["credits"], table[0]["reason"]) == ("rid-1", "1.5", "")
    assert (table[2]["label"], table[2]["reason"], table[2]["original_status"]) == (
        "unreachable",
        "http_404",
        "404",
    )
    assert "detail" in table[0]  # further verdict fields flow through after the listed ones


def test_json_report_has_summary_and_citations(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    write_report(out, ROWS, summarize(ROWS, invalid_lines=2), "json")
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["summary"]["citations"] == 3
    assert document["summary"]["invalid_lines"] == 2
    assert [c["id"] for c in document["citations"]] == ["r1", "r2", "r3"]
    assert document["citations"][1]["label"] == "contradicted"


def test_errors_file_lists_each_skipped_line(tmp_path: Path) -> None:
    out = tmp_path / "errors.jsonl"
    write_errors(out, [LineError(3, "invalid JSON"), LineError(9, "duplicate id", "a")])
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines == [
        {"line": 3, "error": "invalid JSON", "id": None},
        {"line": 9, "error": "duplicate id", "id": "a"},
    ]


def test_html_report_is_self_contained_lists_contradicted_first_and_escapes_page_text() -> None:
    page = html_report(ROWS, summarize(ROWS, invalid_lines=0))
    assert "citation_precision=0.3333 (1/3)" in page
    assert "<svg" in page and page.count("<rect") == 4  # one bar per label
    assert not re.search(r"""(?:src|href)\s*=|<script|<link|@import|url\(""", page)
    rows = re.findall(r"<tr><td>(r\d)</td>", page)
    assert rows == ["r2", "r1", "r3"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;°C&lt;/b&gt;" in page
    assert "the origin answered HTTP 404" in page


def test_html_report_urls_break_between_their_parts_in_a_column_of_readable_width() -> None:
    long = "https://a.example/research/2021/climate?topic=sea-level&year=2021"
    row = ResultRow(
        id="r9",
        index=0,
        claim="y",
        verdict=UrlVerdict(url=long, label=Label.SUPPORTED, confidence=0.9, evidence_quote="z"),
    )
    page = html_report([row], summarize([row], invalid_lines=0))
    assert (
        "https:/<wbr>/<wbr>a.example/<wbr>research/<wbr>2021/<wbr>climate?<wbr>"
        "topic=sea-level&amp;<wbr>year=2021"
    ) in page
    assert "break-all" not in page  # what squeezed the column to a few characters a line
    assert re.search(r"td\.url\{[^}]*min-width:16rem", page)
