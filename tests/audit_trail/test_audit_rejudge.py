"""Re-judging stored snapshots reproduces the embedded judge's verdicts; new settings show up."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from citation_verifier.audit.recorder import audit_db_url, snapshot_dir
from citation_verifier.audit.records import AuditRecord
from citation_verifier.audit.rejudge import (
    Rejudged,
    rejudge,
    settings_as_recorded,
    summarise,
)
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.models import Label, VerifyRequest
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

from .conftest import site_routes

CASES = (
    ("Water boils at 100 degrees Celsius at sea level.", ("/boiling", "/gone", "/moved")),
    ("Water boils at 50 degrees Celsius at sea level.", ("/boiling",)),
    ("The Pacific Ocean is the largest ocean on Earth.", ("/oceans",)),
    ("Glaciers form from compacted snow over centuries.", ("/oceans",)),
)


@dataclass(frozen=True)
class Recorded:
    """The cases verified once for this module: the settings used and the records written."""

    settings: Settings
    records: list[AuditRecord]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Recorded:
    """Verify every case once (real site, real pipeline); the tests only read the records."""
    settings = Settings(
        allow_private_urls=True,
        fetch_timeout_s=2.0,
        connect_timeout_s=1.0,
        cache_dir=tmp_path_factory.mktemp("rejudge"),
    )

    async def run(site: LoopbackSite) -> None:
        async with build_verifier(settings, embedder=embedder) as verifier:
            for claim, paths in CASES:
                urls = [site.url(p) for p in paths]
                await verifier.verify(VerifyRequest(claim=claim, urls=urls))

    with LoopbackSite(site_routes()) as site:
        asyncio.run(run(site))
    store = SqlAuditStore(audit_db_url(settings))
    try:
        return Recorded(settings, list(store.iterate()))
    finally:
        store.close()


async def _rejudge_all(
    records: list[AuditRecord], settings: Settings, embedder: MiniLMEmbedder
) -> list[Rejudged]:
    snapshots = SnapshotStore(snapshot_dir(settings))
    quiet = settings.model_copy(update={"audit_enabled": False})
    async with Verifier(quiet, embedder=embedder) as verifier:
        return [await rejudge(r, verifier, snapshots) for r in records]


async def test_rejudging_reproduces_every_judged_verdict(
    recorded: Recorded, embedder: MiniLMEmbedder
) -> None:
    records = recorded.records
    labels = {r.label for r in records}
    assert {Label.SUPPORTED, Label.CONTRADICTED, Label.NOT_FOUND, Label.UNREACHABLE} <= labels
    outcomes = await _rejudge_all(records, recorded.settings, embedder)
    summary = summarise(outcomes)
    assert summary.rejudged == 4 and summary.skipped == 2
    assert summary.reproduced == summary.rejudged and summary.rate == 1.0
    for outcome in outcomes:
        if outcome.record.judged:
            assert outcome.reproduced and outcome.confidence == outcome.record.confidence


async def test_settled_citations_are_skipped_with_their_reason(
    recorded: Recorded, embedder: MiniLMEmbedder
) -> None:
    settled = [r for r in recorded.records if not r.judged]
    outcomes = await _rejudge_all(settled, recorded.settings, embedder)
    skipped = {o.record.reason: o.skipped for o in outcomes if o.skipped}
    assert set(skipped) == {"http_404", "redirected_to_homepage"}
    assert all(s and "settled by the fetch stage" in s for s in skipped.values())
    assert not any(o.reproduced for o in outcomes if o.skipped)


async def test_a_stricter_threshold_changes_verdicts_and_as_recorded_restores_them(
    recorded: Recorded, embedder: MiniLMEmbedder
) -> None:
    records = [r for r in recorded.records if r.judged]
    strict = recorded.settings.model_copy(update={"lexical_judge_relevance_threshold": 0.999})
    outcomes = await _rejudge_all(records, strict, embedder)
    changed = [o for o in outcomes if o.skipped is None and not o.reproduced]
    assert changed and all(o.label == Label.NOT_FOUND for o in changed)
    rate = summarise(outcomes).rate
    assert rate is not None and rate < 1.0
    restored = settings_as_recorded(strict, records[0])
    assert restored.lexical_judge_relevance_threshold == 0.55
    outcomes = await _rejudge_all(records, restored, embedder)
    assert summarise(outcomes).rate == 1.0


async def test_a_pruned_snapshot_is_skipped_not_guessed(
    recorded: Recorded, embedder: MiniLMEmbedder
) -> None:
    judged = next(r for r in recorded.records if r.judged)
    gone = judged.model_copy(update={"snapshot_id": "0" * 64})
    (outcome,) = await _rejudge_all([gone], recorded.settings, embedder)
    assert outcome.skipped is not None and "no longer stored" in outcome.skipped
    assert not outcome.reproduced


async def test_rejudging_records_nothing_new(recorded: Recorded, embedder: MiniLMEmbedder) -> None:
    judged = [r for r in recorded.records if r.judged][:1]
    await _rejudge_all(judged, recorded.settings, embedder)
    store = SqlAuditStore(audit_db_url(recorded.settings))
    assert store.count() == len(recorded.records)
    store.close()


def test_an_empty_summary_has_no_rate() -> None:
    summary = summarise([])
    assert (summary.reproduced, summary.rejudged, summary.skipped, summary.rate) == (0, 0, 0, None)
