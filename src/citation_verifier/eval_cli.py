"""The ``eval`` command: scores per dataset, as a table or JSON."""

from __future__ import annotations

import asyncio
import json
import resource
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from citation_verifier.printable import safe_console
from citation_verifier.splits import LICENSED_FOR_TRAINING, SPLITS, Split
from citation_verifier.terminal import ExitCode, fail, load_settings, print_note, print_table

if TYPE_CHECKING:
    from citation_verifier.evaluate import Scores


_SHARED_CLAIMS = Path("../shared/eval/claims")


def eval_command(
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="FILE", help="JSONL or JSONL.gz files (id, claim, label, source_text)."
        ),
    ] = None,
    suite: Annotated[
        str | None,
        typer.Option(
            help="Score a built-in suite instead of files: behaviour (the behavioural suite, "
            "pass rate per category; docs/BEHAVIOUR.md)."
        ),
    ] = None,
    sentences_from: Annotated[
        Path | None,
        typer.Option(
            help="--suite behaviour: the dev sets whose test rows' sentences it edits "
            "(default ../shared/eval/claims when present; templates only without)."
        ),
    ] = None,
    articles: Annotated[
        Path | None,
        typer.Option(
            help="Score a folder of article pages and claims.jsonl instead of files: accuracy "
            "per kind and claim language, false supports and every wrong verdict "
            "(e.g. ../shared/eval/articles).",
        ),
    ] = None,
    per_template: Annotated[
        int, typer.Option(min=1, help="--suite behaviour: cases per template.")
    ] = 12,
    fast: Annotated[
        bool, typer.Option("--fast", help="--suite behaviour: a few cases of every template.")
    ] = False,
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
    fresh: Annotated[
        bool,
        typer.Option("--fresh", help="Judge every row again instead of reusing the checkpoint."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Score the judge on human-labelled claim/source pairs, per dataset (or on a built-in
    suite, per category)."""
    from citation_verifier.evaluate import evaluate_files

    if articles is not None:
        if files or suite:
            raise fail("give dataset files, --suite or --articles, one of them")
        articles_command(articles, limit, json_output, quiet)
        return
    if suite is not None:
        if files:
            raise fail("give either dataset files or --suite, not both")
        if suite != "behaviour":
            raise fail(f"--suite: unknown suite {suite!r}; expected: behaviour")
        suite_command(sentences_from, per_template, fast, json_output, markdown, quiet)
        return
    if not files:
        raise fail("give dataset files to score, or --suite behaviour")
    if split not in (*SPLITS, "all"):
        raise fail(f"--split must be one of {', '.join((*SPLITS, 'all'))}")
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise fail(f"no such file: {', '.join(missing)}", ExitCode.INPUT)
    settings = load_settings()
    progress, advance, reusing = _file_progress(quiet)
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
                fresh=fresh,
                on_reuse=reusing,
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


def _file_progress(
    quiet: bool,
) -> tuple[Progress, Callable[[str, int, int], None], Callable[[str, int, Path], None]]:
    """A progress bar per dataset file, and the callbacks that move it and say what a rerun
    reuses."""
    progress = Progress(
        TextColumn("{task.description}", markup=False),  # descriptions are file names
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=safe_console(stderr=True),
        disable=quiet,
    )
    tasks: dict[str, TaskID] = {}

    def advance(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = progress.add_task(name, total=total)
        progress.update(tasks[name], completed=done)

    def reusing(name: str, rows: int, path: Path) -> None:
        # A rerun is much faster than the first: say why, and how to start again.
        progress.console.print(
            f"{name}: reusing {rows} judged row(s) from {path}; --fresh to judge them again",
            markup=False,
            highlight=False,
        )

    return progress, advance, reusing


def calibrate_command(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE",
            help="Dev sets whose licence allows fitting what we ship (wice, expertqa, "
            "factcheckgpt, checkcovid: JSONL or JSONL.gz).",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            help="Where the card is written; point CALIBRATION_PATH at it (the shipped card is "
            "src/citation_verifier/data/calibration.json)."
        ),
    ],
    limit: Annotated[
        int | None, typer.Option(help="Seeded stratified sample of N tune rows per file.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 13,
    checkpoint_dir: Annotated[
        Path | None, typer.Option(help="Where finished rows are kept for resuming.")
    ] = None,
    fresh: Annotated[
        bool,
        typer.Option("--fresh", help="Judge every row again instead of reusing the checkpoint."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Fit the confidence calibration (calibration.py) on the tune rows of licensed dev sets:
    rows no model was trained on and no published figure comes from. Judged rows are
    checkpointed, so an interrupted run resumes."""
    from citation_verifier.evaluate import dataset_name, predict_files
    from citation_verifier.judge.calibration import Signals, fit

    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise fail(f"no such file: {', '.join(missing)}", ExitCode.INPUT)
    unlicensed = [dataset_name(f) for f in files if dataset_name(f) not in LICENSED_FOR_TRAINING]
    if unlicensed:
        raise fail(
            f"{', '.join(unlicensed)}: its licence does not allow fitting what we ship; "
            f"use {', '.join(sorted(LICENSED_FOR_TRAINING))}"
        )
    settings = load_settings()
    progress, advance, reusing = _file_progress(quiet)
    with progress:
        predicted = asyncio.run(
            predict_files(
                files,
                settings=settings,
                limit=limit,
                seed=seed,
                split="tune",
                checkpoint_dir=checkpoint_dir,
                on_progress=advance,
                fresh=fresh,
                on_reuse=reusing,
            )
        )
    rows = [
        (name, Signals(**p.signals), p.right)
        for name, (predictions, _, _) in predicted.items()
        for p in predictions
        if p.signals is not None
    ]
    card = fit(rows)
    card.save(out)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(card.fitted_on.items()))
    print_note(f"calibration fitted on {len(rows)} tune rows ({counts}); written to {out}")


COLUMNS = (
    "dataset",
    "language",
    "n",
    "balanced acc.",
    "3-way acc.",
    "macro-F1",
    "errors",
    "not judged (language)",
    "median s/citation",
    "p90 s/citation",
    "ECE",
    "bal. acc. top 80/60/40 %",
    "needs review",
    "acc. all / unmarked",
)


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def cells(name: str, s: Scores) -> list[str]:
    """One dataset's row of the results table."""
    return [
        name,
        s.language,
        str(s.n),
        f"{s.balanced_accuracy:.3f}",
        "-" if s.accuracy is None else f"{s.accuracy:.3f}",
        "-" if s.macro_f1 is None else f"{s.macro_f1:.3f}",
        str(s.errors),
        str(s.unsupported),
        f"{s.median_sec:.2f}",
        f"{s.p90_sec:.2f}",
        _figure(s.ece),
        " / ".join(_figure(s.risk_coverage.get(k)) for k in ("0.8", "0.6", "0.4")) or "-",
        "-" if s.review_share is None else f"{s.review_share:.0%}",
        f"{_figure(s.binary_accuracy)} / {_figure(s.unreviewed_accuracy)}",
    ]


def markdown_table(results: dict[str, Scores]) -> str:
    """The results as a Markdown table (for the README)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells(name, s)) + " |" for name, s in results.items()]
    return "\n".join(lines)


def counting_progress(label: str, quiet: bool) -> Progress:
    """A progress bar on standard error counting ``label``'s items done (off with --quiet)."""
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=safe_console(stderr=True),
        disable=quiet,
    )


