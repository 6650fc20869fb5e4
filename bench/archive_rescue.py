"""Benchmark of the archive fallback: dead citations (404 on a loopback site) whose captures a
loopback Wayback Machine holds, verified with ``ARCHIVE_FALLBACK=never`` and ``dead``. Prints
the added time per dead citation, the archive requests per rescued citation (target: at most 2,
an availability lookup and the raw capture) and what a second pass on the same day costs (the
lookups come from the cache: 0 requests).

    python bench/archive_rescue.py --citations 20
"""

from __future__ import annotations

import argparse
import asyncio
import time

from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.models import VerifyRequest
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

CLAIM = "Water boils at 100 degrees Celsius at sea level."


def main() -> None:
    """Run the benchmark with the command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--citations", type=int, default=20)
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    paths = [f"/dead/{n}" for n in range(args.citations)]
    dead = {path: Page("<html><body>Not Found</body></html>", status=404) for path in paths}
    with LoopbackSite(dead) as site, FakeArchive() as archive:
        urls = [site.url(path) for path in paths]
        for url in urls:
            archive.add(url, "20210215120000", BOILING_HTML)
        base = Settings(
            allow_private_urls=True,
            fetcher="direct",
            judge_provider="lexical",
            audit_enabled=False,
            archive_url=archive.base_url,
            archive_private_urls=True,
        )

        async def run(fallback: str, passes: int) -> list[tuple[float, int, int]]:
            settings = base.model_copy(update={"archive_fallback": fallback})
            out = []
            async with Verifier(settings, embedder=embedder) as verifier:
                for _ in range(passes):
                    before = len(archive.requests)
                    started = time.perf_counter()
                    result = await verifier.verify(
                        VerifyRequest(claim=CLAIM, urls=urls, cited_at="2021-03-01")
                    )
                    elapsed = time.perf_counter() - started
                    rescued = sum(c.reason == "archived_copy" for c in result.citations)
                    out.append((elapsed, rescued, len(archive.requests) - before))
            return out

        [(never_s, _, _)] = asyncio.run(run("never", 1))
        (first_s, rescued, first_requests), (second_s, _, second_requests) = asyncio.run(
            run("dead", 2)
        )
        lookups_second = (
            sum(r.startswith("/wayback/available") for r in archive.requests[-second_requests:])
            if second_requests
            else 0
        )
    n = args.citations
    print(f"dead citations: {n}; rescued: {rescued}")
    print(f"ARCHIVE_FALLBACK=never: {never_s * 1000 / n:.1f} ms per dead citation")
    print(
        f"ARCHIVE_FALLBACK=dead:  {first_s * 1000 / n:.1f} ms per dead citation "
        f"(+{(first_s - never_s) * 1000 / n:.1f} ms for the rescue and judging the capture)"
    )
    print(f"archive requests per rescued citation: {first_requests / max(rescued, 1):.2f}")
    print(
        f"second pass, same day: {second_s * 1000 / n:.1f} ms per citation, "
        f"{lookups_second} availability lookups sent (cached), "
        f"{second_requests} archive requests in all (the captures)"
    )


if __name__ == "__main__":
    main()
