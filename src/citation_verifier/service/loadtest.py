"""A bounded load generator for ``POST /verify``: a fixed number of requests at a fixed
concurrency, every response checked against the VerifyResult schema. Used by the load test in
the suite and by ``bench/api_load.py``."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx
from pydantic import ValidationError

from citation_verifier.models import VerifyRequest, VerifyResult


@dataclass
class LoadReport:
    """What a load run saw."""

    requests: int
    concurrency: int
    wall_s: float
    latencies_s: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    invalid_bodies: int = 0
    transport_errors: list[str] = field(default_factory=list)

    def percentile(self, q: float) -> float:
        """Latency percentile ``q`` (0-100) in seconds, nearest-rank; 0 with no samples."""
        if not self.latencies_s:
            return 0.0
        ordered = sorted(self.latencies_s)
        rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
        return ordered[rank - 1]

    @property
    def server_errors(self) -> int:
        """Responses with a 5xx status."""
        return sum(n for status, n in self.statuses.items() if status >= 500)

    @property
    def answered(self) -> int:
        """Requests that got any HTTP response."""
        return sum(self.statuses.values())

    def summary(self) -> str:
        """One line: counts, p50/p95/max latency, throughput."""
        mean = statistics.fmean(self.latencies_s) if self.latencies_s else 0.0
        slowest = max(self.latencies_s, default=0.0)
        return (
            f"requests={self.requests} concurrency={self.concurrency} "
            f"answered={self.answered} statuses={dict(sorted(self.statuses.items()))} "
            f"5xx={self.server_errors} invalid={self.invalid_bodies} "
            f"lost={len(self.transport_errors)} p50={self.percentile(50) * 1000:.0f}ms "
            f"p95={self.percentile(95) * 1000:.0f}ms max={slowest * 1000:.0f}ms "
            f"mean={mean * 1000:.0f}ms throughput={self.answered / self.wall_s:.1f}/s"
        )


async def run_load(
    base_url: str,
    payloads: Sequence[VerifyRequest],
    *,
    requests: int = 200,
    concurrency: int = 20,
    timeout_s: float = 60.0,
) -> LoadReport:
    """Send ``requests`` POST /verify (cycling through ``payloads``) with ``concurrency``
    workers; every 200 body must parse as a VerifyResult for the same claim."""
    report = LoadReport(requests=requests, concurrency=concurrency, wall_s=0.0)
    queue: asyncio.Queue[VerifyRequest] = asyncio.Queue()
    for i in range(requests):
        queue.put_nowait(payloads[i % len(payloads)])
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async def worker(client: httpx.AsyncClient) -> None:
        while True:
            try:
                payload = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            started = time.perf_counter()
            try:
                response = await client.post("/verify", json=payload.model_dump())
            except httpx.HTTPError as error:
                report.transport_errors.append(f"{type(error).__name__}: {error}")
                continue
            report.latencies_s.append(time.perf_counter() - started)
            report.statuses[response.status_code] += 1
            if response.status_code == 200:
                try:
                    result = VerifyResult.model_validate_json(response.content)
                except ValidationError:
                    report.invalid_bodies += 1
                    continue
                if result.claim != payload.claim or len(result.citations) != len(payload.urls):
                    report.invalid_bodies += 1

    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=base_url, timeout=timeout_s, limits=limits) as client:
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
    report.wall_s = time.perf_counter() - started
    return report
