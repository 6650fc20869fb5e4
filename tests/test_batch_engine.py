"""The batch driver against real loopback sites: dedup, concurrency, politeness, resume."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from batch_fixture import article_routes, city_page, city_records, write_jsonl, write_records
from batch_helpers import CountingEmbedder, counting_runner, score, stable_csv
from citation_verifier.batch.checkpoint import Checkpoint, ResultRow
from citation_verifier.batch.engine import LocalRunner, Runner, UrlJob
from citation_verifier.batch.reports import csv_text
from citation_verifier.batch.summary import summary_lines
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.errors import ConfigurationError
from citation_verifier.models import UrlVerdict
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]


async def test_article_fixture_scores_two_of_nine_and_two_of_six(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(article_routes())
    inputs = write_records(tmp_path / "in.jsonl", site)
    outcome = await score(inputs, tmp_path / "cp.jsonl", LocalRunner(settings, embedder=embedder))
    lines = summary_lines(outcome.summary)
    assert lines[:2] == ["citation_precision=0.2222 (2/9)", "reachable_precision=0.3333 (2/6)"]
    assert [r.verdict.label.value for r in outcome.rows] == [
        "supported",
        "unreachable",
        "contradicted",
        "supported",
        "unreachable",
        "not_found",
        "not_found",
        "unreachable",
        "not_found",
    ]


async def test_each_unique_url_is_fetched_once_and_its_passages_embedded_once(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({f"/city/{n}": Page(city_page(n)) for n in range(4)})
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 4))
    counting = CountingEmbedder(embedder)
    runner, judge = counting_runner(settings, counting)
    outcome = await score(inputs, tmp_path / "cp.jsonl", runner, concurrency=3)
    assert outcome.summary.citations == 12  # 4 cities x (2 + 1) citations
    assert site.hits == {f"/city/{n}": 1 for n in range(4)}
    assert outcome.jobs == 4
    # Every distinct (URL, claim) pair judged exactly once.
    assert len(judge.claims) == 12
    # Each page is one passage ("City n\n\n..."), embedded once although 3 claims cite it.
    page_passages = [text for text in counting.texts if text.startswith("City 0\n")]
    assert len(page_passages) == 1
    page_texts = [t for t in counting.texts if t.startswith("City") and "\n" in t]
    assert len(page_texts) == len(set(page_texts))


def _tracking_site(serve: Serve, pages: int, delay_s: float) -> tuple[LoopbackSite, list[int]]:
    """A site whose pages answer after ``delay_s``; records the most requests in flight."""
    lock = threading.Lock()
    state = {"now": 0}
    peak = [0]

    def handler(n: int) -> Callable[[BaseHTTPRequestHandler], None]:
        def handle(request: BaseHTTPRequestHandler) -> None:
            with lock:
                state["now"] += 1
                peak[0] = max(peak[0], state["now"])
            time.sleep(delay_s)
            with lock:
                state["now"] -= 1
            body = city_page(n).encode()
            request.send_response(200)
            request.send_header("Content-Type", "text/html; charset=utf-8")
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            request.wfile.write(body)

        return handle

    return serve({f"/city/{n}": handler(n) for n in range(pages)}), peak


async def test_concurrency_bounds_urls_in_flight(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site, peak = _tracking_site(serve, pages=8, delay_s=0.15)
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 8))
    runner = LocalRunner(settings, embedder=embedder)
    await score(inputs, tmp_path / "cp.jsonl", runner, concurrency=3, per_host=50)
    assert peak[0] == 3


async def test_per_host_limit_caps_loads_on_one_host(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site, peak = _tracking_site(serve, pages=8, delay_s=0.15)
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 8))
    runner = LocalRunner(settings, embedder=embedder)
    await score(inputs, tmp_path / "cp.jsonl", runner, concurrency=8, per_host=2)
    assert peak[0] == 2


async def test_resume_reuses_finished_citations_and_scores_only_the_rest(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({f"/city/{n}": Page(city_page(n)) for n in range(4)})
    records = city_records(site, 4)
    inputs = write_jsonl(tmp_path / "in.jsonl", records)
    full = await score(inputs, tmp_path / "full.jsonl", LocalRunner(settings, embedder=embedder))
    # A first run that only got through the first four records (as if it had been stopped).
    partial = write_jsonl(tmp_path / "part.jsonl", records[:4])
    checkpoint = tmp_path / "cp.jsonl"
    await score(partial, checkpoint, LocalRunner(settings, embedder=embedder))
    with checkpoint.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "torn", "ind')  # a kill in the middle of a write
    hits_before = dict(site.hits)
    runner, judge = counting_runner(settings, embedder)
    resumed = await score(inputs, checkpoint, runner, resume=True)
    assert resumed.reused == 6 and resumed.scored == 6
    assert len(judge.claims) == 6
    assert stable_csv(csv_text(resumed.rows)) == stable_csv(csv_text(full.rows))
    keys = [ResultRow.model_validate_json(line).key for line in checkpoint.read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 12
    # /city/1 is cited only by the first four records: finished, so not fetched again.
    assert site.hits["/city/1"] == hits_before["/city/1"]


async def test_resume_drops_checkpoint_rows_the_edited_input_no_longer_has(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({f"/city/{n}": Page(city_page(n)) for n in range(2)})
    records = city_records(site, 2)
    checkpoint = tmp_path / "cp.jsonl"
    await score(
        write_jsonl(tmp_path / "a.jsonl", records),
        checkpoint,
        LocalRunner(settings, embedder=embedder),
    )
    records[0]["claim"] = "City 0 has a population of 9 people."
    runner, judge = counting_runner(settings, embedder)
    resumed = await score(
        write_jsonl(tmp_path / "b.jsonl", records[:2]), checkpoint, runner, resume=True
    )
    assert judge.claims == ["City 0 has a population of 9 people."] * 2
    assert resumed.reused == 1  # f0 kept; both t0 citations re-scored for the new claim
    assert len(checkpoint.read_text().splitlines()) == 3
    assert Checkpoint(checkpoint).read().keys() == {r.key for r in resumed.rows}


class _PaidRunner(Runner):
    """The local engine with a paid backend's accounting: each load costs 2 credits."""

    def __init__(self, inner: LocalRunner) -> None:
        self.inner = inner

    async def run(
        self, job: UrlJob, host_slot: AbstractAsyncContextManager[object]
    ) -> list[UrlVerdict]:
        verdicts = await self.inner.run(job, host_slot)
        return [v.model_copy(update={"credits": 2.0}) for v in verdicts]

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_page_cited_many_times_is_paid_once_in_the_report(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({f"/city/{n}": Page(city_page(n)) for n in range(3)})
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 3))
    runner = _PaidRunner(LocalRunner(settings, embedder=embedder))
    outcome = await score(inputs, tmp_path / "cp.jsonl", runner)
    assert outcome.summary.credits == 6.0  # 3 unique pages x 2 credits, not 9 citations x 2
    assert sum(1 for r in outcome.rows if r.verdict.credits) == 3