SUITE_COLUMNS = ("category", "n", "pass rate", "exact label", "positive controls")


def suite_command(
    sentences_from: Path | None,
    per_template: int,
    fast: bool,
    json_output: bool,
    markdown: bool,
    quiet: bool,
) -> None:
    """``eval --suite behaviour``: the suite's measured half, scored per category."""
    from citation_verifier.behaviour.suite import (
        build_suite,
        failures,
        fast_subset,
        run_cases,
        score_categories,
    )

    if sentences_from is not None and not sentences_from.is_dir():
        raise fail(f"--sentences-from: no such folder: {sentences_from}", ExitCode.INPUT)
    eval_dir = sentences_from or (_SHARED_CLAIMS if _SHARED_CLAIMS.is_dir() else None)
    settings = load_settings()
    cases = build_suite("measure", eval_dir=eval_dir, per_template=per_template)
    if fast:
        cases = fast_subset(cases)
    source = f"templates and sentences of {eval_dir}" if eval_dir else "templates only"
    print_note(f"behaviour suite: {len(cases)} cases ({source})")
    progress = counting_progress("behaviour", quiet)
    with progress:
        task = progress.add_task("behaviour", total=len(cases))
        outcomes = asyncio.run(
            run_cases(cases, settings, lambda done, _: progress.update(task, completed=done))
        )
    scores = score_categories(outcomes)
    seconds = sorted(o.seconds for o in outcomes)
    median = seconds[len(seconds) // 2] if seconds else 0.0
    if json_output:
        payload = {
            "suite": "behaviour",
            "cases": len(cases),
            "median_sec_per_case": round(median, 4),
            "categories": {s.category: s.as_json() for s in scores},
            "failures": [
                {
                    "id": o.case.id,
                    "category": o.case.category,
                    "claim": o.case.claim,
                    "expected": o.case.expected.value,
                    "predicted": o.predicted.value,
                    "quote": o.quote,
                }
                for o in failures(outcomes)
            ],
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    table = [
        [s.category, str(s.n), f"{s.pass_rate:.3f}", f"{s.exact_rate:.3f}", str(s.supported_n)]
        for s in scores
    ]
    if markdown:
        lines = ["| " + " | ".join(SUITE_COLUMNS) + " |", "|" + "---|" * len(SUITE_COLUMNS)]
        lines += ["| " + " | ".join(row) + " |" for row in table]
        typer.echo("\n".join(lines))
        typer.echo(f"\n{len(cases)} cases ({source}); median {median:.2f} s per case.")
        return
    print_table(SUITE_COLUMNS, [[Text(cell) for cell in row] for row in table])
    print_note(f"{len(cases)} cases ({source}); median {median:.2f} s per case.")


def articles_command(folder: Path, limit: int | None, json_output: bool, quiet: bool) -> None:
    """``eval --articles DIR``: the whole product on an article set (module
    ``evaluate_articles``)."""
    from citation_verifier.evaluate_articles import ArticleSetError, evaluate_articles

    if not folder.is_dir():
        raise fail(f"--articles: no such folder: {folder}", ExitCode.INPUT)
    settings = load_settings()
    progress = counting_progress("articles", quiet)
    try:
        with progress:
            task = progress.add_task("articles", total=None)
            scores = asyncio.run(
                evaluate_articles(
                    folder,
                    settings,
                    limit=limit,
                    on_progress=lambda done, total: progress.update(
                        task, completed=done, total=total
                    ),
                )
            )
    except ArticleSetError as error:
        raise fail(str(error), ExitCode.INPUT) from None
    if json_output:
        typer.echo(json.dumps(scores.as_json(), indent=2, ensure_ascii=False))
        return
    groups = [("kind", scores.by_kind), ("claim language", scores.by_language)]
    for title, table in groups:
        print_table(
            (title, "n", "right"),
            [[Text(k), Text(str(n)), Text(f"{a:.3f}")] for k, (n, a) in table.items()],
        )
    false_supported, unsupported = scores.false_supported
    contradicted, unmentioned = scores.unmentioned_contradicted
    print_table(
        ("wrong verdict", "kind", "gold", "got", "decided by", "quote"),
        [
            [
                Text(v.claim.id + ": " + v.claim.claim),
                Text(v.claim.kind),
                Text(v.claim.label),
                Text(v.label),
                Text(v.decided_by),
                Text(v.quote or "-"),
            ]
            for v in scores.wrong
        ],
    )
    print_note(
        f"right {scores.accuracy:.3f} (n = {scores.n}); not supported by the page but called "
        f"supported: {false_supported} of {unsupported}"
        f" ({false_supported / max(unsupported, 1):.1%}); unmentioned called contradicted: "
        f"{contradicted} of {unmentioned}; quotes not the page's visible text: "
        f"{len(scores.quotes_off_page)}; median {scores.median_seconds:.2f} s per claim."
    )
    figures = scores.confidence_figures
    print_note(
        "confidence: expected calibration error "
        f"{_figure(figures['expected_calibration_error'])}; needs review "
        f"{_figure(figures['needs_review_share'])} of the verdicts, the others right "
        f"{_figure(figures['unreviewed_accuracy'])} (all {scores.accuracy:.3f})."
    )
