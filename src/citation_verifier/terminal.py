"""How the command line speaks: every error one plain line on standard error, exit codes that
tell the kinds of failure apart, and the settings read once with one message format.

Anything that comes from a user or a page (claims, URLs, quotes, file names, error messages
that quote them) is printed as plain text, never as Rich markup: ``[citation needed]`` stays on
screen and ``[/x]`` cannot crash the printer; and its control characters are made visible and
inert (:mod:`citation_verifier.printable`): a page's ``ESC[2J`` cannot clear the screen.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Annotated, Any, Generic, TypeVar

import typer
from pydantic import ValidationError
from pydantic_settings import SettingsError
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand

from citation_verifier.cli_help import PlainHelpCommand, PlainHelpGroup
from citation_verifier.errors import plain_message
from citation_verifier.judge.calibration import review_priority
from citation_verifier.models import FAILURES, Reason, UrlVerdict
from citation_verifier.printable import printable, printable_text, safe_console
from citation_verifier.settings import Settings

LABEL_STYLES = {
    "supported": "green",
    "contradicted": "bold red",
    "not_found": "yellow",
    "partial": "yellow",
    "unreachable": "dim",
    "uncited": "cyan",
    "unresolved": "magenta",
}
"""How a label (a citation's, or an answer statement's) is coloured on a terminal."""

L = TypeVar("L", bound=StrEnum)

CitedAtOption = Annotated[
    str | None,
    typer.Option(
        "--cited-at",
        metavar="DATE",
        help="When the answer cited the pages (YYYY-MM-DD or an ISO date-time; default: now): "
        "a dead page is judged on the archived capture closest to it.",
    ),
]
CompareArchiveOption = Annotated[
    bool,
    typer.Option(
        "--compare-archive",
        help="Also judge the capture closest to --cited-at and flag pages changed since cited.",
    ),
]


def require_cited_at(compare_archive: bool, cited_at: object) -> None:
    """``--compare-archive`` with no date to compare at is a usage error naming both flags."""
    if compare_archive and cited_at is None:
        raise fail(
            "--compare-archive needs --cited-at DATE (when the answer cited the pages): the "
            "page is compared with its archived capture closest to that date",
            ExitCode.USAGE,
        )


class ExitCode(IntEnum):
    """The exit status of every command (README: exit codes)."""

    OK = 0
    FAIL_ON = 1
    """``--fail-on``: a citation got one of the labels named, or needs review
    (``--fail-on needs_review``)."""
    USAGE = 2
    """Bad arguments or options (the same code the argument parser uses)."""
    CONFIG = 3
    """A setting, key or installed component is wrong."""
    INPUT = 4
    """An input file, output path or port cannot be used, or a batch had no valid line."""
    JUDGE = 5
    """The judge failed on at least one citation (``judge_error``): an unreachable provider, a
    rejected request, output that is not a verdict. Those citations are not results."""
    NOT_JUDGED = 6
    """No judge failed, but a claim or page is in a language no configured judge reads
    (``unsupported_language``): those citations were not judged, so are not results."""
    INTERNAL = 70
    """A bug: an error nobody anticipated (``CITATION_VERIFIER_DEBUG=1`` shows the traceback)."""
    INTERRUPTED = 130
    """Ctrl-C (128 + SIGINT, as shells report it)."""


def print_error(message: str) -> None:
    """``error: message`` on standard error, the message as plain text, never wrapped."""
    safe_console(stderr=True, soft_wrap=True).print(Text.assemble(("error:", "red"), " ", message))


def print_note(message: str) -> None:
    """A plain-text note on standard error (progress, where files went)."""
    safe_console(stderr=True, soft_wrap=True, highlight=False).print(Text(message))


def print_table(
    columns: Sequence[str], rows: Sequence[Sequence[Text]], *, show_lines: bool = False
) -> None:
    """A table on a terminal; piped, one tab-separated line per row with whole values (as
    ``gh`` does), so nothing is wrapped or cut at 80 columns."""
    if not sys.stdout.isatty():
        for row in rows:
            cells = (" ".join(printable(cell.plain).split()) for cell in row)
            sys.stdout.write("\t".join(cells) + "\n")
        return
    table = Table(show_lines=show_lines)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(printable_text(cell) for cell in row))
    safe_console().print(table)


def fail(message: str, code: ExitCode = ExitCode.USAGE) -> typer.Exit:
    """Print ``message`` as an error; returns the ``typer.Exit`` to raise."""
    print_error(message)
    return typer.Exit(int(code))


def settings_problems(error: ValidationError | SettingsError) -> str:
    """What is wrong with the settings, by environment variable, all problems at once. Values
    are never repeated (they may be secrets)."""
    if isinstance(error, SettingsError):  # a settings source failed; it names the field
        return str(error)
    problems = []
    for item in error.errors():
        name = str(item["loc"][0]).upper() if item["loc"] else "settings"
        problems.append(f"{name}: {plain_message(item)}")
    return "; ".join(problems)


def load_settings() -> Settings:
    """The settings from the environment; on a bad value, one line naming each variable and
    exit with :attr:`ExitCode.CONFIG`."""
    try:
        return Settings()
    except (ValidationError, SettingsError) as error:
        raise fail(f"invalid settings: {settings_problems(error)}", ExitCode.CONFIG) from None


# Typer may bundle its own copy of Click: its exception classes are found through Typer's.
_ClickException: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)
_UsageError: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError"
)


def _usage_error(error: Exception) -> int:
    """Print a Click usage error as one ``error:`` line and a hint; its exit code."""
    code = int(getattr(error, "exit_code", ExitCode.USAGE))
    if type(error).__name__ == "NoArgsIsHelpError":  # the help was printed already
        return code
    message = str(getattr(error, "format_message", error.__str__)())
    cause = error.__cause__
    if isinstance(cause, ValidationError):  # Typer checks values with pydantic: our words
        message = message.partition(": ")[0] + ": " + "; ".join(map(plain_message, cause.errors()))
    print_error(message)
    ctx = getattr(error, "ctx", None)
    if ctx is not None:
        print_note(f"Try '{ctx.command_path} --help' for help.")
    return code


class PlainErrorsGroup(PlainHelpGroup):
    """The command group whose usage errors are one ``error:`` line and a hint to ``--help``
    (Typer would draw a box of four lines), for every command below it."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the CLI; errors of the argument parser are printed plainly."""
        try:
            # Not standalone: Click hands its errors back instead of printing them its way.
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _UsageError as error:
            result = _usage_error(error)
        except _ClickException as error:
            print_error(str(getattr(error, "format_message", error.__str__)()))
            result = int(getattr(error, "exit_code", 1))
        except typer.Abort:
            print_error("aborted")
            result = 1
        if not standalone_mode:
            return result
        # Non-standalone Click returns a typer.Exit's code, or what the command returned.
        sys.exit(result if isinstance(result, int) else 0)


