"""``citation-verifier check-answer``, run as a user runs it: a real process, loopback pages."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.demo.site import demo_routes, example_answer
from citation_verifier.terminal import ExitCode
from test_cli import run

Serve = Callable[[Mapping[str, Route]], LoopbackSite]


@pytest.fixture
def site(serve: Serve) -> LoopbackSite:
    return serve(demo_routes())


def test_check_answer_json_gives_the_statements_and_precision(
    site: LoopbackSite, tmp_path: Path
) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(example_answer(site.base_url), encoding="utf-8")
    done = run("check-answer", "--json", str(answer))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [s["overall"] for s in result["statements"]] == [
        "supported",
        "supported",
        "uncited",
        "contradicted",
    ]
    assert result["citation_precision"] == 0.5
    assert {"text", "claim", "overall", "citations"} <= set(result["statements"][0])
    assert "4 statement(s) citing 3 URL(s)" in done.stderr


def test_check_answer_reads_the_json_form_from_standard_input(site: LoopbackSite) -> None:
    body = {
        "answer": "Water boils at 100 degrees Celsius at sea level [1]. Sourdough is a bread.",
        "citations": [site.url("/articles/water-boiling-point")],
    }
    done = run("check-answer", "-", input=json.dumps(body))
    assert done.returncode == 0, done.stderr
    assert "citation_precision=1.0000 (1/1)" in done.stdout
    assert "statements: supported=1 contradicted=0" in done.stdout
    assert "uncited=1" in done.stdout
    assert "Water boils at 100 degrees Celsius at sea level [1]." in done.stdout


def test_check_answer_fail_on_gates_on_statement_labels(site: LoopbackSite, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(example_answer(site.base_url), encoding="utf-8")
    done = run("check-answer", str(answer), "--fail-on", "contradicted,uncited")
    assert done.returncode == ExitCode.FAIL_ON, done.stderr
    assert "--fail-on: 2 statement(s) contradicted, uncited" in done.stderr


def test_check_answer_marks_a_verdict_that_needs_review_and_fail_on_needs_review_gates(
    site: LoopbackSite, tmp_path: Path
) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(example_answer(site.base_url), encoding="utf-8")
    done = run("check-answer", str(answer), "--fail-on", "needs_review", REVIEW_BELOW="1.0")
    assert done.returncode == ExitCode.FAIL_ON, done.stderr
    # Statement 4 is contradicted by the water page: its verdict line, its quote, then the mark.
    report = done.stdout.splitlines()
    water = site.url("/articles/water-boiling-point")
    at = report.index(f"   contradicted  {water}")
    assert report[at + 2].startswith("     needs review: ")
    assert "< REVIEW_BELOW 1)" in report[at + 2]
    assert f"statement 4, {water} (contradicted): " in done.stderr
    assert "statement(s) needs_review" in done.stderr
    relaxed = run("check-answer", str(answer), "--fail-on", "needs_review", REVIEW_BELOW="0")
    assert relaxed.returncode == ExitCode.OK, relaxed.stderr
    assert "needs review" not in relaxed.stdout + relaxed.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [('{"answer": ', "not valid JSON"), ('{"answer": "x", "citations": 3}', "citations")],
)
def test_an_unusable_answer_file_is_one_clear_line(
    tmp_path: Path, content: str, message: str
) -> None:
    answer = tmp_path / "answer.json"
    answer.write_text(content, encoding="utf-8")
    done = run("check-answer", str(answer))
    assert done.returncode == ExitCode.INPUT
    assert message in done.stderr and "Traceback" not in done.stderr


def test_a_missing_answer_file_is_an_input_error(tmp_path: Path) -> None:
    done = run("check-answer", str(tmp_path / "nope.md"))
    assert done.returncode == ExitCode.INPUT
    assert "cannot read" in done.stderr and "Traceback" not in done.stderr
