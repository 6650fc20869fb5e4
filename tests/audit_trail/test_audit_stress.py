"""Everything that writes or reads the audit store at once, on SQLite and PostgreSQL: several
verifiers in this process (each with its own auditor, all on one database), the service under
load, a batch in another process and ``audit list`` read again and again. No record is lost,
nothing crashes, every verdict's ``audit_id`` names a stored record."""

from __future__ import annotations

import asyncio
import csv
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx

from batch_fixture import city_page, write_jsonl
from citation_verifier.audit.store import SqlAuditStore
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.models import VerifyRequest, VerifyResult
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings

CITIES = 12
VERIFIERS = 4  # in this process, sharing one database
PER_VERIFIER = 24  # concurrent verifications each
SERVICE_REQUESTS = 48  # two citations each
SERVICE_CONCURRENCY = 12
BATCH_RECORDS = 24  # one citation each


def _claim(n: int) -> str:
    return f"City {n} has a population of {n * 1000} people."


async def _in_process(
    settings: Settings, site: LoopbackSite, embedder: MiniLMEmbedder
) -> list[str | None]:
    async def one(worker: int) -> list[str | None]:
        async with build_verifier(settings, embedder=embedder) as verifier:
            results = await asyncio.gather(
                *(
                    verifier.verify_url(_claim(n % CITIES), site.url(f"/city/{n % CITIES}"))
                    for n in range(worker, worker + PER_VERIFIER)
                )
            )
        return [r.audit_id for r in results]

    ids = await asyncio.gather(*(one(w) for w in range(VERIFIERS)))
    return [i for chunk in ids for i in chunk]


async def _service_load(base: str, site: LoopbackSite) -> list[str | None]:
    slots = asyncio.Semaphore(SERVICE_CONCURRENCY)

    async def one(client: httpx.AsyncClient, n: int) -> list[str | None]:
        request = VerifyRequest(
            claim=_claim(n % CITIES),
            urls=[site.url(f"/city/{n % CITIES}"), site.url(f"/city/{(n + 1) % CITIES}")],
        )
        async with slots:
            response = await client.post(f"{base}/verify", json=request.model_dump(), timeout=120)
        assert response.status_code == 200, response.text
        return [c.audit_id for c in VerifyResult.model_validate(response.json()).citations]

    async with httpx.AsyncClient() as client:
        ids = await asyncio.gather(*(one(client, n) for n in range(SERVICE_REQUESTS)))
    return [i for chunk in ids for i in chunk]


async def _cli(env: dict[str, str], *args: str) -> None:
    """``citation-verifier ARGS`` in a child process; it must succeed without a traceback."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "citation_verifier", *args),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await process.communicate()
    assert process.returncode == 0 and b"Traceback" not in err, err.decode()


async def _audit_list_until(done: asyncio.Event, env: dict[str, str]) -> int:
    """``audit list`` in a loop until ``done``; returns how many runs, each of which succeeded."""
    runs = 0
    while not done.is_set():
        await _cli(env, "audit", "list", "--json", "--limit", "20")
        runs += 1
    return runs


async def _batch(inputs: Path, report: Path, env: dict[str, str]) -> None:
    await _cli(env, "batch", str(inputs), "--out", str(report), "--quiet", "--concurrency", "8")


async def _all_at_once(
    settings: Settings, site: LoopbackSite, embedder: MiniLMEmbedder, tmp_path: Path
) -> tuple[list[str | None], int]:
    env = {
        **os.environ,
        "ALLOW_PRIVATE_URLS": "true",
        "CACHE_DIR": str(settings.cache_dir),
        "AUDIT_DB_URL": settings.audit_db_url.get_secret_value() if settings.audit_db_url else "",
    }
    # Distinct (claim, URL) pairs: a batch judges a repeated pair once, under one record.
    records: list[dict[str, object]] = [
        {"id": f"b{n}", "claim": _claim(n), "urls": [site.url(f"/city/{n % CITIES}")]}
        for n in range(BATCH_RECORDS)
    ]
    inputs = write_jsonl(tmp_path / "in.jsonl", records)
    report = tmp_path / "report.csv"
    done = asyncio.Event()
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        lister = asyncio.create_task(_audit_list_until(done, env))
        try:
            batch_task = asyncio.create_task(_batch(inputs, report, env))
            local, served = await asyncio.gather(
                _in_process(settings, site, embedder), _service_load(service.url, site)
            )
            await batch_task
        finally:
            done.set()
            lists = await lister
    with report.open(encoding="utf-8") as rows:
        batched = [row["audit_id"] or None for row in csv.DictReader(rows)]
    assert len(batched) == BATCH_RECORDS
    return [*local, *served, *batched], lists


def test_verifiers_service_batch_and_audit_list_at_once_lose_no_record(
    store_url: str,
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
    embedder: MiniLMEmbedder,
    tmp_path: Path,
) -> None:
    site = serve({f"/city/{n}": Page(city_page(n)) for n in range(CITIES)})
    settings = Settings(
        allow_private_urls=True,
        fetch_timeout_s=10.0,
        cache_dir=tmp_path,
        audit_db_url=store_url,
    )
    ids, lists = asyncio.run(_all_at_once(settings, site, embedder, tmp_path))
    expected = VERIFIERS * PER_VERIFIER + 2 * SERVICE_REQUESTS + BATCH_RECORDS
    assert len(ids) == expected and None not in ids
    assert len(set(ids)) == expected  # one record per verdict, none shared
    assert lists >= 1
    store = SqlAuditStore(store_url)
    try:
        assert store.count() == expected
        assert {r.id for r in store.iterate()} == set(ids)
    finally:
        store.close()