class _RejectingRunner(Runner):
    """The local engine behind a backend that rejects its token from the third URL on."""

    def __init__(self, inner: LocalRunner) -> None:
        self.inner = inner
        self.calls = 0

    async def run(
        self, job: UrlJob, host_slot: AbstractAsyncContextManager[object]
    ) -> list[UrlVerdict]:
        self.calls += 1
        if self.calls >= 3:
            raise ConfigurationError("CRAWLBASE_TOKEN was rejected (HTTP 401)")
        return await self.inner.run(job, host_slot)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_configuration_error_stops_the_batch_and_keeps_finished_rows(
    tmp_path: Path, serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({f"/city/{n}": Page(city_page(n)) for n in range(4)})
    inputs = write_jsonl(tmp_path / "in.jsonl", city_records(site, 4))
    checkpoint = tmp_path / "cp.jsonl"
    runner = _RejectingRunner(LocalRunner(settings, embedder=embedder))
    with pytest.raises(ConfigurationError, match="CRAWLBASE_TOKEN"):
        await score(inputs, checkpoint, runner, concurrency=1)
    finished = Checkpoint(checkpoint).read()
    assert len(finished) == len(checkpoint.read_text().splitlines()) > 0
    resumed = await score(inputs, checkpoint, LocalRunner(settings, embedder=embedder), resume=True)
    assert resumed.reused == len(finished) and len(resumed.rows) == 12
