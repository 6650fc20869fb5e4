"""The ``eval`` command: scores per dataset, as a table or JSON."""

from __future__ import annotations

import asyncio
import json
import resource
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from citation_verifier.splits import SPLITS, Split
from citation_verifier.terminal import ExitCode, fail, load_settings, print_note, print_table

if TYPE_CHECKING:
    from citation_verifier.evaluate import Scores


def eval_command(
    files: Annotated[
        list[Path], typer.Argument(help="JSONL or JSONL.gz files (id, claim, label, source_text).")
    ],
    limit: Annotated[
        int | None, typer.Option(help="Seeded stratified sample of N rows per file.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 13,
    via_http: Annotated[
        bool, typer.Option("--via-http", help="Serve each source on 127.0.0.1; run fetch too.")
    ] = False,
    split: Annotated[
        str,
        typer.Option(
            help="Rows to score: test (never trained or tuned on; what we publish), tune, train "
            "or all (see citation_verifier.splits)."
        ),
    ] = "test",
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print a Markdown table (as in the README).")
    ] = False,
    checkpoint_dir: Annotated[
        Path | None, typer.Option(help="Where finished rows are kept for resuming.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Score the judge on human-labelled claim/source pairs, per dataset."""
    from citation_verifier.evaluate import evaluate_files

    if split not in (*SPLITS, "all"):
        raise fail(f"--split must be one of {', '.join((*SPLITS, 'all'))}")
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise fail(f"no such file: {', '.join(missing)}", ExitCode.INPUT)
    settings = load_settings()
    progress = Progress(
        TextColumn("{task.description}", markup=False),  # descriptions are file names
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=quiet,
    )
    tasks: dict[str, TaskID] = {}

    def advance(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = progress.add_task(name, total=total)
        progress.update(tasks[name], completed=done)

    with progress:
        results = asyncio.run(
            evaluate_files(
                files,
                settings=settings,
                limit=limit,
                seed=seed,
                via_http=via_http,
                split=None if split == "all" else cast(Split, split),
                checkpoint_dir=checkpoint_dir,
                on_progress=advance,
            )
        )
    peak_rss_mib = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if json_output:
        payload = {
            "split": split,
            "peak_rss_mib": peak_rss_mib,
            "datasets": {name: s.as_json() for name, s in results.items()},
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    if markdown:
        typer.echo(markdown_table(results))
        typer.echo(f"\nSplit: {split}. Peak RSS: {peak_rss_mib} MiB.")
        return
    rows = [[Text(cell) for cell in cells(name, scores)] for name, scores in results.items()]
    print_table(COLUMNS, rows)
    print_note(f"Split: {split}. Peak RSS: {peak_rss_mib} MiB.")


COLUMNS = (
    "dataset",
    "n",
    "balanced acc.",
    "3-way acc.",
    "macro-F1",
    "errors",
    "median s/citation",
    "p90 s/citation",
)


def cells(name: str, s: Scores) -> list[str]:
    """One dataset's row of the results table."""
    return [
        name,
        str(s.n),
        f"{s.balanced_accuracy:.3f}",
        "-" if s.accuracy is None else f"{s.accuracy:.3f}",
        "-" if s.macro_f1 is None else f"{s.macro_f1:.3f}",
        str(s.errors),
        f"{s.median_sec:.2f}",
        f"{s.p90_sec:.2f}",
    ]


def markdown_table(results: dict[str, Scores]) -> str:
    """The results as a Markdown table (for the README)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells(name, s)) + " |" for name, s in results.items()]
    return "\n".join(lines)
