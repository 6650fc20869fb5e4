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
from citation_verifier.judge.base import exact_check_detail
from citation_verifier.models import Label, UrlVerdict
from citation_verifier.quote_rules import RULE_DETAIL

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
        "needs_review",
        "review_reason",
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
    assert "33.33% (1 of 3)" in page
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


def _cells(page: str, row_id: str) -> list[str]:
    """The cells of the citations table's row for ``row_id``, as HTML."""
    match = re.search(rf"<tr><td>{re.escape(row_id)}</td>(.*?)</tr>", page)
    assert match, page
    return re.findall(r"<td[^>]*>(.*?)</td>", f"<td>{row_id}</td>{match.group(1)}")


def test_html_report_evidence_is_the_quote_only_and_a_deciding_rule_is_named_as_one() -> None:
    hedged = ResultRow(
        id="h1",
        index=0,
        claim="The drug cures the disease.",
        verdict=UrlVerdict(
            url="https://e.example/h",
            label=Label.NOT_FOUND,
            confidence=0.7,
            detail=exact_check_detail("certainty"),
        ),
    )
    lacking = ResultRow(
        id="q1",
        index=0,
        claim="Sales rose by 12%.",
        verdict=UrlVerdict(
            url="https://e.example/q",
            label=Label.NOT_FOUND,
            confidence=0.5,
            reason="quote_lacks_claim",
            detail=f"{RULE_DETAIL}values: the quote states 10%, not 12%",
        ),
    )
    verbatim = ResultRow(
        id="v1",
        index=0,
        claim="Water boils at 100 °C.",
        verdict=UrlVerdict(
            url="https://e.example/v",
            label=Label.SUPPORTED,
            confidence=0.9,
            evidence_quote="Water boils at 100 °C.",
            detail=exact_check_detail("verbatim"),
        ),
    )
    rows = [hedged, lacking, verbatim, ROWS[2]]
    page = html_report(rows, summarize(rows, invalid_lines=0))
    head = re.findall(r"<th>(\w+)</th>", page[page.index("<h2>Citations</h2>") :])
    reason, evidence = head.index("reason"), head.index("evidence")
    hedged_cells = _cells(page, "h1")
    assert "exact check" not in hedged_cells[evidence]  # an internal detail is no evidence
    assert "no quote" in hedged_cells[evidence]
    assert "decided by rule: exact check “certainty”" in hedged_cells[reason]
    lacking_cells = _cells(page, "q1")
    assert lacking_cells[reason].startswith("quote_lacks_claim")
    assert (
        "decided by rule: quote rule “values” (the quote states 10%, not 12%)"
        in lacking_cells[reason]
    )
    assert "quote rule" not in lacking_cells[evidence]
    verbatim_cells = _cells(page, "v1")
    assert verbatim_cells[evidence] == "<blockquote>Water boils at 100 °C.</blockquote>"
    assert "decided by rule: exact check “verbatim”" in verbatim_cells[reason]
    # A reason's explanation stays with the reason, not in the evidence column.
    dead = _cells(page, "r3")
    assert "the origin answered HTTP 404" in dead[reason]
    assert "HTTP 404" not in dead[evidence] and "decided by rule" not in dead[reason]


def test_html_report_summary_is_a_table_with_words_for_each_figure() -> None:
    page = html_report(ROWS, summarize(ROWS, invalid_lines=2))
    summary = page[page.index("<h2>Summary</h2>") : page.index("<h2>Labels</h2>")]
    text = re.sub(r"<[^>]+>", " ", summary)
    assert "<pre>" not in summary and "=" not in text  # no key=value block
    figures = dict(
        re.findall(r'<tr><th scope="row">([^<]+)</th><td class="figure">([^<]*)</td>', summary)
    )
    assert figures["Citation precision"] == "33.33% (1 of 3)"
    assert figures["Reachable precision"] == "50.00% (1 of 2)"
    assert figures["Labels"] == "supported 1 · contradicted 1 · not_found 0 · unreachable 1"
    assert figures["Reasons"] == "http_404 1"
    assert figures["Invalid input lines"] == "2"
    assert figures["Judge failed"] == "0"
    assert figures["Unique URLs"] == "3"
    assert figures["Crawling API credits"] == "1.5"
    # Each figure also says what it means.
    assert summary.count('<td class="meaning">') == len(figures)


def _doubtful(rid: str, label: Label, confidence: float, statement: int | None = None) -> ResultRow:
    why = f"model unsure (confidence {confidence:.2f} < REVIEW_BELOW 0.7)"
    return ResultRow(
        id=rid,
        index=0,
        statement=statement,
        claim=f"Claim of {rid}.",
        verdict=UrlVerdict(
            url=f"https://e.example/{rid}",
            label=label,
            confidence=confidence,
            evidence_quote="q" if label != Label.NOT_FOUND else None,
            needs_review=True,
            review_reason=why,
        ),
    )


REVIEW_ROWS = [
    _doubtful("n1", Label.NOT_FOUND, 0.4),
    ROWS[0],
    _doubtful("c1", Label.CONTRADICTED, 0.5),
    _doubtful("s1", Label.SUPPORTED, 0.6, statement=1),
]


def test_csv_and_json_reports_carry_needs_review_and_its_reason(tmp_path: Path) -> None:
    table = {r["id"]: r for r in csv.DictReader(io.StringIO(csv_text(REVIEW_ROWS)))}
    assert (table["c1"]["needs_review"], table["r1"]["needs_review"]) == ("True", "False")
    assert table["c1"]["review_reason"] == "model unsure (confidence 0.50 < REVIEW_BELOW 0.7)"
    assert table["r1"]["review_reason"] == ""
    out = tmp_path / "report.json"
    write_report(out, REVIEW_ROWS, summarize(REVIEW_ROWS, invalid_lines=0), "json")
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["summary"]["needs_review"] == 3
    flags = {c["id"]: (c["needs_review"], c["review_reason"]) for c in document["citations"]}
    assert flags["r1"] == (False, None)
    assert flags["n1"] == (True, "model unsure (confidence 0.40 < REVIEW_BELOW 0.7)")


def _review_section(page: str) -> str:
    return page[
        page.index('<h2 id="review">Look at these first</h2>') : page.index("<h2>Citations</h2>")
    ]


def test_html_report_lists_the_verdicts_to_look_at_first_most_consequential_first() -> None:
    page = html_report(REVIEW_ROWS, summarize(REVIEW_ROWS, invalid_lines=0))
    assert page.index("Look at these first") < page.index("<h2>Citations</h2>")
    section = _review_section(page)
    rows = re.findall(r'<tr class="review">(.*?)</tr>', section)
    # Chance wrong × cost of a wrong label: supported 3 × 0.4 > contradicted 2 × 0.5 >
    # not_found 1 × 0.6; r1 needs no review and is not listed.
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in rows]
    assert [c[0] for c in cells] == ["s1 · statement 2", "c1", "n1"]
    first = cells[0]
    assert first[1] == "Claim of s1."
    assert first[2] == "https:/<wbr>/<wbr>e.example/<wbr>s1"
    assert (first[3], first[4]) == ("supported", "0.60")
    assert first[5] == "model unsure (confidence 0.60 &lt; REVIEW_BELOW 0.7)"
    figures = dict(re.findall(r'<th scope="row">([^<]+)</th><td class="figure">([^<]*)</td>', page))
    assert figures["Needs review"] == "3"


def test_html_report_says_when_no_verdict_needs_review() -> None:
    section = _review_section(html_report(ROWS, summarize(ROWS, invalid_lines=0)))
    assert "None: no verdict needs review." in section
    assert "<table" not in section
