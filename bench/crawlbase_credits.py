"""Credits per citation of every Crawlbase decision branch, md vs html mode, measured on the
loopback fake API and fixture site of the test suite (the same branches the tests assert).

    python bench/crawlbase_credits.py          # prints a Markdown table
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.retrieve import MiniLMEmbedder
from fake_crawlbase import FakeCrawlbase, origin_site
from test_crawlbase_verdicts import BRANCHES, _verify


async def _row(
    name: str, origin: LoopbackSite, embedder: MiniLMEmbedder, totals: dict[str, float]
) -> str:
    cells = [name]
    for fmt in ("md", "html"):
        with FakeCrawlbase() as fake:
            verdict = await _verify(fake, origin, embedder, BRANCHES[name], fmt)
            billed = fake.charged
        kinds = "+".join(
            f"{a.token}{'' if a.readability or fmt == 'html' else '/full'}:{a.http_status}"
            for a in verdict.attempts
        )
        cells += [f"{verdict.label.value} {verdict.reason or ''}".strip(), kinds]
        cells.append(f"{verdict.credits:g}" + ("" if billed == verdict.credits else " (!)"))
        totals[fmt] = totals.get(fmt, 0.0) + verdict.credits
    return "| " + " | ".join(cells) + " |"


async def main() -> None:
    """Run every branch in both modes and print one table row per branch."""
    embedder = MiniLMEmbedder()
    print(
        "| branch | md verdict | md requests | md credits | html verdict | html requests "
        "| html credits |"
    )
    print("|---|---|---|---|---|---|---|")
    with origin_site() as origin:
        totals: dict[str, float] = {}
        for name in BRANCHES:
            print(await _row(name, origin, embedder, totals))
    print(f"| total | | | {totals['md']:g} | | | {totals['html']:g} |")


if __name__ == "__main__":
    asyncio.run(main())
