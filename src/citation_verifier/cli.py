"""Command line: ``citation-verifier verify|demo``."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
from typing import Annotated

import typer
from pydantic import SecretStr, ValidationError
from rich.text import Text

from citation_verifier import __version__
from citation_verifier.deadline import request_deadline
from citation_verifier.doctor import missing_summary, optional_parts
from citation_verifier.errors import CitationVerifierError, validation_message
from citation_verifier.eval_cli import calibrate_command, eval_command
from citation_verifier.limits import claim_length_problem
from citation_verifier.models import Label, Reason, VerifyRequest, VerifyResult
from citation_verifier.printable import safe_console
from citation_verifier.terminal import (
    LABEL_STYLES,
    CitedAtOption,
    CompareArchiveOption,
    ExitCode,
    PlainErrorsGroup,
    archive_lines,
    exit_if_gated,
    exit_if_judge_failed,
    fail,
    fail_on_labels,
    load_settings,
    print_error,
    print_note,
    print_table,
    require_cited_at,
    review_cell,
    review_lines,
    settings_first,
    wall_lines,
)
from citation_verifier.verdict_words import detail_words

app = typer.Typer(
    cls=PlainErrorsGroup,
    add_completion=False,
    no_args_is_help=True,
    help="Check whether the pages an LLM cited actually say what it claimed.",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"citation-verifier {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Check whether the pages an LLM cited actually say what it claimed."""


def judge_summary(result: VerifyResult) -> list[str]:
    """Lines for the CLI under the verdict table: LLM totals and cross-check disagreements."""
    lines: list[str] = []
    calls = sum(c.judge_calls for c in result.citations)
    if calls:
        cost = result.judge_cost_usd
        lines.append(
            f"Judge: {calls} call(s), {result.judge_input_tokens} input + "
            f"{result.judge_output_tokens} output tokens, "
            + ("cost unknown (no price for the model)" if cost is None else f"${cost:.6f}")
        )
    for c in result.citations:
        if c.cross_check == "disagree":
            lines.append(
                f"Cross-check disagrees (score {c.cross_check_score:.2f}) with the "
                f"{c.label.value} verdict on {c.url}: review it"
                if c.label.value != "not_found"
                else f"Cross-check disagreed (score {c.cross_check_score:.2f}) on {c.url}: "
                f"downgraded to not_found"
            )
    return lines


def _print_table(result: VerifyResult) -> None:
    # Claims, URLs and quotes are the user's and the page's text: Text cells, never markup.
    # Piped, standard output carries the table's rows alone (``| cut -f5`` reads only rows);
    # the lines around them go to standard error.
    console = safe_console(stderr=not sys.stdout.isatty(), highlight=False, soft_wrap=True)
    console.print(Text(f"Claim: {result.claim}"))
    console.print(Text.assemble("Overall: ", (result.overall.value, LABEL_STYLES[result.overall])))
    judges = sorted({c.judge for c in result.citations if c.judge})
    if judges:
        console.print(Text(f"Judge: {', '.join(judges)}"))
    rows = [
        [
            Text(c.url if c.final_url in (None, c.url) else f"{c.url}\n→ {c.final_url}"),
            Text(c.label.value, style=LABEL_STYLES[c.label]),
            Text(c.reason or ""),
            Text("" if c.original_status is None else str(c.original_status)),
            Text(f"{c.confidence:.2f}"),
            # The page's words only; why there are none is the detail, a rule labelled as one.
            Text(c.evidence_quote or ""),
            Text(detail_words(c.detail)),
            # Last, so the columns scripts cut by number keep their places.
            Text(review_cell(c), style="bold magenta"),
        ]
        for c in result.citations
    ]
    columns = ("URL", "label", "reason", "status", "confidence", "evidence", "detail", "review")
    print_table(columns, rows, show_lines=True)
    if any(c.attempts for c in result.citations):
        per_url = ", ".join(f"{c.credits:g}" for c in result.citations)
        console.print(Text(f"Crawlbase credits: {result.credits:g} (per citation: {per_url})"))
    for line in [
        *wall_lines(result.citations),
        *archive_lines(result.citations),
        *judge_summary(result),
    ]:
        console.print(Text(line))


