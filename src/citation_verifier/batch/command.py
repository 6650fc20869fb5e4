"""``citation-verifier batch`` and ``python -m citation_verifier.batch``: score a JSONL file."""

from __future__ import annotations

import os
import time
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from pydantic import TypeAdapter
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from citation_verifier.batch.checkpoint import Checkpoint
from citation_verifier.batch.engine import BatchOutcome, LocalRunner, Runner, run_batch
from citation_verifier.batch.files import write_atomically
from citation_verifier.batch.html_report import html_report
from citation_verifier.batch.records import (
    STDIN,
    BatchInput,
    read_input,
    with_archive_options,
)
from citation_verifier.batch.reports import write_errors, write_report, write_statements
from citation_verifier.batch.summary import summary_lines
from citation_verifier.errors import CitationVerifierError, InputError
from citation_verifier.interrupt import exit_now, run_interruptible
from citation_verifier.judge.providers import judge_choice
from citation_verifier.models import Reason, as_utc
from citation_verifier.settings import Settings
from citation_verifier.terminal import (
    CitedAtOption,
    CompareArchiveOption,
    ExitCode,
    fail,
    load_settings,
    print_error,
    print_note,
)


class Engine(StrEnum):
    """Where the work runs."""

    LOCAL = "local"
    RAY = "ray"


class ReportFormat(StrEnum):
    """Report file format."""

    CSV = "csv"
    JSON = "json"


class _RateColumn(ProgressColumn):
    """Citations per second scored by this run (citations reused from a checkpoint and the
    time before the first one are not counted)."""

    def render(self, task: Task) -> Text:
        scored = task.completed - float(task.fields.get("reused", 0))
        elapsed = time.monotonic() - float(task.fields.get("since", time.monotonic()))
        if scored <= 0 or elapsed <= 0:
            return Text("-- citations/s")
        return Text(f"{scored / elapsed:.1f} citations/s")


def _sidecar(out: Path, suffix: str) -> Path:
    return out.with_name(out.name + suffix)


def _check_writable(path: Path, option: str) -> None:
    """Fail before any work when ``path`` cannot be written (a folder, a missing or read-only
    parent), not after the whole batch was scored."""
    if path.is_dir():
        raise fail(f"{option} {path} is a folder, not a file", ExitCode.INPUT)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise fail(f"cannot write {option} {path}: {error.strerror}", ExitCode.INPUT) from None
    target = path if path.exists() else path.parent
    if not os.access(target, os.W_OK):
        raise fail(f"cannot write {option} {path}: permission denied", ExitCode.INPUT)


def _check_input(path: Path) -> None:
    """Fail before any work when ``path`` cannot be an input. Anything readable that is not a
    folder is read as a stream: a file, ``-``, a pipe (``<(zcat ...)``), ``/dev/null``."""
    if path == STDIN:
        return
    if not path.exists():
        raise fail(f"input file not found: {path}", ExitCode.INPUT)
    if path.is_dir():
        raise fail(f"input {path} is a folder, not a file", ExitCode.INPUT)


def _cited_at(value: str | None) -> datetime | None:
    """``--cited-at`` as a UTC time (a date is its midnight); a bad value fails at once."""
    if value is None:
        return None
    try:
        return as_utc(TypeAdapter(datetime).validate_python(value))
    except ValueError:  # a ValidationError, or a time UTC cannot hold
        raise fail(
            f"--cited-at: {value!r} is not a date (YYYY-MM-DD) or ISO date-time", ExitCode.INPUT
        ) from None


def _runner(engine: Engine, settings: Settings) -> Runner:
    if engine is Engine.RAY:
        from citation_verifier.batch.ray_engine import RayRunner

        return RayRunner(settings)
    return LocalRunner(settings)


