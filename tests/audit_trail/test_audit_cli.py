"""``citation-verifier audit ...`` end to end: verify through the CLI, then list, show, replay,
export, rejudge and prune what was recorded."""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.terminal import ExitCode

from .conftest import make_record, site_routes

BOILING = "Water boils at 100 degrees Celsius at sea level."
FIFTY = "Water boils at 50 degrees Celsius at sea level."


@dataclass(frozen=True)
class Trail:
    """A cache folder holding the audit trail of two CLI verify runs."""

    env: dict[str, str]
    cache: Path
    verified: list[dict[str, object]]


def invoke(env: Mapping[str, str], *args: str) -> Result:
    """Run the CLI in-process with ``env`` added to the environment."""
    return CliRunner().invoke(app, list(args), env=dict(env))


@pytest.fixture(scope="module")
def trail(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Trail]:
    """``citation-verifier verify`` run twice against a real loopback site."""
    cache = tmp_path_factory.mktemp("cli-trail")
    env = {"CACHE_DIR": str(cache), "ALLOW_PRIVATE_URLS": "true", "FETCH_TIMEOUT_S": "5"}
    verified = []
    with LoopbackSite(site_routes()) as site:
        for claim, paths in ((BOILING, ("/boiling", "/gone")), (FIFTY, ("/boiling",))):
            result = invoke(env, "verify", "--json", claim, *(site.url(p) for p in paths))
            assert result.exit_code == 0, result.output
            verified.extend(json.loads(result.stdout)["citations"])
    yield Trail(env, cache, verified)


def test_list_shows_every_verified_citation(trail: Trail) -> None:
    result = invoke(trail.env, "audit", "list", "--json")
    assert result.exit_code == 0, result.output
    listed = [json.loads(line) for line in result.stdout.splitlines()]
    assert {r["id"] for r in listed} == {c["audit_id"] for c in trail.verified}
    assert len(listed) == 3
    table = invoke(trail.env, "audit", "list")
    assert table.exit_code == 0 and "3 of 3 matching record(s)" in table.stderr
    # Piped (CliRunner's stdout is no terminal): one whole tab-separated line per record.
    rows = [line.split("\t") for line in table.stdout.splitlines()]
    assert len(rows) == 3 and all(len(row) == 6 for row in rows)
    assert {row[4] for row in rows} == {c["url"] for c in trail.verified}


def test_list_filters_by_label_url_claim_and_time(trail: Trail) -> None:
    def ids(*args: str) -> set[str]:
        result = invoke(trail.env, "audit", "list", "--json", *args)
        assert result.exit_code == 0, result.output
        return {json.loads(line)["label"] for line in result.stdout.splitlines()}

    assert ids("--label", "contradicted") == {"contradicted"}
    assert ids("--url", "/gone") == {"unreachable"}
    assert ids("--claim", "50 degrees") == {"contradicted"}
    assert ids("--since", "1h") == {"supported", "unreachable", "contradicted"}
    assert ids("--until", "2000-01-01") == set()


def test_show_highlights_the_quote_in_its_passage(trail: Trail) -> None:
    verdict = next(c for c in trail.verified if c["label"] == "contradicted")
    audit_id = str(verdict["audit_id"])
    result = invoke(trail.env, "audit", "show", audit_id[:10])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert audit_id in out and FIFTY in out
    assert "Passages shown to the judge" in out
    assert "Denver" in out  # the quote's passage context, not only the quote
    as_json = json.loads(invoke(trail.env, "audit", "show", "--json", audit_id).stdout)
    assert as_json["evidence_quote"] == verdict["evidence_quote"]


def test_show_marks_the_quote_with_a_highlight_style(trail: Trail) -> None:
    verdict = next(c for c in trail.verified if c["label"] == "contradicted")
    env = {**trail.env, "FORCE_COLOR": "1", "TERM": "xterm-256color"}
    out = invoke(env, "audit", "show", str(verdict["audit_id"])).stdout
    quote = str(verdict["evidence_quote"])
    styled = out.index(quote)
    assert "\x1b[" in out[styled - 20 : styled]  # an escape sequence opens right before it


def test_show_of_a_settled_citation_says_nothing_was_judged(trail: Trail) -> None:
    verdict = next(c for c in trail.verified if c["label"] == "unreachable")
    result = invoke(trail.env, "audit", "show", str(verdict["audit_id"]))
    assert result.exit_code == 0 and "settled this citation" in result.stdout


