"""Command line: ``citation-verifier verify|demo``."""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from citation_verifier.errors import CitationVerifierError
from citation_verifier.eval_cli import eval_command
from citation_verifier.models import Label, Reason, VerifyRequest, VerifyResult

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Check whether the pages an LLM cited actually say what it claimed.",
)

_LABEL_STYLE = {
    Label.SUPPORTED: "green",
    Label.CONTRADICTED: "bold red",
    Label.NOT_FOUND: "yellow",
    Label.UNREACHABLE: "dim",
}


def _fail(message: str, code: int = 2) -> typer.Exit:
    Console(stderr=True).print(f"[red]error:[/red] {message}", highlight=False)
    return typer.Exit(code)


def _validation_message(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}" for e in error.errors()
    )


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
    console = Console()
    style = _LABEL_STYLE[result.overall]
    console.print(f"Claim: {result.claim}", highlight=False)
    console.print(f"Overall: [{style}]{result.overall.value}[/{style}]")
    table = Table(show_lines=True)
    for column in ("URL", "label", "reason", "status", "confidence", "evidence"):
        table.add_column(column, overflow="fold")
    for c in result.citations:
        s = _LABEL_STYLE[c.label]
        table.add_row(
            c.url if c.final_url in (None, c.url) else f"{c.url}\n→ {c.final_url}",
            f"[{s}]{c.label.value}[/{s}]",
            c.reason or "",
            "" if c.original_status is None else str(c.original_status),
            f"{c.confidence:.2f}",
            c.evidence_quote or (c.detail or ""),
        )
    console.print(table)
    if any(c.attempts for c in result.citations):
        per_url = ", ".join(f"{c.credits:g}" for c in result.citations)
        console.print(f"Crawlbase credits: {result.credits:g} (per citation: {per_url})")
    for line in judge_summary(result):
        console.print(line, highlight=False)


@app.command()
def verify(
    claim: Annotated[str, typer.Argument(help="The claim the LLM made.")],
    urls: Annotated[list[str], typer.Argument(help="The URLs it cited.")],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the VerifyResult JSON instead of a table.")
    ] = False,
) -> None:
    """Verify CLAIM against each cited URL."""
    from citation_verifier.pipeline import build_verifier
    from citation_verifier.settings import Settings

    try:
        request = VerifyRequest(claim=claim, urls=urls)
    except ValidationError as error:
        raise _fail(_validation_message(error)) from None

    async def run() -> VerifyResult:
        async with build_verifier(Settings()) as verifier:
            return await verifier.verify(request)

    try:
        result = asyncio.run(run())
    except (CitationVerifierError, ValidationError) as error:
        raise _fail(str(error)) from None
    if json_output:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        _print_table(result)
    for c in result.citations:
        if c.reason == Reason.FORBIDDEN_ADDRESS:
            Console(stderr=True).print(
                f"[yellow]refused[/yellow] {c.url}: {c.detail}", highlight=False
            )


@app.command()
def demo() -> None:
    """Serve a demo site on 127.0.0.1 and verify the article's examples against it."""
    from citation_verifier.demo.site import main as run_demo

    try:
        run_demo()
    except CitationVerifierError as error:
        raise _fail(str(error)) from None


# Sub-commands that live in their own modules register here, one line each.
# serve:
from citation_verifier.service.command import serve  # noqa: E402

app.command()(serve)
# batch:
from citation_verifier.batch.command import register as register_batch  # noqa: E402

register_batch(app)
# eval:
app.command("eval")(eval_command)
# audit:
from citation_verifier.audit.cli import app as audit_app  # noqa: E402

app.add_typer(audit_app, name="audit")
# model:
from citation_verifier.model_cli import app as model_app  # noqa: E402

app.add_typer(model_app, name="model")


def main() -> None:
    """Console-script entry point."""
    app()
