"""Measure audit re-judge reproduction on real, human-labelled claims.

Serves each row's source text as a page on 127.0.0.1, verifies claim + URL through the real
pipeline with auditing on, then re-judges every recorded verdict from its snapshot (no fetch)
and prints the reproduction rate. Data is read from ../shared/eval at run time, never copied.

    python bench/audit_rejudge.py --data ../shared/eval/claims/healthver.jsonl.gz --limit 200
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from citation_verifier.audit.recorder import audit_db_url, snapshot_dir
from citation_verifier.audit.rejudge import rejudge, summarise
from citation_verifier.audit.snapshots import SnapshotStore
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.models import VerifyRequest
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier


def load_rows(path: Path, limit: int) -> list[tuple[str, str]]:
    """(claim, source_text) of the first ``limit`` rows that carry a source text."""
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row.get("source_text", "").strip() and row.get("claim", "").strip():
                rows.append((row["claim"], row["source_text"]))
            if len(rows) >= limit:
                break
    return rows


async def main(data: Path, limit: int, cache_dir: Path) -> None:
    """Verify, then re-judge, and print the numbers."""
    rows = load_rows(data, limit)
    settings = Settings(allow_private_urls=True, cache_dir=cache_dir)
    embedder = MiniLMEmbedder()
    routes = {
        f"/source/{i}": Page(text, content_type="text/plain; charset=utf-8")
        for i, (_, text) in enumerate(rows)
    }
    started = time.monotonic()
    with LoopbackSite(routes) as site:
        async with build_verifier(settings, embedder=embedder) as verifier:
            for i, (claim, _) in enumerate(rows):
                request = VerifyRequest(claim=claim, urls=[site.url(f"/source/{i}")])
                await verifier.verify(request)
    verified_s = time.monotonic() - started
    store = SqlAuditStore(audit_db_url(settings))
    snapshots = SnapshotStore(snapshot_dir(settings))
    records = list(store.iterate())
    started = time.monotonic()
    quiet = settings.model_copy(update={"audit_enabled": False})
    async with Verifier(quiet, embedder=embedder) as verifier:
        outcomes = [await rejudge(r, verifier, snapshots) for r in records]
    rejudged_s = time.monotonic() - started
    store.close()
    summary = summarise(outcomes)
    labels = Counter(r.label.value for r in records)
    print(f"data={data.name} rows={len(rows)} records={len(records)} labels={dict(labels)}")
    print(f"snapshots={sum(1 for _ in snapshots.ids())} verify_s={verified_s:.1f}")
    rate = "n/a" if summary.rate is None else f"{summary.rate:.4f}"
    print(
        f"rejudge_reproduced={rate} ({summary.reproduced}/{summary.rejudged}) "
        f"skipped={summary.skipped} rejudge_s={rejudged_s:.1f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(main(args.data, args.limit, Path(folder)))