def test_replay_returns_the_page_text_by_snapshot_id(trail: Trail) -> None:
    verdict = next(c for c in trail.verified if c["label"] == "supported")
    shown = json.loads(
        invoke(trail.env, "audit", "show", "--json", str(verdict["audit_id"])).stdout
    )
    result = invoke(trail.env, "audit", "replay", shown["snapshot_id"])
    assert result.exit_code == 0, result.output
    assert BOILING in result.stdout and "<p>" not in result.stdout
    raw = invoke(trail.env, "audit", "replay", shown["raw_snapshot_id"])
    assert raw.exit_code == 0 and "<p>Water boils at 100" in raw.stdout
    # The record id, or the 12-character prefix `audit list` shows, as `audit show` takes.
    for record_id in (str(verdict["audit_id"]), str(verdict["audit_id"])[:12]):
        by_record = invoke(trail.env, "audit", "replay", record_id)
        assert by_record.exit_code == 0 and by_record.stdout == result.stdout


def test_export_writes_jsonl_and_csv(trail: Trail, tmp_path: Path) -> None:
    jsonl = invoke(trail.env, "audit", "export", "--format", "jsonl")
    assert jsonl.exit_code == 0
    rows = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert len(rows) == 3 and all("passages" in r and "settings" in r for r in rows)
    out = tmp_path / "audit.csv"
    result = invoke(trail.env, "audit", "export", "--format", "csv", "--out", str(out))
    assert result.exit_code == 0, result.output
    table = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert {r["label"] for r in table} == {"supported", "unreachable", "contradicted"}
    assert all(json.loads(r["settings"])["top_k"] == 3 for r in table)
    filtered = invoke(trail.env, "audit", "export", "--label", "unreachable")
    assert len(filtered.stdout.splitlines()) == 1


def test_rejudge_all_reproduces_every_verdict(trail: Trail) -> None:
    result = invoke(trail.env, "audit", "rejudge", "--all")
    assert result.exit_code == 0, result.output
    assert "reproduced=1.0000 (2/2) skipped=1" in result.stdout
    assert "CHANGED" not in result.stdout


def test_rejudge_one_record_and_as_json(trail: Trail) -> None:
    verdict = next(c for c in trail.verified if c["label"] == "contradicted")
    one = invoke(trail.env, "audit", "rejudge", str(verdict["audit_id"]))
    assert one.exit_code == 0 and "reproduced: contradicted" in one.stdout
    as_json = invoke(trail.env, "audit", "rejudge", "--all", "--json", "--label", "supported")
    (line,) = as_json.stdout.splitlines()
    assert json.loads(line)["reproduced"] is True


