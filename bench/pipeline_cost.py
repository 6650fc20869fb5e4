"""Per-citation CPU cost of extract + embed/retrieve + judge on a ~6,000-character page, and the
cold start of `citation-verifier verify`. Prints numbers; not a test.

    python bench/pipeline_cost.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.extract import html_to_markdown
from citation_verifier.judge.lexical import LexicalJudge
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder, top_passages
from citation_verifier.settings import Settings

FILLER = (
    "<p>Paragraph {i}: steam engines, pressure cookers and kettles all rely on the way water "
    "changes state when heated; engineers describe the process with tables of temperature and "
    "pressure collected over two centuries of careful laboratory measurement.</p>"
)
CLAIM = "Water boils at 100 degrees Celsius at sea level."


def six_thousand_char_page() -> str:
    """The demo article padded with related paragraphs to about 6,000 characters of text."""
    extra = "".join(FILLER.format(i=i) for i in range(22))
    return BOILING_HTML.replace("</article>", extra + "</article>")


def cpu_ms(fn: object, repeat: int) -> tuple[float, object]:
    assert callable(fn)
    samples = []
    result = None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        samples.append((time.process_time() - start) * 1000)
    return statistics.median(samples), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    settings = Settings()
    html = six_thousand_char_page()
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    judge = LexicalJudge(
        embedder,
        support_threshold=settings.lexical_judge_support_threshold,
        relevance_threshold=settings.lexical_judge_relevance_threshold,
    )
    html_to_markdown(html)

    extract_ms, text = cpu_ms(lambda: html_to_markdown(html), args.repeat)
    assert isinstance(text, str)
    passages = split_passages(text, settings.passage_max_words)
    embed_ms, best = cpu_ms(lambda: top_passages(CLAIM, passages, embedder, 3), args.repeat)
    assert isinstance(best, list)
    judge_ms, verdict = cpu_ms(lambda: judge.judge_sync(CLAIM, best), args.repeat)
    print(f"page text: {len(text)} chars, {len(passages)} passages; verdict: {verdict}")
    print(f"extract (trafilatura)      : {extract_ms:7.1f} ms CPU (median of {args.repeat})")
    print(f"passages + embed + top-3   : {embed_ms:7.1f} ms CPU")
    print(f"judge (local, incl. embed) : {judge_ms:7.1f} ms CPU")
    print(f"per citation               : {extract_ms + embed_ms + judge_ms:7.1f} ms CPU")

    with LoopbackSite({"/page": Page(html)}) as site:
        env = {**os.environ, "ALLOW_PRIVATE_URLS": "true"}
        walls = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "citation_verifier",
                    "verify",
                    "--json",
                    CLAIM,
                    site.url("/page"),
                ],
                check=True,
                capture_output=True,
                env=env,
            )
            walls.append(time.perf_counter() - start)
        print(
            f"cold start `verify` (wall) : {statistics.median(walls):7.2f} s (median, 3 processes)"
        )


if __name__ == "__main__":
    main()
