"""``citation-verifier audit ...``: list, show, replay, export, rejudge, prune the audit trail."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from citation_verifier.audit.records import AuditFilter, AuditRecord
from citation_verifier.errors import CitationVerifierError
from citation_verifier.models import Label
from citation_verifier.printable import is_terminal, printable, safe_console
from citation_verifier.terminal import ExitCode, fail, load_settings, print_note, print_table

if TYPE_CHECKING:
    from citation_verifier.audit.rejudge import Rejudged
    from citation_verifier.audit.snapshots import SnapshotStore
    from citation_verifier.audit.store import AuditStore
    from citation_verifier.settings import Settings

app = typer.Typer(
    no_args_is_help=True,
    help="The audit trail: every verdict recorded, with the page it was based on.",
)

LabelOption = Annotated[Label | None, typer.Option("--label", help="Only this label.")]
UrlOption = Annotated[
    str | None, typer.Option("--url", help="URL or final URL contains this (any case).")
]
ClaimOption = Annotated[str | None, typer.Option("--claim", help="Claim contains this (any case).")]
SinceOption = Annotated[
    str | None,
    typer.Option("--since", help="At or after this time: ISO date/time (UTC) or a duration ago."),
]
UntilOption = Annotated[
    str | None, typer.Option("--until", help="Before this time: ISO date/time or a duration ago.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="JSON (one object per line).")]


def _filter(
    label: Label | None,
    url: str | None,
    claim: str | None,
    since: str | None,
    until: str | None,
) -> AuditFilter:
    from citation_verifier.audit.timespec import parse_time

    try:
        return AuditFilter(
            label=label,
            url=url,
            claim=claim,
            since=parse_time(since) if since else None,
            until=parse_time(until) if until else None,
        )
    except ValueError as error:
        raise fail(str(error)) from None


@contextmanager
def _opened() -> Iterator[tuple[AuditStore, SnapshotStore, Settings]]:
    """The configured store and snapshots; every error of ours becomes a clear message."""
    from citation_verifier.audit.recorder import audit_db_url, snapshot_dir
    from citation_verifier.audit.snapshots import SnapshotStore
    from citation_verifier.audit.store import SqlAuditStore

    settings = load_settings()
    try:
        store = SqlAuditStore(audit_db_url(settings), busy_timeout_s=settings.audit_busy_timeout_s)
    except CitationVerifierError as error:
        raise fail(str(error), ExitCode.CONFIG) from None
    except OSError as error:  # an unwritable CACHE_DIR or AUDIT_DB_URL folder
        raise fail(
            f"cannot open the audit store: {error.strerror}: {error.filename}", ExitCode.CONFIG
        ) from None
    try:
        yield store, SnapshotStore(snapshot_dir(settings)), settings
    except (CitationVerifierError, ValueError) as error:
        raise fail(str(error)) from None
    finally:
        store.close()


def _when(record: AuditRecord) -> str:
    return record.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ")


@app.command("list")
def list_records(
    label: LabelOption = None,
    url: UrlOption = None,
    claim: ClaimOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many.")] = 50,
    json_output: JsonOption = False,
) -> None:
    """List recorded verdicts, newest first."""
    where = _filter(label, url, claim, since, until)
    with _opened() as (store, _, _settings):
        records = store.query(where, limit=limit)
        total = store.count(where)
    if json_output:
        for record in records:
            sys.stdout.write(record.model_dump_json() + "\n")
        return
    rows = [
        [
            Text(cell)
            for cell in (r.id[:12], _when(r), r.label.value, r.reason or "", r.url, r.claim)
        ]
        for r in records
    ]
    print_table(("id", "time (UTC)", "label", "reason", "url", "claim"), rows)
    print_note(f"{len(records)} of {total} matching record(s)")


def _passage_text(record: AuditRecord, snapshots: SnapshotStore) -> str | None:
    if record.snapshot_id is None or not snapshots.exists(record.snapshot_id):
        return None
    return snapshots.get_text(record.snapshot_id)


@app.command()
def show(
    record_id: Annotated[str, typer.Argument(metavar="ID", help="Record id (or a unique prefix).")],
    json_output: JsonOption = False,
) -> None:
    """Show one decision in full, with the evidence quote highlighted in its passage."""
    with _opened() as (store, snapshots, _settings):
        record = store.get(record_id)
        if record is None:
            raise fail(f"no audit record with id {record_id!r}")
        page = _passage_text(record, snapshots)
    if json_output:
        sys.stdout.write(record.model_dump_json(indent=2) + "\n")
        return
    console = safe_console()
    fields = record.model_dump(mode="json", exclude={"passages", "settings", "extra"})
    # Page and claim text is data, never rich markup: printed as plain Text.
    for name, value in fields.items():
        console.print(Text.assemble((name, "bold"), ": ", "" if value is None else str(value)))
    for name in ("settings", "extra"):
        value = json.dumps(getattr(record, name), sort_keys=True)
        console.print(Text.assemble((name, "bold"), ": ", value))
    if record.snapshot_id is None:
        console.print("No page was judged (the fetch stage settled this citation).")
        return
    if page is None:
        console.print(f"[yellow]snapshot {record.snapshot_id} is no longer stored[/yellow]")
    console.print(f"\n[bold]Passages shown to the judge[/bold] ({len(record.passages)}):")
    for rank, ref in enumerate(record.passages, start=1):
        header = f"\n#{rank} passage {ref.index} [{ref.start}:{ref.end}] sha256 {ref.sha256[:12]}"
        console.print(header, highlight=False, markup=False)
        if page is None:
            continue
        text = Text(page[ref.start : ref.end])
        if (
            record.quote_start is not None
            and record.quote_end is not None
            and ref.start <= record.quote_start < record.quote_end <= ref.end
        ):
            text.stylize(
                "bold black on yellow", record.quote_start - ref.start, record.quote_end - ref.start
            )
        console.print(text)


@app.command()
def replay(
    target: Annotated[
        str, typer.Argument(metavar="RID_OR_SNAPSHOT_ID", help="A Crawlbase rid or a snapshot id.")
    ],
    raw: Annotated[
        bool,
        typer.Option(
            "--raw",
            help="The stored bytes exactly, control characters included: for a file or a "
            "pipe (> page.html), refused on a terminal.",
        ),
    ] = False,
) -> None:
    """Print the stored page: the local snapshot first, else Crawlbase's stored copy of a rid.
    Its control characters are shown as visible stand-ins (a page's ESC[2J or clipboard-writing
    OSC 52 is never obeyed), newlines and tabs kept; --raw writes the bytes as stored."""
    from citation_verifier.audit.replay import replay as replay_page

    # Checked before the lookup: a refused --raw must not wait on Crawlbase first.
    if raw and is_terminal(sys.stdout):
        raise fail(
            "--raw writes the stored bytes as they are, control characters included, and "
            "standard output is a terminal: redirect it to a file (> page.html) or a pipe, or "
            "leave out --raw to see the page with its control characters made visible"
        )
    with _opened() as (store, snapshots, settings):
        page = replay_page(target, store, snapshots, settings)
    if raw:
        typer.echo(page.content, nl=False)  # bytes: written to the binary stream unchanged
        return
    typer.echo(_shown(page.content), nl=False)


def _shown(content: bytes) -> str:
    """A stored page as text to print, piped or not (a pipe may end on a terminal, ``| head``):
    decoded as UTF-8 (what cannot be decoded shown as U+FFFD), CRLF line ends as newlines, every
    other control character :func:`printable`; ends with a newline."""
    text = printable(content.decode("utf-8", errors="replace").replace("\r\n", "\n"))
    return text if text.endswith("\n") else text + "\n"


class ExportFormat(StrEnum):
    """Export file format."""

    JSONL = "jsonl"
    CSV = "csv"


@app.command()
def export(
    fmt: Annotated[
        ExportFormat | None,
        typer.Option("--format", help="Format (default: from --out's suffix, else jsonl)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write here instead of standard output.")
    ] = None,
    label: LabelOption = None,
    url: UrlOption = None,
    claim: ClaimOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
) -> None:
    """Export records (oldest first) as JSON Lines or CSV."""
    from citation_verifier.audit.export import export as write

    chosen = fmt or (ExportFormat.CSV if out and out.suffix == ".csv" else ExportFormat.JSONL)
    where = _filter(label, url, claim, since, until)
    with _opened() as (store, _, _settings):
        if out is None:
            write(store.iterate(where), sys.stdout, chosen.value)
            return
        try:
            with out.open("w", encoding="utf-8", newline="") as handle:
                count = write(store.iterate(where), handle, chosen.value)
        except OSError as error:
            raise fail(f"cannot write {out}: {error.strerror}", ExitCode.INPUT) from None
    print_note(f"exported {count} record(s) to {out}")


def _describe(outcome: Rejudged) -> str:
    r = outcome.record
    if outcome.skipped is not None:
        return f"{r.id[:12]}  skipped: {outcome.skipped}"
    if outcome.reproduced:
        return f"{r.id[:12]}  reproduced: {r.label.value}"
    assert outcome.label is not None
    was = f"{r.label.value} reason={r.reason or '-'} quote={r.evidence_quote!r}"
    now = f"{outcome.label.value} reason={outcome.reason or '-'} quote={outcome.evidence_quote!r}"
    return f"{r.id[:12]}  CHANGED: {was} -> {now}"


@app.command()
def rejudge(
    record_id: Annotated[
        str | None, typer.Argument(metavar="ID", help="Record id (or a unique prefix).")
    ] = None,
    all_records: Annotated[
        bool, typer.Option("--all", help="Every record matching the filters.")
    ] = False,
    as_recorded: Annotated[
        bool,
        typer.Option(
            "--as-recorded",
            help="Use each record's own thresholds and k instead of the current settings.",
        ),
    ] = False,
    label: LabelOption = None,
    url: UrlOption = None,
    claim: ClaimOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    json_output: JsonOption = False,
) -> None:
    """Re-run passages → judge → guard on stored snapshots (no fetch) with the current judge and
    settings, and report whether each verdict is reproduced."""
    from citation_verifier.audit.rejudge import rejudge as rejudge_one
    from citation_verifier.audit.rejudge import settings_as_recorded, summarise
    from citation_verifier.retrieve import MiniLMEmbedder
    from citation_verifier.verifier import Verifier

    if (record_id is None) == (not all_records):
        raise fail("give one record ID, or --all (with optional filters)")
    where = _filter(label, url, claim, since, until)
    outcomes: list[Rejudged] = []
    with _opened() as (store, snapshots, settings):
        if record_id is not None:
            found = store.get(record_id)
            if found is None:
                raise fail(f"no audit record with id {record_id!r}")
            records: Iterator[AuditRecord] = iter([found])
        else:
            records = store.iterate(where)
        base = settings.model_copy(update={"audit_enabled": False})  # re-judging records nothing
        embedder = MiniLMEmbedder()

        async def run() -> None:
            verifiers: dict[str, Verifier] = {}
            try:
                for record in records:
                    chosen = settings_as_recorded(base, record) if as_recorded else base
                    key = chosen.model_dump_json()
                    if key not in verifiers:
                        verifiers[key] = Verifier(chosen, embedder=embedder)
                    outcome = await rejudge_one(record, verifiers[key], snapshots)
                    outcomes.append(outcome)
                    if json_output:
                        sys.stdout.write(_outcome_json(outcome) + "\n")
                    elif not outcome.reproduced or record_id is not None:
                        safe_console().print(_describe(outcome), highlight=False, markup=False)
            finally:
                for verifier in verifiers.values():
                    await verifier.aclose()

        asyncio.run(run())
    summary = summarise(outcomes)
    rate = "n/a" if summary.rate is None else f"{summary.rate:.4f}"
    line = (
        f"reproduced={rate} ({summary.reproduced}/{summary.rejudged}) "
        f"skipped={summary.skipped} (no snapshot to re-judge)"
    )
    safe_console(stderr=json_output).print(line, highlight=False, markup=False)


def _outcome_json(outcome: Rejudged) -> str:
    r = outcome.record
    return json.dumps(
        {
            "id": r.id,
            "reproduced": outcome.reproduced,
            "skipped": outcome.skipped,
            "recorded": {"label": r.label.value, "reason": r.reason, "quote": r.evidence_quote},
            "rejudged": None
            if outcome.skipped
            else {
                "label": outcome.label.value if outcome.label else None,
                "reason": outcome.reason,
                "quote": outcome.evidence_quote,
                "confidence": outcome.confidence,
            },
        }
    )


@app.command()
def prune(
    older_than: Annotated[
        str, typer.Option("--older-than", help="Delete records older than this, e.g. 90d.")
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only count what would be deleted.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", help="Confirm a duration under one day (deletes nearly all).")
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Delete records older than a duration, and the snapshots no record refers to anymore."""
    from citation_verifier.audit.prune import prune as run_prune
    from citation_verifier.audit.timespec import parse_duration

    try:
        duration = parse_duration(older_than)
    except ValueError as error:
        raise fail(str(error)) from None
    if duration < timedelta(days=1) and not dry_run and not yes:
        raise fail(
            f"--older-than {older_than} deletes every record of the last day and before: "
            "add --yes to confirm (or --dry-run to count them)"
        )
    cutoff = datetime.now(UTC) - duration
    with _opened() as (store, snapshots, _settings):
        if dry_run:
            count = store.count(AuditFilter(until=cutoff))
            if json_output:
                typer.echo(json.dumps({"would_delete_records": count, "before": f"{cutoff}"}))
                return
            safe_console().print(
                f"would delete records={count} (before {cutoff:%Y-%m-%d %H:%M:%SZ})"
            )
            return
        pruned = run_prune(store, snapshots, cutoff)
    if json_output:
        deleted = {"records": pruned.records, "snapshots": pruned.snapshots}
        typer.echo(json.dumps(deleted | {"before": f"{cutoff}"}))
        return
    safe_console().print(
        f"deleted records={pruned.records} snapshots={pruned.snapshots} "
        f"(before {cutoff:%Y-%m-%d %H:%M:%SZ})",
        highlight=False,
    )