class SettingsFirstCommand(PlainHelpCommand):
    """A command that validates the settings before it does anything else (after its
    arguments parsed, so ``--help`` and usage errors still come first): a bad variable is
    named, with :attr:`ExitCode.CONFIG`, before any input is read or port opened."""

    def invoke(self, ctx: Any) -> Any:  # a Click context (Typer may bundle its own Click)
        """Check the settings, then run the command."""
        load_settings()
        return super().invoke(ctx)


def settings_first(app: typer.Typer, skip: Sequence[object] = ()) -> None:
    """Make every command of ``app`` (sub-groups included), but those whose function is in
    ``skip``, a :class:`SettingsFirstCommand`; those in ``skip`` and the sub-groups get the
    same plain ``--help``."""
    for command in app.registered_commands:
        if command.cls in (None, TyperCommand):
            command.cls = PlainHelpCommand if command.callback in skip else SettingsFirstCommand
    for group in app.registered_groups:
        if group.typer_instance is not None:
            group.typer_instance.info.cls = PlainHelpGroup
            settings_first(group.typer_instance, skip)


NEEDS_REVIEW = "needs_review"
MISATTRIBUTED = "misattributed"
"""The ``--fail-on`` name that gates on the review mark (a confidence under REVIEW_BELOW)
rather than on a label."""


@dataclass(frozen=True)
class FailOn(Generic[L]):
    """What ``--fail-on`` named: labels, whether a verdict that needs review fails too, and
    (``check-answer``) whether a misattributed statement does."""

    labels: frozenset[L]
    review: bool = False
    misattributed: bool = False

    def hit(self, label: L, needs_review: bool, misattributed: bool = False) -> str | None:
        """The name that gates an item with ``label`` (its label first), or None."""
        if label in self.labels:
            return label.value
        if self.review and needs_review:
            return NEEDS_REVIEW
        return MISATTRIBUTED if self.misattributed and misattributed else None


def fail_on_labels(
    values: Iterable[str], labels: type[L], *, misattributed: bool = False
) -> FailOn[L]:
    """``--fail-on`` values (repeated and/or comma-separated): members of ``labels``,
    ``needs_review`` and, where ``misattributed`` allows it, ``misattributed``; an unknown name
    fails with the list of known ones."""
    names = {name.strip().lower() for value in values for name in value.split(",") if name.strip()}
    flags = {NEEDS_REVIEW, *([MISATTRIBUTED] if misattributed else [])}
    known = {label.value for label in labels} | flags
    unknown = sorted(names - known)
    if unknown:
        raise fail(
            f"--fail-on: unknown label {', '.join(unknown)}; expected: {', '.join(sorted(known))}"
        )
    return FailOn(
        frozenset(labels(name) for name in names - flags),
        NEEDS_REVIEW in names,
        MISATTRIBUTED in names,
    )


def _review_why(verdict: UrlVerdict) -> str:
    return verdict.review_reason or "confidence under REVIEW_BELOW"


