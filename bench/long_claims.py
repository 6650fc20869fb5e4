"""Long claims: verdicts and time of constructed ~5,000-character claims, judged part by part
(the shipped way, judge/parts.py) and whole (the inner judge alone, the checker truncating the
pair ``longest_first``).

A page of facts (one fact a paragraph, each among unrelated sentences) is served on 127.0.0.1.
Claims are built from the facts: all of them restated (supported); the same with one number
changed (contradicted expected); the same with one fact the page does not hold (not_found
expected). Default settings, JUDGE_PROVIDER=checker. Each part's own verdict is counted in the
verdict's detail ("claim judged in N parts (s supported, c contradicted, n not_found)").

    python bench/long_claims.py
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.judge.parts import claim_parts
from citation_verifier.judge.providers import build_judge
from citation_verifier.models import VerifyRequest
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

FACTS = (Path(__file__).with_name("long_claims_facts.txt")).read_text("utf-8").splitlines()
"""Unrelated facts, one a line: the page states each, the claims restate them."""
FILLER = (
    "Visitors often mention the friendly staff at the information centre. Parking is free on "
    "Sundays. Guided walks start from the town square at ten."
)


def page() -> str:
    """The page: every fact in its own paragraph between unrelated sentences."""
    body = "".join(f"<p>{FILLER}</p><p>{fact}</p>" for fact in FACTS)
    return f"<html><head><title>Towns</title></head><body><article>{body}</article></body></html>"


def claims() -> dict[str, tuple[str, str]]:
    """Name → (expected label, claim) of about 5,000 characters each."""
    changed = [*FACTS]
    changed[12] = changed[12].replace("2,000 metres", "3,500 metres")
    absent = [*FACTS[:-1], "Frome's town council opened a heated outdoor swimming pool in 1998."]
    return {
        "all facts restated": ("supported", " ".join(FACTS)),
        "one number changed": ("contradicted", " ".join(changed)),
        "one fact absent": ("not_found", " ".join(absent)),
    }


async def run(settings: Settings, url: str, whole: bool) -> None:
    embedder = MiniLMEmbedder()
    judge = build_judge(settings, embedder) if whole else None
    async with Verifier(settings, embedder=embedder, judge=judge) as verifier:
        await verifier.verify(VerifyRequest(claim="Warm-up claim.", urls=[url]))
        for name, (expected, claim) in claims().items():
            start = time.perf_counter()
            result = await verifier.verify(VerifyRequest(claim=claim, urls=[url]))
            took = time.perf_counter() - start
            verdict = result.citations[0]
            print(
                f"{'whole' if whole else 'parts':5} {name:20} chars={len(claim)} "
                f"parts={len(claim_parts(claim))} expected={expected:12} "
                f"got={verdict.label.value:12} conf={verdict.confidence:.2f} {took:.2f}s"
            )
            if verdict.detail:
                print(f"      {verdict.detail[: verdict.detail.find(')') + 1]}")


def main() -> None:
    settings = Settings(allow_private_urls=True, judge_provider="checker")
    with LoopbackSite({"/libraries": Page(page())}) as site:
        url = site.url("/libraries")
        for whole in (False, True):
            asyncio.run(run(settings, url, whole))


if __name__ == "__main__":
    main()
