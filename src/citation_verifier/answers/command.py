"""``citation-verifier check-answer FILE``: check every statement of an LLM answer."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.text import Text

from citation_verifier.answers.check import check_statements
from citation_verifier.answers.models import (
    AnswerRequest,
    AnswerResult,
    StatementLabel,
    StatementResult,
)
from citation_verifier.answers.parse import answer_request_from_text, parse_answer
from citation_verifier.answers.support import figure_text, recall_text
from citation_verifier.deadline import request_deadline
from citation_verifier.errors import CitationVerifierError, InputError, validation_message
from citation_verifier.language import LanguageIdentifier
from citation_verifier.limits import answer_length_problem
from citation_verifier.printable import safe_console
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.reuse.embeddings import CachingEmbedder
from citation_verifier.terminal import (
    LABEL_STYLES,
    CitedAtOption,
    CompareArchiveOption,
    ExitCode,
    archive_lines,
    exit_if_gated,
    exit_if_judge_failed,
    fail,
    fail_on_labels,
    load_settings,
    print_note,
    require_cited_at,
    review_cell,
    review_lines,
    wall_lines,
)
from citation_verifier.utf8 import NotUtf8Error, decode_utf8


def _read(path: Path) -> str:
    """The answer file's text (``-``: standard input); UTF-8 only, never guessed."""
    if str(path) == "-":
        data, source = sys.stdin.buffer.read(), "standard input"
    else:
        try:
            data, source = path.read_bytes(), str(path)
        except OSError as error:
            raise InputError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return decode_utf8(data, source)
    except NotUtf8Error as error:
        raise InputError(str(error)) from None


def precision_text(result: AnswerResult) -> str:
    """``citation_precision=0.5000 (2/4)``, or ``n/a`` when nothing was cited."""
    return figure_text(
        "citation_precision",
        result.citation_precision,
        result.supported_citations,
        result.citations,
    )


def statement_lines(statement: StatementResult) -> list[str]:
    """What a statement's facts and misattributions add to its report lines."""
    lines = []
    for fact in statement.facts:
        source = f"  {fact.url}" if fact.url else ""
        lines.append(f"   fact {fact.label.value}{source}: {fact.text}")
        if fact.evidence_quote:
            lines.append(f'     "{" ".join(fact.evidence_quote.split())}"')
    for other in statement.misattributed:
        lines.append(f"   misattributed: {other.source} states it ({other.url})")
        if other.evidence_quote:
            lines.append(f'     "{" ".join(other.evidence_quote.split())}"')
    return lines


def counts_text(result: AnswerResult) -> str:
    """The statement counts, one ``label=n`` per label."""
    return "statements: " + " ".join(
        f"{label.value}={getattr(result, label.value)}" for label in StatementLabel
    )


def print_report(result: AnswerResult) -> None:
    """The readable report: each statement with its label and citations, then the figures.
    Statements, URLs and quotes are the user's and the pages' text: never markup."""
    console = safe_console(highlight=False, soft_wrap=True)
    for number, statement in enumerate(result.statements, start=1):
        label = statement.overall.value
        console.print(
            Text.assemble(f"{number}. ", (label, LABEL_STYLES[label]), f"  {statement.text}")
        )
        for citation in statement.citations:
            why = f" ({citation.reason})" if citation.reason else ""
            console.print(
                Text.assemble(
                    "   ",
                    (citation.label.value, LABEL_STYLES[citation.label.value]),
                    f"{why}  {citation.url}",
                )
            )
            if citation.evidence_quote:  # one line, however the page broke it
                console.print(Text(f'     "{" ".join(citation.evidence_quote.split())}"'))
            if citation.needs_review:
                console.print(Text(f"     {review_cell(citation)}", style="bold magenta"))
        for line in statement_lines(statement):
            console.print(Text(line))
        for problem in statement.problems:
            console.print(Text(f"   problem: {problem}"))
        for line in [*wall_lines(statement.citations), *archive_lines(statement.citations)]:
            console.print(Text(f"   {line}"))
    console.print(Text(precision_text(result)))
    console.print(Text(recall_text(result)))
    console.print(Text(counts_text(result) + f" misattributed={result.misattributed}"))


def check_answer_command(
    answer_file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help='The answer: Markdown/text with markers and sources, or JSON {"answer", '
            '"citations"}; - reads standard input.',
        ),
    ],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the AnswerResult JSON instead of a report.")
    ] = False,
    fail_on: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on",
            metavar="LABEL[,LABEL]",
            help="Exit with status 1 when a statement gets one of these labels, e.g. "
            "--fail-on contradicted,uncited (repeatable), needs_review: when one of its "
            "verdicts' confidence is under REVIEW_BELOW, or misattributed: when another source "
            "of the answer states it instead. For CI gates.",
        ),
    ] = None,
    cited_at: CitedAtOption = None,
    compare_archive: CompareArchiveOption = False,
) -> None:
    """Check every statement of an LLM answer against the sources it cites."""
    from citation_verifier.judge.providers import judge_choice
    from citation_verifier.pipeline import build_verifier

    gate = fail_on_labels(fail_on or [], StatementLabel, misattributed=True)
    try:
        request = answer_request_from_text(_read(answer_file))
        require_cited_at(compare_archive, cited_at or request.cited_at)
        if cited_at is not None or compare_archive:  # the options win over the JSON's fields
            request = AnswerRequest.model_validate(
                {
                    **request.model_dump(exclude_unset=True),
                    **({"cited_at": cited_at} if cited_at is not None else {}),
                    **({"compare_archive": True} if compare_archive else {}),
                }
            )
    except InputError as error:
        raise fail(str(error), ExitCode.INPUT) from None
    except ValidationError as error:
        raise fail(validation_message(error, "input"), ExitCode.INPUT) from None
    settings = load_settings()
    too_long = answer_length_problem(request.answer, settings)
    if too_long is not None:
        raise fail(f"answer: {too_long}", ExitCode.INPUT)
    language = LanguageIdentifier().best(request.answer)
    statements = parse_answer(request.answer, request.citation_urls(), language)
    urls = len({url for statement in statements for url in statement.urls})
    print_note(f"{judge_choice(settings)}; {len(statements)} statement(s) citing {urls} URL(s)")

    async def run() -> AnswerResult:
        # A page cited by several statements has its passages embedded once.
        embedder = CachingEmbedder(MiniLMEmbedder(), settings.batch_embed_cache)
        async with build_verifier(settings, embedder=embedder) as verifier:
            return await check_statements(
                verifier,
                statements,
                cited_at=request.cited_at,
                compare_archive=request.compare_archive,
                deadline=request_deadline(settings, unless_unset=True),
                language=language,
            )

    try:
        result = asyncio.run(run())
    except CitationVerifierError as error:
        raise fail(str(error), ExitCode.CONFIG) from None
    if json_output:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        print_report(result)
    marked = [
        (f"statement {number}, {c.url}", c)
        for number, s in enumerate(result.statements, start=1)
        for c in s.citations
    ]
    for line in review_lines(marked):
        print_note(line)
    exit_if_judge_failed([c for s in result.statements for c in s.citations])
    hits = (
        gate.hit(s.overall, any(c.needs_review for c in s.citations), bool(s.misattributed))
        for s in result.statements
    )
    exit_if_gated([hit for hit in hits if hit is not None], "statement")
