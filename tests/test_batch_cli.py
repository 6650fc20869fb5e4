"""The batch command end to end, in real processes: the article's command, invalid lines,
formats, and a batch killed (SIGKILL) or interrupted (Ctrl-C) mid-run, then resumed."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from typer.testing import CliRunner

from batch_fixture import article_routes, city_page, city_records, write_jsonl, write_records
from batch_helpers import counting_runner, score, stable_csv
from citation_verifier.batch.checkpoint import Checkpoint, ResultRow
from citation_verifier.batch.engine import LocalRunner
from citation_verifier.batch.reports import write_report
from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.terminal import ExitCode

Serve = Callable[[Mapping[str, Route]], LoopbackSite]


def _env() -> dict[str, str]:
    """The test session's environment (read at call time: conftest sets it up after import)."""
    return {**os.environ, "ALLOW_PRIVATE_URLS": "true", "FETCH_TIMEOUT_S": "5"}


def _batch(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "citation_verifier.batch", *map(str, args)]
    return subprocess.run(command, env=_env(), capture_output=True, text=True, timeout=240)


def _start(*args: str | Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "citation_verifier.batch", *map(str, args)]
    return subprocess.Popen(
        command,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # An ignored SIGINT is inherited across exec: the batch would run on through Ctrl-C.
        preexec_fn=_default_sigint,
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _complete_lines(path: Path) -> int:
    if not path.exists():
        return 0
    return path.read_text(encoding="utf-8").count("\n")


def _wait_for_rows(process: subprocess.Popen[str], checkpoint: Path, rows: int) -> None:
    deadline = time.monotonic() + 120
    while _complete_lines(checkpoint) < rows:
        assert process.poll() is None, "the batch ended before it could be stopped"
        assert time.monotonic() < deadline, "the batch made no progress"
        time.sleep(0.02)


def _stats(stderr: str) -> tuple[int, int]:
    match = re.search(r"reused: (\d+)\s+scored: (\d+)", stderr)
    assert match, stderr
    return int(match.group(1)), int(match.group(2))


def test_article_command_prints_the_precision_lines(tmp_path: Path, serve: Serve) -> None:
    site = serve(article_routes())
    inputs = write_records(tmp_path / "your_outputs.jsonl", site)
    out = tmp_path / "citation_report.csv"
    result = _batch(inputs, "--out", out, "--quiet")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ["citation_precision=0.2222 (2/9)", "reachable_precision=0.3333 (2/6)"]
    assert "labels: supported=2 contradicted=1 not_found=3 unreachable=3" in lines
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 9 and rows[2]["label"] == "contradicted"
    assert site.hits["/articles/water-boiling-point"] == 1  # cited three times, fetched once


def test_cli_batch_reports_invalid_lines_and_continues(
    tmp_path: Path, serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = serve({"/city/0": Page(city_page(0))})
    good = {
        "id": "g",
        "claim": "City 0 has a population of 0 people.",
        "urls": [site.url("/city/0")],
    }
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(
        "{broken\n"
        + json.dumps(good)
        + "\n"
        + json.dumps({"id": "x", "claim": "", "urls": [site.url("/city/0")]})
        + "\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    out = tmp_path / "report.json"
    html = tmp_path / "report.html"
    result = CliRunner().invoke(
        app, ["batch", str(inputs), "--out", str(out), "--html", str(html), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "citation_precision=1.0000 (1/1)" in result.output
    assert "invalid_lines=2" in result.output
    errors = [json.loads(line) for line in (tmp_path / "report.json.errors.jsonl").open()]
    assert [e["line"] for e in errors] == [1, 3]
    document = json.loads(out.read_text(encoding="utf-8"))  # --format from the .json suffix
    assert document["citations"][0]["label"] == "supported"
    assert "<svg" in html.read_text(encoding="utf-8")


def test_batch_counts_lists_and_writes_the_verdicts_that_need_review(
    tmp_path: Path, serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citation_verifier.demo.site import BOILING_HTML

    site = serve({"/boil": Page(BOILING_HTML)})
    boil = site.url("/boil")
    record: dict[str, object] = {
        "id": "w",
        "claim": "Water boils at 50 degrees Celsius at sea level.",
        "urls": [boil, site.url("/gone")],
    }
    inputs = write_jsonl(tmp_path / "in.jsonl", [record])
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    monkeypatch.setenv("REVIEW_BELOW", "1.0")  # every judged verdict under 1 is marked
    out, html = tmp_path / "report.csv", tmp_path / "report.html"
    result = CliRunner().invoke(
        app, ["batch", str(inputs), "--out", str(out), "--html", str(html), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "needs_review=1 (confidence under REVIEW_BELOW: a person should look)" in result.output
    with out.open(encoding="utf-8", newline="") as handle:
        judged, dead = csv.DictReader(handle)
    assert (judged["label"], judged["needs_review"]) == ("contradicted", "True")
    assert "< REVIEW_BELOW 1)" in judged["review_reason"]
    assert (dead["needs_review"], dead["review_reason"]) == ("False", "")
    page = html.read_text(encoding="utf-8")
    section = page[page.index("Look at these first") : page.index("<h2>Citations</h2>")]
    assert section.count('<tr class="review">') == 1
    assert "contradicted" in section and "&lt; REVIEW_BELOW 1)" in section


def test_progress_bar_shows_citations_per_second_unless_quiet(
    tmp_path: Path, serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = serve({"/city/0": Page(city_page(0))})
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 1))
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    out = str(tmp_path / "r.csv")
    shown = CliRunner().invoke(app, ["batch", str(inputs), "--out", out])
    assert shown.exit_code == 0, shown.output
    assert re.search(r"3/3 \d+\.\d citations/s", shown.output), shown.output
    quiet = CliRunner().invoke(app, ["batch", str(inputs), "--out", out, "--quiet"])
    assert quiet.exit_code == 0, quiet.output
    assert "citations/s" not in quiet.output
    # A finished batch leaves its report only: no checkpoint, no empty errors file.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "r.csv"]


def test_cli_batch_names_a_missing_input_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["batch", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == ExitCode.INPUT
    assert "input file not found" in result.output


def _slow_city_site(serve: Serve, cities: int, delay_s: float = 0.25) -> LoopbackSite:
    return serve({f"/city/{n}": Page(city_page(n), delay_s=delay_s) for n in range(cities)})


async def test_batch_killed_mid_run_resumes_to_the_identical_report(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = _slow_city_site(serve, 10)
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 10))  # 30 citations
    # The uninterrupted run, in-process (same driver and report writer as the command).
    uninterrupted = await score(
        inputs, tmp_path / "ref.jsonl", LocalRunner(settings, embedder=embedder), concurrency=2
    )
    reference = tmp_path / "reference.csv"
    write_report(reference, uninterrupted.rows, uninterrupted.summary, "csv")
    hits_reference = dict(site.hits)

    out = tmp_path / "report.csv"
    checkpoint = tmp_path / "report.csv.checkpoint.jsonl"
    process = _start(inputs, "--out", out, "--quiet", "--concurrency", "2")
    _wait_for_rows(process, checkpoint, 4)
    process.kill()  # SIGKILL: no cleanup at all
    process.communicate(timeout=30)
    finished = {ResultRow.model_validate_json(line).key for line in checkpoint.open()}
    assert 4 <= len(finished) < 30
    assert not out.exists()

    hits_before = dict(site.hits)
    assert sum(hits_before.values()) > sum(hits_reference.values())  # the killed run fetched
    resumed = _batch(inputs, "--out", out, "--quiet", "--concurrency", "2", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    reused, scored = _stats(resumed.stderr)
    assert (reused, scored) == (len(finished), 30 - len(finished))  # nothing scored twice
    assert stable_csv(out.read_text(encoding="utf-8")) == stable_csv(
        reference.read_text(encoding="utf-8")
    )
    assert not checkpoint.exists()  # finished: the report holds every row
    # A page whose citations had all finished before the kill was not loaded again.
    done_pages = {
        f"/city/{n}"
        for n in range(10)
        if {f"t{n}\x1f0", f"f{n}\x1f0", f"t{(n - 1) % 10}\x1f1"} <= finished
    }
    for path in done_pages:
        assert site.hits[path] == hits_before[path]


async def test_ctrl_c_stops_cleanly_and_resume_judges_only_the_rest(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    # Pages slow enough that the run is still going when the signal lands (with 0.25 s it
    # sometimes finished first in a full run).
    site = _slow_city_site(serve, 8, delay_s=1.0)
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 8))  # 24 citations
    out = tmp_path / "report.csv"
    checkpoint = tmp_path / "report.csv.checkpoint.jsonl"
    process = _start(inputs, "--out", out, "--quiet", "--concurrency", "2")
    _wait_for_rows(process, checkpoint, 3)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "rerun with --resume" in stderr
    assert "Traceback" not in stderr
    finished = Checkpoint(checkpoint).read()  # every line whole: nothing torn by Ctrl-C
    assert _complete_lines(checkpoint) == len(finished) < 24

    runner, judge = counting_runner(settings, embedder)
    resumed = await score(inputs, checkpoint, runner, resume=True, concurrency=2)
    assert resumed.reused == len(finished)
    finished_pairs = {(r.claim, r.verdict.url) for r in finished.values()}
    pending_pairs = {(r.claim, r.verdict.url) for r in resumed.rows} - finished_pairs
    assert len(judge.claims) == len(pending_pairs)
    assert len(resumed.rows) == 24


def test_ctrl_c_while_a_model_works_on_a_thread_exits_within_2_s(
    tmp_path: Path, serve: Serve
) -> None:
    # The embedded LLM loads and generates on worker threads, which cannot be interrupted:
    # Ctrl-C must not wait for them (it took 15 s here, 60 s on a real batch).
    site = _slow_city_site(serve, 8)
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 8))
    out = tmp_path / "report.csv"
    command = [sys.executable, "-m", "citation_verifier.batch", str(inputs), "--out", str(out)]
    process = subprocess.Popen(
        [*command, "--quiet", "--concurrency", "2"],
        env={**_env(), "JUDGE_PROVIDER": "local"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    deadline = time.monotonic() + 120
    while not site.hits:  # pages loading: the model is being loaded to judge them
        assert process.poll() is None and time.monotonic() < deadline, "the batch never fetched"
        time.sleep(0.02)
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    asked = time.monotonic()
    _, stderr = process.communicate(timeout=120)
    took = time.monotonic() - asked
    assert process.returncode == 130, stderr
    assert "rerun with --resume" in stderr and "Traceback" not in stderr
    assert took < 2.0, f"Ctrl-C took {took:.1f} s to end the batch"
    checkpoint = tmp_path / "report.csv.checkpoint.jsonl"
    assert _complete_lines(checkpoint) == len(Checkpoint(checkpoint).read())  # rows whole


def test_batch_concurrency_above_fetch_concurrency_raises_the_fetch_cap(
    tmp_path: Path, serve: Serve
) -> None:
    # Pages answer after a pause and count the loads in flight: with FETCH_CONCURRENCY=2 and
    # --concurrency 8 (per-host politeness lifted: every page is on one loopback host), more
    # than two loads are seen at once.
    lock = threading.Lock()
    in_flight, peak = 0, 0

    def slow_city(number: int) -> Callable[[BaseHTTPRequestHandler], None]:
        def handle(handler: BaseHTTPRequestHandler) -> None:
            nonlocal in_flight, peak
            with lock:
                in_flight += 1
                peak = max(peak, in_flight)
            time.sleep(0.6)
            body = city_page(number).encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            with lock:
                in_flight -= 1

        return handle

    site = serve({f"/city/{n}": slow_city(n) for n in range(8)})
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 8))
    env = {**_env(), "FETCH_CONCURRENCY": "2", "BATCH_PER_HOST": "8"}
    command = [sys.executable, "-m", "citation_verifier.batch", str(inputs), "--quiet"]
    command += ["--out", str(tmp_path / "report.csv"), "--concurrency", "8"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert peak > 2


# --- nothing to score: an empty input, or one whose every line is invalid ----------------------

INVALID_LINES = 'not json\n{"id": "2", "claim": "", "urls": []}\n'


def test_an_empty_input_fails_without_drawing_a_progress_bar(tmp_path: Path) -> None:
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("\n\n", encoding="utf-8")  # blank lines only: no record
    done = CliRunner().invoke(app, ["batch", str(inputs), "--out", str(tmp_path / "r.csv")])
    assert done.exit_code == ExitCode.INPUT, done.output
    assert done.stderr.splitlines()[-1] == f"error: no record in {inputs}: the input is empty"
    assert "citations" not in done.output and "0/0" not in done.output  # no bar of nothing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_an_input_of_invalid_lines_gives_the_error_and_its_errors_file_only(
    tmp_path: Path,
) -> None:
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(INVALID_LINES, encoding="utf-8")
    out = tmp_path / "r.csv"
    out.write_text("an earlier run's report\n", encoding="utf-8")
    done = CliRunner().invoke(app, ["batch", str(inputs), "--out", str(out)])
    assert done.exit_code == ExitCode.INPUT, done.output
    errors = tmp_path / "r.csv.errors.jsonl"
    assert done.stderr.splitlines()[-1] == (
        f"error: no valid line in {inputs}: 2 invalid line(s), listed in {errors}"
    )
    assert done.stdout == ""  # no summary of zeros
    assert "0/0" not in done.output
    assert out.read_text(encoding="utf-8") == "an earlier run's report\n"  # no empty report
    assert [json.loads(line)["line"] for line in errors.open(encoding="utf-8")] == [1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "r.csv", "r.csv.errors.jsonl"]


def test_resume_from_an_input_of_invalid_lines_keeps_the_checkpoint(
    tmp_path: Path,
    serve: Serve,
    settings: Settings,
    embedder: MiniLMEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = serve({"/city/0": Page(city_page(0))})
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 1))
    out = tmp_path / "r.csv"
    checkpoint = tmp_path / "r.csv.checkpoint.jsonl"
    # An earlier run that finished its citations but was stopped before its report.
    asyncio.run(score(inputs, checkpoint, LocalRunner(settings, embedder=embedder)))
    kept = checkpoint.read_bytes()
    broken = tmp_path / "broken.jsonl"  # the same run pointed at a mangled file by mistake
    broken.write_text(INVALID_LINES, encoding="utf-8")
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    done = CliRunner().invoke(app, ["batch", str(broken), "--out", str(out), "--resume"])
    assert done.exit_code == ExitCode.INPUT, done.output
    assert checkpoint.exists() and checkpoint.read_bytes() == kept and not out.exists()
    assert f"checkpoint {checkpoint} is left as it was" in done.stderr
    resumed = CliRunner().invoke(app, ["batch", str(inputs), "--out", str(out), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert _stats(resumed.stderr) == (3, 0)  # every citation reused: nothing was lost
    assert "citations/s" not in resumed.output  # nothing left to score: no bar
