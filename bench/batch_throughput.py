"""Batch throughput benchmark (not a test): citations/s against concurrency.

A loopback site serves ``--pages`` article pages, each answering after ``--latency`` seconds; a
JSONL of ``--claims`` records cites them with reuse (each record cites ``--urls-per-claim``
pages drawn from a skewed distribution, so popular pages are cited many times). For each
concurrency the whole batch runs in a fresh process (clean peak RSS) through the real pipeline
(direct fetcher over real sockets, extraction, MiniLM retrieval, local judge, guard).

Printed per concurrency: citations/s; the ideal bound, which is the lower of
  latency-limited = citations / (ceil(unique URLs / concurrency) x latency)  and
  CPU-limited     = citations x cores / CPU seconds the run used;
the ratio of measured to ideal; fetches per unique URL (1.00 means perfect dedup); peak RSS;
and cpu-use, the share of the machine's cores the run got (CPU seconds / (wall x cores)): on a
shared machine a ratio well below 1 with low cpu-use means the run waited for CPU.

    python bench/batch_throughput.py --pages 100 --claims 400 --latency 0.2 \
        --concurrency 1 4 16 64 [--engine ray]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from citation_verifier.batch.checkpoint import Checkpoint
from citation_verifier.batch.engine import LocalRunner, Runner, run_batch
from citation_verifier.batch.records import read_input
from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.settings import Settings

_WORDS = [
    "river",
    "market",
    "bridge",
    "festival",
    "harbour",
    "museum",
    "library",
    "garden",
    "tower",
    "station",
    "square",
    "cathedral",
    "castle",
    "valley",
    "mountain",
    "forest",
    "island",
    "coast",
    "plain",
    "canal",
]


def page_html(n: int) -> str:
    """An article page about place ``n``: a few paragraphs, one checkable fact."""
    rng = random.Random(n)
    filler = [" ".join(rng.choice(_WORDS) for _ in range(40)).capitalize() + "." for _ in range(4)]
    paragraphs = "".join(f"<p>{text}</p>" for text in filler)
    return (
        f"<html><head><title>Place {n}</title></head><body><nav>Home | Places</nav><main>"
        f"<article><h1>Place {n}</h1><p>Place {n} has a population of {n * 1000 + 7} people "
        f"and lies beside the river.</p>{paragraphs}</article></main>"
        f"<footer>Example Atlas</footer></body></html>"
    )


def records(urls: list[str], claims: int, per_claim: int, seed: int = 7) -> list[dict[str, Any]]:
    """``claims`` records, each citing ``per_claim`` distinct URLs drawn with a skew (page i is
    picked with weight 1/(i+1)): heavy reuse of popular pages, a long tail of rare ones."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(urls))]
    out: list[dict[str, Any]] = []
    for r in range(claims):
        picked: list[int] = []
        while len(picked) < min(per_claim, len(urls)):
            i = rng.choices(range(len(urls)), weights)[0]
            if i not in picked:
                picked.append(i)
        fact = picked[0] * 1000 + 7 if r % 2 == 0 else 5
        out.append(
            {
                "id": f"c{r}",
                "claim": f"Place {picked[0]} has a population of {fact} people.",
                "urls": [urls[i] for i in picked],
            }
        )
    return out


async def _run(args: argparse.Namespace, concurrency: int) -> dict[str, Any]:
    settings = Settings(
        allow_private_urls=True,
        fetch_concurrency=concurrency,  # the process-wide fetch cap must not hide the batch's
        batch_per_host=concurrency,  # one loopback host: politeness would cap every run
        fetch_timeout_s=30,
    )
    pages = {f"/place/{n}": Page(page_html(n), delay_s=args.latency) for n in range(args.pages)}
    with LoopbackSite(pages) as site, tempfile.TemporaryDirectory() as folder:
        urls = [site.url(path) for path in pages]
        path = Path(folder) / "in.jsonl"
        data = records(urls, args.claims, args.urls_per_claim)
        path.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
        batch = read_input(path)
        unique = len({c.url for c in batch.citations})
        runner: Runner
        if args.engine == "ray":
            from citation_verifier.batch.ray_engine import RayRunner

            runner = RayRunner(settings)
        else:
            runner = LocalRunner(settings)
            # Load the model before the clock starts: the bench measures steady throughput.
            runner.embedder.embed(["warm up"])
        cpu_start = _cpu_seconds()
        start = time.perf_counter()
        try:
            outcome = await run_batch(
                batch,
                runner,
                Checkpoint(Path(folder) / "checkpoint.jsonl"),
                resume=False,
                concurrency=concurrency,
                per_host=concurrency,
            )
        finally:
            await runner.aclose()
        elapsed = time.perf_counter() - start
        cpu = _cpu_seconds() - cpu_start
        fetches = sum(site.hits.values())
    citations = outcome.summary.citations
    cores = len(os.sched_getaffinity(0))
    latency_bound = (
        citations / (math.ceil(unique / concurrency) * args.latency) if args.latency else math.inf
    )
    cpu_bound = citations * cores / cpu if cpu > 0 else math.inf
    return {
        "concurrency": concurrency,
        "citations": citations,
        "unique_urls": unique,
        "seconds": elapsed,
        "citations_per_s": citations / elapsed,
        "latency_bound": latency_bound,
        "cpu_bound": cpu_bound,
        "fetches_per_unique_url": fetches / unique,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "cpu_seconds": cpu,
        "cores": cores,
        "precision": outcome.summary.citation_precision,
    }


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _table(results: list[dict[str, Any]], args: argparse.Namespace) -> str:
    header = (
        f"pages={args.pages} claims={args.claims} urls/claim={args.urls_per_claim} "
        f"latency={args.latency * 1000:.0f}ms engine={args.engine} "
        f"cores={results[0]['cores'] if results else '?'}\n"
        f"{'conc':>5} {'cit/s':>8} {'ideal':>8} {'ratio':>6} {'lat-bound':>9} {'cpu-bound':>9} "
        f"{'fetch/url':>9} {'peakRSS':>9} {'secs':>7} {'cpu-use':>7}"
    )
    lines = [header]
    for r in results:
        ideal = min(r["latency_bound"], r["cpu_bound"])
        lines.append(
            f"{r['concurrency']:>5} {r['citations_per_s']:>8.1f} {ideal:>8.1f} "
            f"{r['citations_per_s'] / ideal:>6.2f} {r['latency_bound']:>9.1f} "
            f"{r['cpu_bound']:>9.1f} {r['fetches_per_unique_url']:>9.2f} "
            f"{r['peak_rss_mib']:>7.0f}Mi {r['seconds']:>7.1f} "
            f"{r['cpu_seconds'] / (r['seconds'] * r['cores']):>7.0%}"
        )
    return "\n".join(lines)


def main() -> None:
    """Run the benchmark and print the table (``--one N`` runs one concurrency, prints JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--claims", type=int, default=400)
    parser.add_argument("--urls-per-claim", type=int, default=2)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per page request")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--engine", choices=["local", "ray"], default="local")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(asyncio.run(_run(args, args.one))))
        return
    results = []
    for concurrency in args.concurrency:
        child = [sys.executable, __file__, *sys.argv[1:], "--one", str(concurrency)]
        done = subprocess.run(child, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"concurrency {concurrency} failed:\n{done.stderr}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(
            f"concurrency {concurrency}: {results[-1]['citations_per_s']:.1f} citations/s",
            file=sys.stderr,
        )
    print(_table(results, args))


if __name__ == "__main__":
    main()
