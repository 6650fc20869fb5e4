"""Parsing an answer takes linear time, whatever brackets, backticks and full stops it holds:
``"[" + "a" * 19999`` took 1.4 s (quadratic), and ten of them froze the service's /health."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest

from citation_verifier.answers.parse import parse_answer
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings

SIZE = 40_000
HOSTILE = {
    "unclosed reference": "[" + "a" * (SIZE - 1),
    "unclosed footnotes": "[^" * (SIZE // 2),
    "unclosed images": "![" * (SIZE // 2),
    "brackets": "[" * SIZE,
    "bracketed words": "[a" * (SIZE // 2),
    "numbers": "[1" * (SIZE // 2),
    "reference pairs": "[a][" * (SIZE // 4),
    "link openers": "[x](" * (SIZE // 4),
    "backticks": "`a" * (SIZE // 2),
    "short sentences": "A b. " * (SIZE // 5),
    "abbreviations": "Dr. x " * (SIZE // 6),
}


@pytest.mark.parametrize("answer", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_answer_parses_in_linear_time(answer: str) -> None:
    started = time.perf_counter()
    parse_answer(answer)
    assert time.perf_counter() - started < 1.0  # quadratic took 2-8 s at this size


@pytest.fixture(scope="module")
def service(embedder: MiniLMEmbedder) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_app(Settings(), embedder=embedder)) as server:
        yield server


async def test_health_answers_while_hostile_answers_are_checked(
    service: BackgroundServer,
) -> None:
    answer = "[" + "a" * 19_999  # SERVICE_MAX_ANSWER_CHARS

    async def check(client: httpx.AsyncClient) -> int:
        response = await client.post("/check-answer", json={"answer": answer})
        return response.status_code

    async with httpx.AsyncClient(base_url=service.url, timeout=60) as client:
        checks = [asyncio.create_task(check(client)) for _ in range(10)]
        latencies = []
        while not all(task.done() for task in checks):
            started = time.perf_counter()
            assert (await client.get("/health")).status_code == 200
            latencies.append(time.perf_counter() - started)
            await asyncio.sleep(0.05)
        statuses = await asyncio.gather(*checks)
    assert set(statuses) <= {200, 429}
    assert max(latencies) < 0.5, latencies
