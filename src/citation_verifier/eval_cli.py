"""The ``eval`` command: scores per dataset, as a table or JSON."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

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
from rich.table import Table


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
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    checkpoint_dir: Annotated[
        Path | None, typer.Option(help="Where finished rows are kept for resuming.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Score the judge on human-labelled claim/source pairs, per dataset."""
    from citation_verifier.evaluate import evaluate_files
    from citation_verifier.settings import Settings

    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        Console(stderr=True).print(f"[red]error:[/red] no such file: {', '.join(missing)}")
        raise typer.Exit(2)
    progress = Progress(
        TextColumn("{task.description}"),
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
                settings=Settings(),
                limit=limit,
                seed=seed,
                via_http=via_http,
                checkpoint_dir=checkpoint_dir,
                on_progress=advance,
            )
        )
    if json_output:
        payload = {"datasets": {name: s.as_json() for name, s in results.items()}}
        typer.echo(json.dumps(payload, indent=2))
        return
    table = Table(title="Embedded pipeline on labelled pairs")
    for column in ("dataset", "n", "bal. acc", "3-way acc", "macro-F1", "errors", "s/citation"):
        table.add_column(column)
    for name, s in results.items():
        table.add_row(
            name,
            str(s.n),
            f"{s.balanced_accuracy:.3f}",
            "-" if s.accuracy is None else f"{s.accuracy:.3f}",
            "-" if s.macro_f1 is None else f"{s.macro_f1:.3f}",
            str(s.errors),
            f"{s.sec_per_citation:.2f}",
        )
    Console().print(table)
