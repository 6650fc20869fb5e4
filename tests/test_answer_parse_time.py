"""Parsing an answer takes linear time, whatever brackets, backticks and full stops it holds:
``"[" + "a" * 19999`` took 1.4 s (quadratic), and ten of them froze the service's /health.

Growth is judged by the ratio of two sizes rather than a wall-clock bound, so a loaded CI machine
slows both sides alike: four times the text takes about four times as long when linear, sixteen
times when quadratic."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from citation_verifier.answers.parse import parse_answer
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings

SIZE = 10_000
GROWTH = 4
HOSTILE: dict[str, Callable[[int], str]] = {
    "unclosed reference": lambda size: "[" + "a" * (size - 1),
    "unclosed footnotes": lambda size: "[^" * (size // 2),
    "unclosed images": lambda size: "![" * (size // 2),
    "brackets": lambda size: "[" * size,
    "bracketed words": lambda size: "[a" * (size // 2),
    "numbers": lambda size: "[1" * (size // 2),
    "reference pairs": lambda size: "[a][" * (size // 4),
    "link openers": lambda size: "[x](" * (size // 4),
    "backticks": lambda size: "`a" * (size // 2),
    "short sentences": lambda size: "A b. " * (size // 5),
    "abbreviations": lambda size: "Dr. x " * (size // 6),
}


def _best_time(answer: str) -> float:
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        parse_answer(answer)
        timings.append(time.perf_counter() - started)
    return min(timings)


@pytest.mark.parametrize("answer", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_answer_parses_in_linear_time(answer: Callable[[int], str]) -> None:
    small, large = _best_time(answer(SIZE)), _best_time(answer(SIZE * GROWTH))
    assert large / small < 2 * GROWTH, (small, large)  # quadratic: GROWTH ** 2


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
    # Frozen, it answered after the ten parses (~14 s); 2 s leaves room for a loaded machine.
    assert max(latencies) < 2.0, latencies