async def _score(
    batch: BatchInput,
    checkpoint: Checkpoint,
    settings: Settings,
    *,
    engine: Engine,
    resume: bool,
    concurrency: int,
    progress: Progress | None,
) -> BatchOutcome:
    runner = _runner(engine, settings)
    task_id = None

    def started(done: int, total: int) -> None:
        nonlocal task_id
        if progress is not None and task_id is not None:  # answers' follow-ups join the bar
            progress.update(task_id, total=total, completed=done)
            return
        # Nothing left to score (every citation reused, or none at all): no bar to draw.
        if progress is not None and done < total:
            progress.start()
            task_id = progress.add_task(
                "citations", total=total, completed=done, reused=done, since=time.monotonic()
            )

    def advance(count: int) -> None:
        if progress is not None and task_id is not None:
            progress.advance(task_id, count)

    try:
        return await run_batch(
            batch,
            runner,
            checkpoint,
            resume=resume,
            concurrency=concurrency,
            per_host=settings.batch_per_host,
            advance=advance,
            started=started,
        )
    finally:
        await runner.aclose()


def _no_valid_line(
    input_path: Path, batch: BatchInput, errors_path: Path, checkpoint: Checkpoint
) -> NoReturn:
    """Fail for an input without one valid record: the error, and the invalid lines in the
    errors file; no report (an earlier one is left as it was), no summary of zeros, and the
    checkpoint untouched so that a ``--resume`` after fixing the input loses nothing."""
    if checkpoint.path.is_file() and checkpoint.path.stat().st_size:
        print_note(f"note: the earlier run's checkpoint {checkpoint.path} is left as it was")
    if not batch.errors:
        raise fail(f"no record in {input_path}: the input is empty", ExitCode.INPUT)
    write_errors(errors_path, batch.errors)
    raise fail(
        f"no valid line in {input_path}: {len(batch.errors)} invalid line(s), "
        f"listed in {errors_path}",
        ExitCode.INPUT,
    )