def test_rejudge_with_a_new_threshold_reports_the_change(tmp_path: Path) -> None:
    # A reworded claim, supported at the default relevance threshold and by no rule: the
    # trail's "50 degrees" contradiction stands at any threshold (the page gives 100 degrees).
    env = {"CACHE_DIR": str(tmp_path), "ALLOW_PRIVATE_URLS": "true", "FETCH_TIMEOUT_S": "5"}
    with LoopbackSite(site_routes()) as site:
        claim = "At sea level, water boils at 100 degrees Celsius."
        verified = invoke(env, "verify", "--json", claim, site.url("/boiling"))
    assert verified.exit_code == 0, verified.output
    strict = {**env, "LEXICAL_JUDGE_RELEVANCE_THRESHOLD": "0.999"}
    result = invoke(strict, "audit", "rejudge", "--all")
    assert result.exit_code == 0 and "CHANGED" in result.stdout
    assert "reproduced=0.0000 (0/1)" in result.stdout
    recorded = invoke(strict, "audit", "rejudge", "--all", "--as-recorded")
    assert "reproduced=1.0000 (1/1)" in recorded.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "ffffffffffff"), "no audit record"),
        (("rejudge",), "give one record ID, or --all"),
        (("rejudge", "abc", "--all"), "give one record ID, or --all"),
        (("replay", ""), "empty"),
        (("replay", "f" * 64), "not stored"),
        (("export", "--format", "xml"), "is not one of"),
        (("list", "--since", "yesterday"), "not a time"),
        (("prune", "--older-than", "ninety days"), "not a duration"),
        (("prune", "--older-than", "0d"), "add --yes to confirm"),
    ],
)
def test_bad_input_is_a_clear_message(trail: Trail, args: tuple[str, ...], message: str) -> None:
    result = invoke(trail.env, "audit", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_replay_of_an_unknown_rid_names_the_crawlbase_token(trail: Trail) -> None:
    env = {k: v for k, v in trail.env.items()}
    result = CliRunner().invoke(
        app,
        ["audit", "replay", "rid-without-local-copy"],
        env={**env, "CRAWLBASE_TOKEN": "", "CRAWLBASE_JS_TOKEN": ""},
    )
    assert result.exit_code != 0 and "CRAWLBASE_TOKEN" in result.output
    assert "Traceback" not in result.output


def test_a_bad_database_url_is_a_clear_message(tmp_path: Path) -> None:
    result = invoke(
        {"AUDIT_DB_URL": "postgresql+psycopg://u:hunter2@127.0.0.1:9/x"}, "audit", "list"
    )
    assert result.exit_code == ExitCode.CONFIG and "cannot open the audit database" in result.output
    assert "hunter2" not in result.output


def test_prune_removes_old_records_and_their_snapshots(tmp_path: Path) -> None:
    env = {"CACHE_DIR": str(tmp_path)}
    store = SqlAuditStore(f"sqlite:///{tmp_path / 'audit.db'}")
    snapshots = SnapshotStore(tmp_path / "snapshots")
    shared, old_only = snapshots.put(b"shared page"), snapshots.put(b"old page")
    long_ago = time.time() - 200 * 86400
    for sid in (shared, old_only):
        os.utime(snapshots.path(sid), (long_ago, long_ago))
    now = datetime.now(UTC)
    store.add(make_record(created_at=now - timedelta(days=100), snapshot_id=old_only))
    store.add(make_record(created_at=now - timedelta(days=100), snapshot_id=shared))
    keep = make_record(created_at=now - timedelta(days=10), snapshot_id=shared)
    store.add(keep)
    dry = invoke(env, "audit", "prune", "--older-than", "90d", "--dry-run")
    assert dry.exit_code == 0 and "would delete records=2" in dry.stdout
    assert store.count() == 3
    result = invoke(env, "audit", "prune", "--older-than", "90d")
    assert result.exit_code == 0 and "deleted records=2 snapshots=1" in result.stdout
    assert [r.id for r in store.query()] == [keep.id]
    assert snapshots.exists(shared) and not snapshots.exists(old_only)
    again = invoke(env, "audit", "prune", "--older-than", "90d", "--json")
    assert again.exit_code == 0
    assert json.loads(again.stdout) | {"before": ""} == {"records": 0, "snapshots": 0, "before": ""}
    store.close()


def test_text_that_looks_like_markup_is_printed_as_is(tmp_path: Path) -> None:
    env = {"CACHE_DIR": str(tmp_path)}
    store = SqlAuditStore(f"sqlite:///{tmp_path / 'audit.db'}")
    record = make_record(claim="Results [bold]improved[/bold] by [red]40%[/red]", snapshot_id=None)
    store.add(record)
    store.close()
    listed = invoke(env, "audit", "list")
    shown = invoke(env, "audit", "show", record.id)
    missing = invoke(env, "audit", "show", "[red]nope[/red]")
    assert listed.exit_code == 0 and "[bold]" in listed.stdout  # not eaten as markup
    assert "Results [bold]improved[/bold] by [red]40%[/red]" in shown.stdout
    assert "[red]nope[/red]" in missing.output


def test_verdict_fields_without_a_column_are_kept_in_extra(tmp_path: Path) -> None:
    from citation_verifier.audit.recorder import Auditor
    from citation_verifier.models import Attempt, Label, UrlVerdict
    from citation_verifier.settings import Settings

    store = SqlAuditStore(f"sqlite:///{tmp_path / 'audit.db'}")
    auditor = Auditor(Settings(cache_dir=tmp_path), store=store)
    attempt = Attempt(token="normal", readability=True, http_status=200, original_status=404)
    verdict = UrlVerdict(
        url="https://e.com/x",
        label=Label.UNREACHABLE,
        confidence=1.0,
        reason="http_404",
        attempts=[attempt],
    )
    audit_id = auditor.record_sync("claim", verdict, None, [], None).audit_id
    assert audit_id is not None
    record = store.get(audit_id)
    assert record is not None
    assert record.extra["attempts"] == [attempt.model_dump(mode="json")]
    store.close()


def test_show_piped_keeps_every_field_on_its_line(trail: Trail) -> None:
    # CliRunner's stdout is no terminal, as with `audit show ID | grep settings`: no value is
    # wrapped at 80 columns, so a field's line holds all of it.
    verdict = next(c for c in trail.verified if c["label"] == "supported")
    out = invoke(trail.env, "audit", "show", str(verdict["audit_id"])).stdout
    lines = out.splitlines()
    settings_line = next(line for line in lines if line.startswith("settings: "))
    assert len(settings_line) > 80
    json.loads(settings_line.removeprefix("settings: "))  # the whole JSON object
    snapshot = next(line for line in lines if line.startswith("snapshot_id: "))
    assert len(snapshot.removeprefix("snapshot_id: ")) == 64
