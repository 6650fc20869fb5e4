"""What a new user meets in the first hour, as real processes: text from users and pages printed
as it is (never as markup), one clear line and a meaningful exit code for every mistake, never a
traceback, the same message for an invalid setting in every command, piped output whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.terminal import ExitCode

Serve = Callable[[Mapping[str, Route]], LoopbackSite]

BRACKETS = (
    "The Great Wall of China is about 21,196 kilometres long [citation needed]. "
    "Its builders wrote [/x] and [link=https://evil.example]click[/link] on it."
)
PAGE = (
    "<html><head><title>Wall</title></head><body><article><h1>The Great Wall</h1>"
    f"<p>{BRACKETS}</p><p>It was built over many centuries by several dynasties, from the "
    "seventh century BC onwards, and much of what stands today dates from the Ming dynasty."
    "</p></article></body></html>"
)


def cli(*args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``citation-verifier ARGS`` with standard output piped (not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "citation_verifier", *map(str, args)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def assert_one_clear_line(done: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, done.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]


def test_version_is_printed() -> None:
    done = cli("--version")
    assert done.returncode == 0 and done.stdout.startswith("citation-verifier 0.")


def test_markup_in_an_argument_is_text_not_a_crash(tmp_path: Path) -> None:
    assert_one_clear_line(cli("verify", "x", "[/x]"), ExitCode.INPUT, "[/x]")
    missing = tmp_path / "[/x].jsonl"
    assert_one_clear_line(cli("batch", missing), ExitCode.INPUT, "[/x].jsonl")


def test_quotes_with_brackets_print_whole_in_the_piped_table(serve: Serve) -> None:
    site = serve({"/wall": Page(PAGE)})
    claim = "The Great Wall of China is about 21,196 kilometres long."
    done = cli("verify", claim, site.url("/wall"), ALLOW_PRIVATE_URLS="true")
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines() if "\t" in line]
    assert len(rows) == 1
    url, label, _reason, _status, _confidence, evidence, _detail, _review = rows[0]
    assert (url, label) == (site.url("/wall"), "supported")
    sentence = "The Great Wall of China is about 21,196 kilometres long [citation needed]."
    assert evidence.startswith(sentence) and "\\" not in evidence
    assert evidence in " ".join(BRACKETS.split())  # whole, as the page says it


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("FETCH_TIMEOUT_S", "-1"),
        ("PRIVATE_ALLOWLIST", "10.0.0.0/8"),
        ("JUDGE_PRICES", "{gpt: 1}"),
        ("JUDGE_PROVIDER", "no-such-judge"),
        ("FETCHER", "no-such-backend"),
        ("ARCHIVE_URL", "ftp://archive.example"),
        ("ARCHIVE_FALLBACK", "sometimes"),
    ],
)
def test_an_invalid_setting_is_one_line_naming_the_variable_in_every_command(
    variable: str, value: str, tmp_path: Path
) -> None:
    inputs = tmp_path / "in.jsonl"
    inputs.write_text('{"id": "1", "claim": "c", "urls": ["https://example.com/"]}\n')
    answer = tmp_path / "answer.md"
    answer.write_text("A claim [1].\n\n[1] https://example.com/\n")
    commands = [
        ("verify", "a claim", "https://example.com/"),
        ("serve", "--port", "0"),
        ("batch", inputs, "-o", tmp_path / "out.csv"),
        ("audit", "list"),
        ("config",),
        ("model", "install"),
        ("check-answer", answer),
        ("mcp",),
    ]
    for command in commands:
        done = cli(*command, **{variable: value})
        assert_one_clear_line(done, ExitCode.CONFIG, f"invalid settings: {variable}: ")
        assert value not in done.stderr.split(f"{variable}: ", 1)[1]  # never the value


def test_several_invalid_settings_are_reported_at_once() -> None:
    done = cli("verify", "c", "https://example.com/", FETCH_TIMEOUT_S="0", TOP_K="zero")
    assert_one_clear_line(done, ExitCode.CONFIG, "FETCH_TIMEOUT_S: ", "TOP_K: ")
    assert "Value error" not in done.stderr


def test_an_unwritable_cache_dir_is_one_line(serve: Serve, tmp_path: Path) -> None:
    site = serve({"/wall": Page(PAGE)})
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = cli(
        "verify", "claim", site.url("/wall"), ALLOW_PRIVATE_URLS="true", CACHE_DIR=str(blocker)
    )
    assert_one_clear_line(done, ExitCode.CONFIG, "CACHE_DIR")
    assert_one_clear_line(cli("audit", "list", CACHE_DIR=str(blocker)), ExitCode.CONFIG)


def test_an_unwritable_model_folder_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = cli("model", "install", LOCAL_JUDGE_MODEL_DIR=str(blocker / "models"))
    assert_one_clear_line(done, ExitCode.CONFIG, "cannot write the model")


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_an_impossible_port_is_a_usage_error(port: str) -> None:
    done = cli("serve", "--port", port)
    assert done.returncode == ExitCode.USAGE and "Traceback" not in done.stderr
    assert "--port" in done.stderr


def test_batch_output_paths_are_checked_before_any_work(tmp_path: Path) -> None:
    inputs = tmp_path / "in.jsonl"
    inputs.write_text('{"id": "1", "claim": "c", "urls": ["http://127.0.0.1:9/"]}\n')
    folder = tmp_path / "reports"
    folder.mkdir()
    done = cli("batch", inputs, "-o", folder)
    assert_one_clear_line(done, ExitCode.INPUT, "is a folder")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = cli("batch", inputs, "-o", blocker / "report.csv")
    assert_one_clear_line(done, ExitCode.INPUT, "cannot write --out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "in.jsonl", "reports"]
    assert list(folder.iterdir()) == []  # no checkpoint, no .tmp


def test_a_batch_without_one_valid_line_fails(tmp_path: Path) -> None:
    inputs = tmp_path / "in.jsonl"
    inputs.write_text('not json\n{"id": "2", "claim": "", "urls": []}\n')
    done = cli("batch", inputs, "-o", tmp_path / "out.csv", "--quiet")
    assert_one_clear_line(done, ExitCode.INPUT, "no valid line", "2 invalid line(s)")


def test_fail_on_gates_on_the_labels_named(serve: Serve) -> None:
    site = serve({"/wall": Page(PAGE)})
    claim = "The Great Wall of China is about 21,196 kilometres long."
    env = {"ALLOW_PRIVATE_URLS": "true"}
    passing = cli(
        "verify", "--fail-on", "contradicted,unreachable", claim, site.url("/wall"), **env
    )
    assert passing.returncode == ExitCode.OK, passing.stderr
    dead = site.url("/gone")
    failing = cli(
        "verify", "--fail-on", "contradicted", "--fail-on", "unreachable", claim, dead, **env
    )
    assert failing.returncode == ExitCode.FAIL_ON
    assert "--fail-on: 1 citation(s) unreachable" in failing.stderr
    unknown = cli("verify", "--fail-on", "wrong", claim, site.url("/wall"), **env)
    assert_one_clear_line(unknown, ExitCode.USAGE, "unknown label wrong")


def test_config_shows_sources_and_masks_secrets() -> None:
    done = cli("config", "--json", OPENAI_API_KEY="sk-do-not-print", FETCH_TIMEOUT_S="7")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in map(json.loads, done.stdout.splitlines())}
    assert rows["OPENAI_API_KEY"]["value"] == "***"
    assert rows["FETCH_TIMEOUT_S"] | {"description": ""} == {
        "name": "FETCH_TIMEOUT_S",
        "value": "7.0",
        "source": "environment",
        "description": "",
    }
    assert rows["TOP_K"]["source"] == "default"
    assert "sk-do-not-print" not in done.stdout + done.stderr


MARKDOWN_SPECIALS = "Prices rose 2*3% in Q1_2024 [est.] <see note> #1 `raw` ~approx~ C:\\data\\x."
# The demo PDF's Helvetica maps ` to a curly quote (the page's own character), so not there.
PDF_SPECIALS = MARKDOWN_SPECIALS.replace("`", "|")


async def test_quotes_and_contexts_are_the_page_text_in_html_and_pdf(serve: Serve) -> None:
    from citation_verifier.demo.site import make_pdf
    from citation_verifier.models import VerifyRequest
    from citation_verifier.pipeline import build_verifier
    from citation_verifier.settings import Settings

    html = (
        "<html><body><article><h1>Report</h1>"
        f"<p>{MARKDOWN_SPECIALS.replace('<', '&lt;').replace('>', '&gt;')}</p>"
        "<p>The rest of the report covers the second quarter and the outlook for next year, "
        "with tables of regional sales figures and notes on the methods used.</p>"
        "</article></body></html>"
    )
    site = serve(
        {
            "/report": Page(html),
            "/report.pdf": Page(
                make_pdf(["Report", "", PDF_SPECIALS]), content_type="application/pdf"
            ),
        }
    )
    settings = Settings(allow_private_urls=True, judge_provider="checker", audit_enabled=False)
    async with build_verifier(settings) as verifier:
        for path, specials in (("/report", MARKDOWN_SPECIALS), ("/report.pdf", PDF_SPECIALS)):
            result = await verifier.verify(
                VerifyRequest(claim="Prices rose 2*3% in Q1_2024.", urls=[site.url(path)])
            )
            citation = result.citations[0]
            assert citation.evidence_quote is not None, citation
            assert citation.evidence_quote.startswith("Prices rose 2*3% in Q1_2024 [est.")
            context = citation.evidence_context
            assert context is not None and specials in context.passage
            assert context.passage[context.start : context.end] == citation.evidence_quote


DEAD_OLLAMA = {
    "JUDGE_PROVIDER": "ollama",
    "OLLAMA_HOST": "http://127.0.0.1:9",  # nothing listens: connection refused at once
    "JUDGE_MAX_RETRIES": "0",
    "CROSS_CHECK": "false",
    "ALLOW_PRIVATE_URLS": "true",
}


def test_the_judge_that_runs_is_named_and_auto_says_why(serve: Serve) -> None:
    site = serve({"/wall": Page(PAGE)})
    claim = "The Great Wall of China is about 21,196 kilometres long."
    done = cli("verify", claim, site.url("/wall"), ALLOW_PRIVATE_URLS="true")
    assert "judge: lexical (JUDGE_PROVIDER=lexical)" in done.stderr
    assert "Judge: local/lexical" in done.stderr or "Judge: lexical" in done.stderr  # piped
    auto = cli(
        "verify",
        claim,
        site.url("/wall"),
        JUDGE_PROVIDER="auto",
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        JUDGE_MAX_RETRIES="0",
        CROSS_CHECK="false",
        ALLOW_PRIVATE_URLS="true",
    )
    assert "JUDGE_PROVIDER=auto and OPENAI_API_KEY is set: page text is sent to OpenAI" in (
        auto.stderr
    )


def test_a_dead_judge_fails_the_run_loudly_not_as_not_found(serve: Serve, tmp_path: Path) -> None:
    site = serve({"/wall": Page(PAGE)})
    claim = "The Great Wall of China is about 21,196 kilometres long."
    done = cli("verify", claim, site.url("/wall"), **DEAD_OLLAMA)
    assert_one_clear_line(done, ExitCode.JUDGE, "the judge failed on 1 of 1 citation(s)")
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(json.dumps({"id": "1", "claim": claim, "urls": [site.url("/wall")]}) + "\n")
    batch = cli("batch", inputs, "-o", tmp_path / "out.csv", "--quiet", **DEAD_OLLAMA)
    assert_one_clear_line(batch, ExitCode.JUDGE, "the judge failed on 1 citation(s)")
    assert "citation_precision=n/a (0/0)" in batch.stdout  # a failure is not a not_found
    assert "judge_failed=1" in batch.stdout


def test_ready_says_503_while_the_judge_is_failing(serve: Serve) -> None:
    import httpx

    from citation_verifier.retrieve import MiniLMEmbedder
    from citation_verifier.service.app import create_app
    from citation_verifier.service.server import BackgroundServer
    from citation_verifier.settings import Settings

    site = serve({"/wall": Page(PAGE)})
    settings = Settings(
        judge_provider="ollama",
        ollama_host="http://127.0.0.1:9",
        judge_max_retries=0,
        cross_check=False,
        allow_private_urls=True,
        audit_enabled=False,
    )
    with BackgroundServer(create_app(settings, embedder=MiniLMEmbedder())) as service:
        assert httpx.get(service.url + "/ready").status_code == 200
        payload = {"claim": "The wall is long.", "urls": [site.url("/wall")]}
        verdict = httpx.post(service.url + "/verify", json=payload, timeout=60).json()
        assert verdict["citations"][0]["reason"] == "judge_error"
        ready = httpx.get(service.url + "/ready")
        assert ready.status_code == 503 and "judge failing" in ready.json()["detail"]


def test_batch_reads_standard_input_and_notes_a_resume_without_checkpoint(
    serve: Serve, tmp_path: Path
) -> None:
    site = serve({"/wall": Page(PAGE)})
    record = {"id": "1", "claim": "The Great Wall is long.", "urls": [site.url("/wall")]}
    out = tmp_path / "out.csv"
    done = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "batch", "-", "-o", str(out), "--resume"],
        input=json.dumps(record) + "\n",
        env={**os.environ, "ALLOW_PRIVATE_URLS": "true"},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "--resume: no checkpoint" in done.stderr
    assert out.read_text(encoding="utf-8").count("\n") == 2  # header and one citation


def test_batch_summary_as_json(serve: Serve, tmp_path: Path) -> None:
    site = serve({"/wall": Page(PAGE)})
    inputs = tmp_path / "in.jsonl"
    claim = "The Great Wall of China is about 21,196 kilometres long."
    inputs.write_text(json.dumps({"id": "1", "claim": claim, "urls": [site.url("/wall")]}) + "\n")
    done = cli(
        "batch", inputs, "-o", tmp_path / "r.csv", "--quiet", "--json", ALLOW_PRIVATE_URLS="true"
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["citations"], summary["supported"], summary["judge_failed"]) == (1, 1, 0)


def test_an_unanticipated_error_is_one_line_and_exit_70() -> None:
    # A command that fails in a way no handler knows, registered in a child process.
    script = (
        "from citation_verifier import cli\ncli.app.command('boom')(lambda: 1 / 0)\ncli.main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "boom"], capture_output=True, text=True, check=False
    )
    assert_one_clear_line(done, ExitCode.INTERNAL, "internal error (ZeroDivisionError")
    debug = subprocess.run(
        [sys.executable, "-c", script, "boom"],
        env={**os.environ, "CITATION_VERIFIER_DEBUG": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" in debug.stderr


def test_an_install_hint_keeps_its_extras() -> None:
    done = cli("audit", "list", AUDIT_DB_URL="postgresql+nosuchdriver://u:pw@127.0.0.1/db")
    assert_one_clear_line(done, ExitCode.CONFIG, "pip install 'citation-verifier[postgres]'")


def test_model_install_reports_as_json() -> None:
    done = cli("model", "install", "--json")
    assert done.returncode == 0, done.stderr
    model = json.loads(done.stdout)
    assert Path(model["path"]).is_file() and model["bytes"] > 500_000_000