def batch(
    input_path: Annotated[
        Path,
        typer.Argument(
            metavar="INPUT.jsonl",
            help='JSONL, {"id", "claim", "urls"} or {"id", "answer", "citations"?} a line; '
            ".jsonl.gz read as gzip, - for stdin.",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Report file.")] = Path(
        "citation_report.csv"
    ),
    report_format: Annotated[
        ReportFormat | None,
        typer.Option("--format", help="Report format (default: from --out's suffix, else csv)."),
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report.")
    ] = None,
    errors: Annotated[
        Path | None,
        typer.Option(help="Invalid input lines, as JSONL (default: OUT.errors.jsonl)."),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="Finished citations, as JSONL (default: OUT.checkpoint.jsonl)."),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue from the checkpoint of an earlier run.")
    ] = False,
    concurrency: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="URLs in flight at once (default: BATCH_CONCURRENCY, 4); raises "
            "FETCH_CONCURRENCY for this run, each host still bounded by BATCH_PER_HOST.",
        ),
    ] = None,
    engine: Annotated[
        Engine, typer.Option(help="local (asyncio) or ray (RAY_ADDRESS, else local Ray).")
    ] = Engine.LOCAL,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the summary as one JSON object.")
    ] = False,
    cited_at: CitedAtOption = None,
    compare_archive: CompareArchiveOption = False,
) -> None:
    """Score every citation of INPUT.jsonl; write a per-citation report and print precision.
    Answer records also get a per-statement CSV (OUT.statements.csv)."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    settings = load_settings()  # first: a bad setting is named before the input is looked at
    _check_input(input_path)
    when = _cited_at(cited_at)
    print_note(judge_choice(settings))
    concurrency = concurrency or settings.batch_concurrency
    if concurrency > settings.fetch_concurrency:
        # The batch's own concurrency is the limit it asked for: it raises the verifier's
        # process-wide fetch cap. Hosts stay bounded by BATCH_PER_HOST, the crawling API by
        # CRAWLBASE_CONCURRENCY and LLM calls by JUDGE_CONCURRENCY.
        settings = settings.model_copy(update={"fetch_concurrency": concurrency})
    fmt = report_format or (ReportFormat.JSON if out.suffix == ".json" else ReportFormat.CSV)
    store = Checkpoint(checkpoint or _sidecar(out, ".checkpoint.jsonl"))
    errors_path = errors or _sidecar(out, ".errors.jsonl")
    outputs = [(out, "--out"), (store.path, "--checkpoint"), (errors_path, "--errors")]
    for path, option in [*outputs, *([(html, "--html")] if html is not None else [])]:
        _check_writable(path, option)
    try:
        work = with_archive_options(read_input(input_path, settings), when, compare_archive)
    except KeyboardInterrupt:
        print_note("interrupted while reading the input: nothing was scored")
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
    except InputError as error:
        raise fail(str(error), ExitCode.INPUT) from None
    if not work.records:
        _no_valid_line(input_path, work, errors_path, store)
    if not resume and store.path.is_file() and store.path.stat().st_size:
        print_note(f"note: starting over; the earlier run's checkpoint {store.path} is replaced")
    if resume and not store.path.is_file():
        print_note(f"note: --resume: no checkpoint at {store.path}; scoring every citation")
    progress = None
    if not quiet:
        # Started by the first citation to score: none, no bar.
        progress = Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _RateColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=False,
        )
    try:
        try:
            outcome = run_interruptible(
                _score(
                    work,
                    store,
                    settings,
                    engine=engine,
                    resume=resume,
                    concurrency=concurrency,
                    progress=progress,
                )
            )
        finally:
            if progress is not None:
                progress.stop()
    except KeyboardInterrupt:
        print_note(
            f"interrupted: finished citations are kept in {store.path}; "
            "rerun with --resume to continue"
        )
        exit_now(ExitCode.INTERRUPTED)
    except CitationVerifierError as error:
        print_error(str(error))
        print_note(f"finished citations are kept in {store.path}; fix it and rerun with --resume")
        raise typer.Exit(int(ExitCode.CONFIG)) from None
    write_report(out, outcome.rows, outcome.summary, fmt.value, outcome.answers)
    statements_path = _sidecar(out, ".statements.csv")
    if outcome.answers:
        write_statements(statements_path, outcome.answers)
    if outcome.errors:
        write_errors(errors_path, outcome.errors)
    else:
        errors_path.unlink(missing_ok=True)  # no invalid line: no errors file, not an empty one
    if not outcome.summary.judge_failed:
        store.path.unlink(missing_ok=True)  # finished: the report holds every row
    if html is not None:
        write_atomically(html, html_report(outcome.rows, outcome.summary, outcome.answers))
    if json_output:
        typer.echo(outcome.summary.model_dump_json())
    else:
        for line in summary_lines(outcome.summary):
            typer.echo(line)
    files = f"report: {out}"
    if outcome.answers:
        files += f"  statements: {statements_path}"
    if outcome.errors:
        files += f"  errors: {errors_path} ({len(outcome.errors)} invalid lines)"
    if store.path.exists():
        files += f"  checkpoint: {store.path}"
    print_note(
        f"{files}  reused: {outcome.reused}  scored: {outcome.scored}  urls loaded: {outcome.jobs}"
    )
    unread = outcome.summary.reasons.get(Reason.UNSUPPORTED_LANGUAGE.value, 0)
    late = outcome.summary.reasons.get(Reason.DEADLINE_EXCEEDED.value, 0)
    if outcome.summary.judge_failed > unread + late:
        raise fail(
            f"the judge failed on {outcome.summary.judge_failed - unread - late} citation(s) "
            "(reason judge_error or internal_error in the report): they are left out of the "
            "precision; fix the judge and rerun with --resume to judge only those again",
            ExitCode.JUDGE,
        )
    if late:
        raise fail(
            f"REQUEST_DEADLINE_S passed before {late} citation(s) were judged (reason "
            "deadline_exceeded in the report): they are left out of the precision; rerun with "
            "--resume (and a longer deadline) to judge only those again",
            ExitCode.JUDGE,
        )
    if unread:
        print_note(
            f"not judged: {unread} citation(s) in a language no judge here reads (reason "
            "unsupported_language in the report; its detail says what would read it): left out "
            "of the precision; configure such a judge and rerun with --resume to judge only those"
        )
        raise typer.Exit(int(ExitCode.NOT_JUDGED))


def register(app: typer.Typer) -> None:
    """Add the ``batch`` command to the main CLI."""
    app.command(name="batch")(batch)


def main() -> None:
    """``python -m citation_verifier.batch``: the batch command on its own."""
    typer.run(batch)
