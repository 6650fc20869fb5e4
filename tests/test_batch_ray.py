"""``--engine ray`` in Ray local mode (``ray.init(num_cpus=2)``): the same report as the local
engine, and the same resume semantics. Skipped only when ray is not installed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from batch_fixture import article_routes, city_page, city_records, write_jsonl, write_records
from batch_helpers import score, stable_csv
from citation_verifier.batch.checkpoint import Checkpoint, ResultRow
from citation_verifier.batch.engine import LocalRunner, run_batch
from citation_verifier.batch.records import read_input
from citation_verifier.batch.reports import csv_text
from citation_verifier.batch.summary import summary_lines
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings

pytest.importorskip("ray")

from citation_verifier.batch.ray_engine import RayRunner

Serve = Callable[[Mapping[str, Route]], LoopbackSite]


async def test_ray_engine_gives_the_local_engines_report_and_resumes_the_same_way(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({**article_routes(), **{f"/city/{n}": Page(city_page(n)) for n in range(4)}})
    article = write_records(tmp_path / "article.jsonl", site)
    records = city_records(site, 4)
    cities = write_jsonl(tmp_path / "cities.jsonl", records)
    local_article = await score(
        article, tmp_path / "a.jsonl", LocalRunner(settings, embedder=embedder)
    )
    local_cities = await score(
        cities, tmp_path / "c.jsonl", LocalRunner(settings, embedder=embedder)
    )
    # A stopped earlier run: the first four records are finished.
    checkpoint = tmp_path / "ray-cities.jsonl"
    await score(
        write_jsonl(tmp_path / "part.jsonl", records[:4]),
        checkpoint,
        LocalRunner(settings, embedder=embedder),
    )
    hits_before = dict(site.hits)

    runner = RayRunner(settings, num_cpus=2)  # one local Ray for both batches
    try:
        assert runner.actors == 2
        ray_article = await run_batch(
            read_input(article),
            runner,
            Checkpoint(tmp_path / "ray-a.jsonl"),
            resume=False,
            concurrency=4,
            per_host=4,
        )
        resumed = await run_batch(
            read_input(cities),
            runner,
            Checkpoint(checkpoint),
            resume=True,
            concurrency=4,
            per_host=4,
        )
    finally:
        await runner.aclose()
    lines = summary_lines(ray_article.summary)
    assert lines[:2] == ["citation_precision=0.2222 (2/9)", "reachable_precision=0.3333 (2/6)"]
    assert stable_csv(csv_text(ray_article.rows)) == stable_csv(csv_text(local_article.rows))
    assert (resumed.reused, resumed.scored) == (6, 6)
    assert stable_csv(csv_text(resumed.rows)) == stable_csv(csv_text(local_cities.rows))
    assert site.hits["/city/1"] == hits_before["/city/1"]  # finished: not loaded again
    keys = [ResultRow.model_validate_json(line).key for line in checkpoint.open()]
    assert len(keys) == len(set(keys)) == 12
