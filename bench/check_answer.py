"""Benchmark of ``check-answer``: a 10-statement answer citing 5 loopback pages (each page cited
by two statements), checked through the real pipeline on the embedded defaults. Prints the parse
time, the in-process check time (fresh verifier each run, models already loaded) and the
end-to-end time of the ``citation-verifier check-answer`` command (process start and model
loading included).

    python bench/check_answer.py --runs 5 [--judge checker|lexical|local]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citation_verifier.answers.check import check_statements
from citation_verifier.answers.parse import parse_answer
from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.reuse.embeddings import CachingEmbedder
from citation_verifier.settings import Settings

FACTS = {
    "water": (
        "Water boils at 100 degrees Celsius at sea level.",
        "At higher altitudes water boils at a lower temperature because air pressure is lower.",
    ),
    "tower": (
        "The Eiffel Tower in Paris is about 330 metres tall.",
        "The tower was completed in 1889 for the World's Fair.",
    ),
    "everest": (
        "Mount Everest is 8,849 metres tall according to the 2020 survey.",
        "Tenzing Norgay and Edmund Hillary first reached the summit in 1953.",
    ),
    "moon": (
        "The Moon is about 384,400 kilometres from Earth on average.",
        "The same side of the Moon always faces Earth because of tidal locking.",
    ),
    "amazon": (
        "The Amazon River carries more water than any other river on Earth.",
        "Its basin covers about seven million square kilometres.",
    ),
}
FILLER = " ".join(f"Background sentence number {n} about unrelated matters." for n in range(60))


def page(topic: str) -> Page:
    first, second = FACTS[topic]
    return Page(
        f"<html><head><title>{topic}</title></head><body><article><h1>{topic}</h1>"
        f"<p>{FILLER}</p><p>{first}</p><p>{FILLER}</p><p>{second}</p></article></body></html>"
    )


def answer(site: LoopbackSite) -> str:
    """Ten statements, two per page, markers [1]–[5], and a Sources list."""
    topics = list(FACTS)
    lines = [f"{sentence[:-1]} [{n}]." for n, t in enumerate(topics, 1) for sentence in FACTS[t]]
    sources = "\n".join(f"[{n}] {site.url('/' + t)}" for n, t in enumerate(topics, 1))
    return " ".join(lines) + "\n\nSources:\n" + sources + "\n"


def main() -> None:
    """Run the benchmark with the command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--judge", default="checker", help="JUDGE_PROVIDER (default: checker)")
    args = parser.parse_args()
    settings = Settings(
        allow_private_urls=True, fetcher="direct", judge_provider=args.judge, audit_enabled=False
    )
    # As check-answer does: a page cited by two statements has its passages embedded once.
    embedder = CachingEmbedder(MiniLMEmbedder())
    with LoopbackSite({f"/{t}": page(t) for t in FACTS}) as site:
        text = answer(site)
        started = time.perf_counter()
        statements = parse_answer(text)
        parse_ms = (time.perf_counter() - started) * 1000
        urls = {url for s in statements for url in s.urls}
        print(f"answer: {len(statements)} statements citing {len(urls)} pages; judge {args.judge}")
        print(f"parse: {parse_ms:.2f} ms")

        async def once() -> float:
            embedder.clear()  # each run starts cold, as one check-answer command does
            async with build_verifier(settings, embedder=embedder) as verifier:
                began = time.perf_counter()
                result = await check_statements(verifier, statements)
                elapsed = time.perf_counter() - began
            assert result.unique_urls == 5 and result.citations == 10, result
            return elapsed

        asyncio.run(once())  # warm-up: the judge's model is loaded once per process
        times = [asyncio.run(once()) for _ in range(args.runs)]
        print(
            f"check (in process, warm): median {statistics.median(times) * 1000:.0f} ms, "
            f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms over {args.runs} runs"
        )
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "answer.md"
            path.write_text(text, encoding="utf-8")
            env = {
                **os.environ,
                "ALLOW_PRIVATE_URLS": "true",
                "AUDIT_ENABLED": "false",
                "JUDGE_PROVIDER": args.judge,
                "FETCHER": "direct",
            }
            began = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "citation_verifier", "check-answer", "--json", str(path)],
                capture_output=True,
                env=env,
                check=False,
            )
            elapsed = time.perf_counter() - began
        if done.returncode != 0:
            sys.exit(f"check-answer failed: {done.stderr.decode(errors='replace')}")
        print(f"check-answer command (cold process, models loaded): {elapsed * 1000:.0f} ms")


if __name__ == "__main__":
    main()