@app.command()
def verify(
    claim: Annotated[str, typer.Argument(metavar="CLAIM", help="The claim the LLM made.")],
    urls: Annotated[list[str], typer.Argument(metavar="URL", help="The URLs it cited.")],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the VerifyResult JSON instead of a table.")
    ] = False,
    fail_on: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on",
            metavar="LABEL[,LABEL]",
            help="Exit with status 1 when a citation gets one of these labels, e.g. "
            "--fail-on contradicted,unreachable (repeatable), or needs_review: when a verdict's "
            "confidence is under REVIEW_BELOW. For CI gates.",
        ),
    ] = None,
    cited_at: CitedAtOption = None,
    compare_archive: CompareArchiveOption = False,
) -> None:
    """Verify CLAIM against each cited URL."""
    from citation_verifier.judge.providers import judge_choice
    from citation_verifier.pipeline import build_verifier

    gate = fail_on_labels(fail_on or [], Label)
    require_cited_at(compare_archive, cited_at)
    try:
        request = VerifyRequest(
            claim=claim, urls=urls, cited_at=cited_at, compare_archive=compare_archive
        )
    except ValidationError as error:
        raise fail(validation_message(error, "input"), ExitCode.INPUT) from None
    settings = load_settings()
    too_long = claim_length_problem(request.claim, settings)
    if too_long is not None:
        raise fail(f"claim: {too_long}", ExitCode.INPUT)
    print_note(f"{judge_choice(settings)}; verifying {len(request.urls)} URL(s)")

    async def run() -> VerifyResult:
        async with build_verifier(settings) as verifier:
            deadline = request_deadline(settings, unless_unset=True)
            return await verifier.verify(request, deadline=deadline)

    try:
        result = asyncio.run(run())
    except CitationVerifierError as error:
        raise fail(str(error), ExitCode.CONFIG) from None
    if json_output:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        _print_table(result)
    for c in result.citations:
        if c.reason == Reason.FORBIDDEN_ADDRESS:
            print_note(f"refused {c.url}: {c.detail}")
    for line in review_lines([(c.url, c) for c in result.citations]):
        print_note(line)
    exit_if_judge_failed(result.citations)
    hits = (gate.hit(c.label, c.needs_review) for c in result.citations)
    exit_if_gated([hit for hit in hits if hit is not None], "citation")


@app.command("config")
def show_config(
    json_output: Annotated[
        bool, typer.Option("--json", help="One JSON object per setting.")
    ] = False,
    reference: Annotated[
        bool,
        typer.Option(
            "--reference", help="Print the Markdown reference of every variable and reason."
        ),
    ] = False,
) -> None:
    """Print the effective settings (secrets masked) and where each came from."""
    if reference:
        from citation_verifier.reference import reference_markdown

        sys.stdout.write(reference_markdown())
        return
    settings = load_settings()
    values = settings.model_dump(mode="json")
    rows = []
    for name, field in type(settings).model_fields.items():
        variable = name.upper()
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            shown = "***" if value.get_secret_value() else ""
        else:
            shown = values[name] if isinstance(values[name], str) else json.dumps(values[name])
        source = "environment" if variable in os.environ else "default"
        rows.append((variable, shown, source, field.description or ""))
    if json_output:
        keys = ("name", "value", "source", "description")
        sys.stdout.writelines(json.dumps(dict(zip(keys, row, strict=True))) + "\n" for row in rows)
        return
    print_table(
        ("variable", "value", "source", "description"),
        [[Text(cell) for cell in row] for row in rows],
    )
    # RENDER_JS=auto and a browser path read as if a browser were there: say what is not.
    missing = missing_summary(optional_parts(settings))
    if missing is not None:
        print_note(missing)


@app.command()
def doctor(
    json_output: Annotated[bool, typer.Option("--json", help="One JSON object per part.")] = False,
) -> None:
    """List the optional parts (browser, embedded LLM, ...): installed or not, what each gives
    and what installs it."""
    parts = optional_parts(load_settings())
    yes_no = {True: "yes", False: "no"}
    if json_output:
        sys.stdout.writelines(json.dumps(dataclasses.asdict(part)) + "\n" for part in parts)
        return
    print_table(
        ("part", "installed", "what it gives", "to install"),
        [
            [Text(cell) for cell in (part.name, yes_no[part.installed], part.gives, part.install)]
            for part in parts
        ],
    )


@app.command()
def demo() -> None:
    """Serve a demo site on 127.0.0.1 and verify the article's examples against it."""
    from citation_verifier.demo.site import demo_settings
    from citation_verifier.demo.site import main as run_demo
    from citation_verifier.judge.providers import judge_choice

    try:
        print_note(f"{judge_choice(demo_settings())}; serving the demo site on 127.0.0.1")
        run_demo()
    except CitationVerifierError as error:
        raise fail(str(error), ExitCode.CONFIG) from None


# Sub-commands that live in their own modules register here, one line each.
# serve:
from citation_verifier.service.command import serve  # noqa: E402

app.command()(serve)
# batch:
from citation_verifier.batch.command import register as register_batch  # noqa: E402

register_batch(app)
# check-answer:
from citation_verifier.answers.command import check_answer_command  # noqa: E402

app.command("check-answer")(check_answer_command)
# eval:
app.command("eval")(eval_command)
app.command("calibrate")(calibrate_command)
# audit:
from citation_verifier.audit.cli import app as audit_app  # noqa: E402

app.add_typer(audit_app, name="audit")
# model:
from citation_verifier.model_cli import app as model_app  # noqa: E402

app.add_typer(model_app, name="model")
# mcp:
from citation_verifier.mcp_server.command import mcp as mcp_command  # noqa: E402

app.command("mcp")(mcp_command)
# Every command checks the settings before anything else; config reports them itself (and
# its --reference needs none).
settings_first(app, skip=[show_config])


def main() -> None:
    """Console-script entry point. An error nobody anticipated is one line and exit code
    :attr:`ExitCode.INTERNAL`; ``CITATION_VERIFIER_DEBUG=1`` shows its traceback."""
    try:
        app(standalone_mode=True)
    except Exception as error:  # the last resort: every expected error is handled before
        if os.environ.get("CITATION_VERIFIER_DEBUG"):
            raise
        print_error(
            f"internal error ({type(error).__name__}: {error}); please report it, with the "
            "traceback that CITATION_VERIFIER_DEBUG=1 shows"
        )
        sys.exit(int(ExitCode.INTERNAL))
