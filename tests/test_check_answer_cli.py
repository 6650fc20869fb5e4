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
