"""The CLI speaks plainly everywhere: a usage error is one ``error:`` line and a hint to
``--help`` (never Typer's box), a bad setting is named before any command looks at its input,
and piped output is never wrapped."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citation_verifier.cli import app
from citation_verifier.printable import safe_console
from citation_verifier.terminal import ExitCode


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("args", "message", "command"),
    [
        (["verify", "--bogus"], "error: No such option: --bogus", "verify"),
        (
            ["serve", "--port", "70000"],
            "error: Invalid value for '--port': must be at most 65535",
            "serve",
        ),
        (["check-answer"], "error: Missing argument 'FILE'.", "check-answer"),
        (["audit", "show"], "error: Missing argument 'ID'.", "audit show"),
        (["nosuch"], "error: No such command 'nosuch'.", ""),
    ],
)
def test_a_usage_error_is_one_error_line_and_a_hint(
    args: list[str], message: str, command: str
) -> None:
    done = CliRunner().invoke(app, args, prog_name="citation-verifier")
    assert done.exit_code == ExitCode.USAGE
    path = " ".join(["citation-verifier", *command.split()])
    assert _lines(done.stderr) == [message, f"Try '{path} --help' for help."]
    assert "╭" not in done.output


def test_mcp_http_on_a_busy_port_says_error_as_serve_does() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        for command in (["mcp", "--http"], ["serve"]):
            done = subprocess.run(
                [sys.executable, "-m", "citation_verifier", *command, "--port", port],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == ExitCode.INPUT, done.stderr
            assert _lines(done.stderr)[-1] == (
                f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
            )
            assert [line for line in _lines(done.stderr) if "rror" in line] == [
                _lines(done.stderr)[-1]
            ]


@pytest.mark.parametrize(
    "args",
    [
        ["batch", "/dev/null"],
        ["verify", "A claim.", "http://127.0.0.1:9/"],
        ["check-answer", "/no/such/answer.md"],
        ["eval", "/no/such/data.jsonl"],
        ["serve", "--port", "0"],
        ["mcp"],
        ["demo"],
        ["audit", "list"],
        ["audit", "show", "abc"],
        ["model", "install"],
    ],
)
def test_a_bad_setting_is_named_before_anything_else(args: list[str]) -> None:
    done = CliRunner().invoke(app, args, env={"FETCH_TIMEOUT_S": "-1"})
    assert done.exit_code == ExitCode.CONFIG, done.output
    assert _lines(done.stderr) == [
        "error: invalid settings: FETCH_TIMEOUT_S: must be greater than 0"
    ]


def test_help_still_works_with_a_bad_setting() -> None:
    done = CliRunner().invoke(app, ["batch", "--help"], env={"FETCH_TIMEOUT_S": "-1"})
    assert done.exit_code == 0 and "INPUT.jsonl" in done.stdout


def test_dev_null_is_read_as_an_empty_batch_input(tmp_path: Path) -> None:
    out = tmp_path / "report.csv"
    done = CliRunner().invoke(app, ["batch", "/dev/null", "--out", str(out), "--quiet"])
    assert done.exit_code == ExitCode.INPUT
    assert _lines(done.stderr)[-1] == "error: no record in /dev/null: the input is empty"
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_batch_of_a_folder_says_it_is_a_folder(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["batch", str(tmp_path)])
    assert done.exit_code == ExitCode.INPUT
    assert _lines(done.stderr)[-1] == f"error: input {tmp_path} is a folder, not a file"


def test_piped_console_output_is_never_wrapped() -> None:
    piped = io.StringIO()
    console = safe_console(file=piped)
    value = "a" * 64
    console.print(f"raw_snapshot_id: {value} and more words after it to pass 80 columns")
    assert piped.getvalue().splitlines()[0].startswith(f"raw_snapshot_id: {value} and more")
    assert len(piped.getvalue().splitlines()) == 1


def test_piped_stderr_notes_are_never_wrapped() -> None:
    env = {**os.environ, "FETCH_TIMEOUT_S": "-1", "MAX_BODY_BYTES": "x" * 200}
    done = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "audit", "list"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == ExitCode.CONFIG
    assert len(_lines(done.stderr)) == 1 and "MAX_BODY_BYTES" in done.stderr


def _help_of_every_command() -> dict[str, str]:
    """``--help`` of the root, every group and every command, at a width no line needs."""
    runner = CliRunner(env={"COLUMNS": "250"})
    pages = {"": runner.invoke(app, ["--help"], prog_name="citation-verifier").output}
    for command in ("verify", "config", "demo", "serve", "batch", "check-answer", "eval", "mcp"):
        pages[command] = runner.invoke(app, [command, "--help"]).output
    for group, commands in (
        ("audit", ("list", "show", "replay", "export", "rejudge", "prune")),
        ("model", ("install",)),
    ):
        pages[group] = runner.invoke(app, [group, "--help"]).output
        for command in commands:
            pages[f"{group} {command}"] = runner.invoke(app, [group, command, "--help"]).output
    return pages


def test_help_shows_flags_without_a_type_and_arguments_by_name() -> None:
    pages = _help_of_every_command()
    for command, page in pages.items():
        assert "Usage:" in page, command
        assert "<bool>" not in page, command
        assert "{" not in page.split("Usage:")[1].splitlines()[0], command
    assert "verify [OPTIONS] CLAIM URL..." in pages["verify"]
    assert "eval [OPTIONS] [FILE]..." in pages["eval"]
    assert "<str>" not in pages["verify"].split("Options")[0]


def test_help_never_breaks_a_description_mid_sentence() -> None:
    root = _help_of_every_command()[""]
    descriptions = {
        line.strip("│ ").split(None, 1)[0]: line for line in root.splitlines() if "│" in line
    }
    # Each command's description is one line when the terminal is wide enough.
    assert descriptions["serve"].rstrip(" │").endswith("/metrics and the web page at /.")
    assert descriptions["batch"].rstrip(" │").endswith("per-statement CSV (OUT.statements.csv).")
    assert descriptions["eval"].rstrip(" │").endswith("on a built-in suite, per category).")


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "--compare-archive", "A claim.", "http://127.0.0.1:9/"],
        ["check-answer", "--compare-archive", "-"],
    ],
)
def test_compare_archive_without_cited_at_is_a_usage_error_naming_both_flags(
    args: list[str],
) -> None:
    done = CliRunner().invoke(app, args, input="A statement [1].\n\n[1] http://127.0.0.1:9/\n")
    assert done.exit_code == ExitCode.USAGE
    assert _lines(done.stderr)[-1].startswith("error: --compare-archive needs --cited-at DATE")


def test_demo_says_first_which_judge_reads_the_pages() -> None:
    done = CliRunner().invoke(app, ["demo"])
    assert done.exit_code == 0, done.output
    assert done.stderr.splitlines()[0].startswith("judge: checker (JUDGE_PROVIDER=checker)")