def review_cell(verdict: UrlVerdict) -> str:
    """A table's review cell: ``needs review: <why>`` for a verdict a person should look at,
    empty otherwise (so ``cut -f8`` shows only the marked rows' reasons)."""
    return f"needs review: {_review_why(verdict)}" if verdict.needs_review else ""


def review_lines(verdicts: Sequence[tuple[str, UrlVerdict]]) -> list[str]:
    """The note on the verdicts that need review, each named by its ``(where, verdict)``
    pair's ``where``: most consequential first (``review_priority``: a doubtful ``supported``
    before a doubtful ``not_found``), input order among equals; no line when none does."""
    marked = sorted(
        (pair for pair in verdicts if pair[1].needs_review),
        key=lambda pair: -review_priority(pair[1].label, pair[1].confidence),
    )
    items = [f"{where} ({v.label.value}): {_review_why(v)}" for where, v in marked]
    if len(items) <= 1:
        return [f"1 verdict needs review: {item}" for item in items]
    heading = f"{len(items)} verdicts need review, most consequential first:"
    return [heading, *(f"  {n}. {item}" for n, item in enumerate(items, start=1))]


def exit_if_judge_failed(verdicts: Sequence[UrlVerdict]) -> None:
    """Exit with :attr:`ExitCode.JUDGE` when the judge failed on any of ``verdicts``, else
    with :attr:`ExitCode.NOT_JUDGED` when a language kept some from being judged: those are
    not results, and a zero status would pass them off as such."""
    failed = [v for v in verdicts if v.reason in FAILURES]
    if not failed:
        return
    counted = f"{len(failed)} of {len(verdicts)} citation(s)"
    broken = [v for v in failed if v.reason != Reason.UNSUPPORTED_LANGUAGE]
    late = [v for v in broken if v.reason == Reason.DEADLINE_EXCEEDED]
    if late and len(late) == len(broken):
        raise fail(
            f"the deadline passed before {len(late)} of {len(verdicts)} citation(s) were "
            f"judged, so they are not results: {late[0].detail}",
            ExitCode.JUDGE,
        )
    if broken:
        first = next(v for v in broken if v.reason != Reason.DEADLINE_EXCEEDED)
        raise fail(
            f"the judge failed on {counted}, so they are not results: "
            f"{first.detail or 'no detail'}",
            ExitCode.JUDGE,
        )
    # The pages were read; nothing failed: a note, not an error, and its own exit code.
    print_note(f"not judged: {counted}, a language no judge here reads: {failed[0].detail}")
    raise typer.Exit(int(ExitCode.NOT_JUDGED))


def exit_if_gated(hits: Sequence[str], noun: str) -> None:
    """``--fail-on``: exit with :attr:`ExitCode.FAIL_ON` when ``hits`` (the names that matched,
    one per ``noun``: a label, or ``needs_review``) is not empty, saying how many and which."""
    if hits:
        print_note(f"--fail-on: {len(hits)} {noun}(s) {', '.join(sorted(set(hits)))}")
        raise typer.Exit(int(ExitCode.FAIL_ON))


_STEP_WORDS = {
    "retry_after": "waited the short Retry-After",
    "refuse_consent": "refused consent in the browser",
    "browser": "loaded it in the browser",
    "crawling_api": "asked the Crawling API",
}


def wall_lines(citations: Sequence[UrlVerdict]) -> list[str]:
    """One line per citation a wall stood in front of: what it was, in words, and what was
    tried to get past it."""
    lines = []
    for c in citations:
        if c.could_not_read is None:
            continue
        line = f"Could not read {c.url}: {c.could_not_read.removeprefix('could not read: ')}"
        tried = [f"{_STEP_WORDS.get(s.step, s.step)} ({s.outcome})" for s in c.recoveries]
        if tried:
            line += f"; tried: {', '.join(tried)}"
        if c.retry_after_s is not None:
            line += f"; the site asked to retry after {c.retry_after_s:g} s"
        lines.append(line)
    return lines


def archive_lines(citations: Sequence[UrlVerdict]) -> list[str]:
    """What the archive did for ``citations``, one line each where it did something: a dead
    page judged on its capture, a lookup that found nothing usable, a page changed since
    cited (or not)."""
    lines = []
    for c in citations:
        if c.archive_url and c.archived_at:
            lines.append(
                f"Archived copy: {c.url} was {c.live_reason} live; judged on the capture of "
                f"{c.archived_at:%Y-%m-%d %H:%M} UTC, {c.archive_url}"
            )
        elif c.archive_lookup:
            lines.append(f"Archive: {c.url}: {c.archive_lookup}")
        then = c.archived_verdict
        if then is not None:
            change = "Changed since cited" if c.changed_since_cited else "Unchanged since cited"
            lines.append(
                f"{change}: {c.url} is {c.label.value} now and was {then.label.value} in the "
                f"capture of {then.archived_at:%Y-%m-%d} ({then.archive_url})"
            )
    return lines
