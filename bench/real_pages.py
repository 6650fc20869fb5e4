"""Claims made from real article pages, checked end to end (fetch → extract → … → guard).

The pages are the extraction benchmark's real HTML (``../shared/eval/extraction``: Mozilla's
Readability test pages and, for English pages, trafilatura's evaluation pages), served on
127.0.0.1. From each page's expected main text one claim-sized sentence is drawn (seeded), and
checked three ways against the page:

- the sentence verbatim: should be supported;
- one of its numbers changed (pages with a number in it): should not be supported;
- "not" added after its first auxiliary verb: should not be supported;
- one word swapped for its opposite ("increased" → "decreased"; the suite's edit list, not the
  checker's lexicon), one name swapped for a name from another page, or another page's sentence
  joined to it with ", and": should not be supported.

Every quote is also checked to be the page's own text: found in the page's visible text (after
the guard's whitespace and quote normalisation) and free of Markdown markers and HTML tags.
None of these pages or claims was used to build, train or tune the checker.

    python bench/real_pages.py --pages 160
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import random
import re
import time
from collections import Counter
from pathlib import Path

from citation_verifier.behaviour.edits import (
    change_number,
    names,
    negate,
    sentences,
    swap_antonym,
    swap_entity,
)
from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.extract import decode_body, html_to_full_text
from citation_verifier.models import Label
from citation_verifier.passages import normalise_for_quote
from citation_verifier.pipeline import build_verifier
from citation_verifier.settings import Settings

_ROOT = Path(__file__).resolve().parents[1]
EXTRACTION = _ROOT.parent / "shared" / "eval" / "extraction"
_MARKUP = re.compile(r"(^|\s)#{1,6}\s|\|\s|</?[a-z]+[^>]*>|\*\*|\]\(|^\s*[-*+]\s", re.M)
_ENGLISH = re.compile(r"\b(the|and|of|to|is|was|in)\b")


def english(text: str) -> bool:
    words = text.split()
    return bool(words) and len(_ENGLISH.findall(text.lower())) / len(words) > 0.08


def load_pages(limit: int, seed: int) -> list[tuple[str, str, str]]:
    """(id, html, sentence) for English pages with a usable sentence in their expected text."""
    rng = random.Random(seed)
    out = []
    for line in (EXTRACTION / "pages.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        text = row.get("expected_text") or ""
        if not english(text):
            continue
        found = [s for p in text.split("\n") for s in sentences(p)]
        if not found:
            continue
        html = decode_body(gzip.decompress((EXTRACTION / row["html_path"]).read_bytes()), None)
        out.append((row["id"], html, rng.choice(found)))
    rng.shuffle(out)
    return out[:limit]


def joined(sentence: str, other: str) -> str:
    """Another page's sentence joined to this one: the claim states more than the page."""
    return f"{sentence.rstrip('.!?')}, and {other[0].lower()}{other[1:]}"


async def main_async(limit: int, seed: int) -> None:
    pages = load_pages(limit, seed)
    rng = random.Random(seed)
    site = LoopbackSite({f"/{i}": Page(html) for i, (_, html, _) in enumerate(pages)}).start()
    settings = Settings(allow_private_urls=True, judge_provider="checker", audit_enabled=False)
    kinds = ("verbatim", "number", "negated", "antonym", "entity", "added")
    results: dict[str, Counter[str]] = {k: Counter() for k in kinds}
    more = random.Random(f"{seed}:more")  # the later edits' draws leave the first three's alone
    others = [sentence for _, _, sentence in pages]
    all_names = sorted({n for sentence in others for n in names(sentence)})
    bad_quotes: list[str] = []
    quotes = 0
    seconds: list[float] = []
    try:
        async with build_verifier(settings) as verifier:
            for i, (page_id, html, sentence) in enumerate(pages):
                visible = normalise_for_quote(html_to_full_text(html))
                claims = {
                    "verbatim": sentence,
                    "number": change_number(sentence, sentence, rng),
                    "negated": negate(sentence),
                    "antonym": swap_antonym(sentence),
                    "entity": swap_entity(sentence, all_names, more),
                    "added": joined(sentence, others[(i + 1) % len(others)]),
                }
                for kind, claim in claims.items():
                    if claim is None:
                        continue
                    start = time.perf_counter()
                    verdict = await verifier.verify_url(claim, site.url(f"/{i}"))
                    seconds.append(time.perf_counter() - start)
                    results[kind][verdict.label.value] += 1
                    if verdict.evidence_quote:
                        quotes += 1
                        quote = normalise_for_quote(verdict.evidence_quote)
                        if quote not in visible or _MARKUP.search(verdict.evidence_quote):
                            bad_quotes.append(f"{page_id}: {verdict.evidence_quote[:120]!r}")
    finally:
        site.stop()
    print(f"pages: {len(pages)}")
    for kind, counts in results.items():
        n = sum(counts.values())
        supported = counts[Label.SUPPORTED.value]
        rate = supported / n if kind == "verbatim" else (n - supported) / n
        goal = "supported" if kind == "verbatim" else "not supported"
        print(f"{kind}: n={n} {goal} {rate:.3f} ({dict(counts)})")
    print(f"quotes: {quotes}, not the page's own text: {len(bad_quotes)}")
    for line in bad_quotes[:20]:
        print("  ", line)
    seconds.sort()
    print(f"median s per citation: {seconds[len(seconds) // 2]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=160)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    asyncio.run(main_async(args.pages, args.seed))


if __name__ == "__main__":
    main()
