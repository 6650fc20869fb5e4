"""Each framework's example of docs/INTEGRATIONS.md, run as written against the framework
installed from its package: the same statements and labels as ``check-answer``, and the score
is the answer's citation recall."""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import PROMPTFOO, Run


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


_STATEMENT = re.compile(r"^(\d+)\. (\w+): ")


def printed(stdout: str) -> tuple[float, list[str]]:
    """The score an example printed first, and the statement labels of the reason after it."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"[\d.]+", line.strip()))
    labels = []
    for line in lines[start + 1 :]:
        if line.startswith("citation_precision="):
            break
        if match := _STATEMENT.match(line):
            labels.append(match[2])
    return float(lines[start]), labels


def labels_of(expected: dict[str, object]) -> list[str]:
    statements = expected["statements"]
    assert isinstance(statements, list)
    return [s["overall"] for s in statements]


def test_the_answer_all_examples_check_is_what_the_page_says_it_is(
    expected: dict[str, object],
) -> None:
    assert labels_of(expected) == ["supported", "not_found", "supported"]
    assert expected["citation_recall"] == pytest.approx(2 / 3)
    statements = expected["statements"]
    assert isinstance(statements, list)
    assert [m["source"] for m in statements[1]["misattributed"]] == ["[1]"]


@pytest.mark.parametrize("framework", ["ragas", "deepeval", "inspect", "langsmith"])
def test_each_python_example_gives_check_answers_verdicts(
    run: Run, expected: dict[str, object], framework: str
) -> None:
    done = run.python("answer", framework)
    assert done.returncode == 0, done.stderr[-3000:]
    score, labels = printed(done.stdout)
    assert labels == labels_of(expected)
    assert score == pytest.approx(expected["citation_recall"])
    assert "misattributed: [1] states it" in done.stdout
    assert "Halvorsen & Brook designed the Orlen Bridge" in done.stdout  # a fact's quote


def promptfoo_run(run: Run, config: str, runner: str) -> dict[str, Any]:
    """Run promptfoo on the example answer as the examples ``config`` and ``runner`` say (on
    a free port, with this Python): the first test's grading result."""
    assert PROMPTFOO.exists(), "promptfoo is not installed: make plugins"
    namespace: dict[str, str] = {}
    exec(run.code("answer"), namespace)
    (run.folder / "answer.md").write_text(namespace["answer"], encoding="utf-8")
    port = str(free_port())
    (run.folder / "promptfooconfig.yaml").write_text(run.code(config).replace("8099", port))
    script = (
        run.code(runner)
        .replace("8099", port)
        .replace("npx promptfoo", str(PROMPTFOO))
        .replace("citation-verifier serve", f"{sys.executable} -m citation_verifier serve")
    )
    env = {**run.env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{run.env['PATH']}"}
    done = run.command(["bash", "-c", script], env=env)
    assert (run.folder / "out.json").exists(), done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((run.folder / "out.json").read_text())
    inner: dict[str, Any] = report["results"]["results"][0]["gradingResult"]["componentResults"][0]
    return inner  # the assertion's own result


def test_the_promptfoo_example_grades_with_check_answers_verdicts(
    run: Run, expected: dict[str, object]
) -> None:
    (run.folder / "citation_check.py").write_text(run.code("promptfoo-assertion"))
    inner = promptfoo_run(run, "promptfoo-config", "promptfoo-run")
    assert inner["score"] == pytest.approx(expected["citation_recall"])
    assert inner["pass"] is True  # 0.67 >= the test's threshold 0.6
    statements = [c["reason"].split(":")[0] for c in inner["componentResults"]]
    assert statements == labels_of(expected)
    assert "misattributed: [1]" in inner["componentResults"][1]["reason"]


def test_the_promptfoo_webhook_example_grades_with_check_answers_verdicts(
    run: Run, expected: dict[str, object]
) -> None:
    inner = promptfoo_run(run, "promptfoo-webhook-config", "promptfoo-webhook-run")
    assert inner["score"] == pytest.approx(expected["citation_recall"])
    assert inner["pass"] is True, inner["reason"]
    labels = [m[2] for line in inner["reason"].splitlines() if (m := _STATEMENT.match(line))]
    assert labels == labels_of(expected)
    assert "misattributed: [1] states it" in inner["reason"]
