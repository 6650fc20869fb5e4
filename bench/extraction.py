"""Extraction quality on the shared extraction set (``../shared/eval/extraction/``: HTML pages
with the text a reader sees, from public extraction benchmarks).

For every page the local reading path runs (``html_to_markdown`` → ``page_text``, the whole
page's text when that is thin, as ``fetch/reading.local_text`` does). Pages with an expected text
(Mozilla Readability's test pages) are scored by bag-of-words precision, recall and F1
(lower-cased word tokens; the measure of the article-extraction benchmarks); pages with snippets
(trafilatura's evaluation set) by the share of ``must_contain`` snippets found and of
``must_not_contain`` snippets absent (whitespace collapsed on both sides). It also counts the
pages whose text still holds Markdown or HTML markup a quote must never carry: heading markers,
list bullets, table pipes and separator rows, blockquote markers, link brackets, HTML tags.

    python bench/extraction.py [--limit N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import time
from collections import Counter
from pathlib import Path

from citation_verifier import extract
from citation_verifier.settings import Settings

SET = Path(__file__).resolve().parents[2] / "shared" / "eval" / "extraction"
_WORD = re.compile(r"\w+")
MARKUP = {
    "heading": re.compile(r"^ {0,3}#{1,6}[ \t]", re.M),
    "bullet": re.compile(r"^[ \t]*[-*+][ \t]+\S", re.M),
    "table pipe": re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.M),
    "separator row": re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*\|", re.M),
    "blockquote": re.compile(r"^ {0,3}>[ \t]", re.M),
    "link": re.compile(r"!?\[[^\]\n]*\]\([^)\n]*\)"),
    "html tag": re.compile(r"</?(?:[a-z][a-z0-9]*)(?:\s[^<>\n]*)?/?>", re.I),
}


def page_text_of(html: str, url: str | None, min_chars: int) -> str:
    """The text the local reading path gives for ``html``."""
    text = extract.html_to_markdown(html, url)
    if extract.visible_chars(text) >= min_chars:
        return text
    return extract.html_to_full_text(html)


def f1(extracted: str, expected: str) -> tuple[float, float, float]:
    """Bag-of-words precision, recall and F1 of ``extracted`` against ``expected``."""
    got = Counter(w.lower() for w in _WORD.findall(extracted))
    want = Counter(w.lower() for w in _WORD.findall(expected))
    common = sum((got & want).values())
    if not got or not want:
        return (1.0, 1.0, 1.0) if got == want else (0.0, 0.0, 0.0)
    precision, recall = common / sum(got.values()), common / sum(want.values())
    return precision, recall, (2 * precision * recall / (precision + recall) if common else 0.0)


def _flat(text: str) -> str:
    return " ".join(text.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="first N pages only (0: all)")
    args = parser.parse_args()
    rows = [json.loads(line) for line in (SET / "pages.jsonl").read_text("utf-8").splitlines()]
    rows = rows[: args.limit] if args.limit else rows
    min_chars = Settings().readability_min_chars
    scores: list[tuple[float, float, float]] = []
    found: list[bool] = []
    absent: list[bool] = []
    markup = Counter[str]()
    start = time.perf_counter()
    for row in rows:
        html = gzip.decompress((SET / row["html_path"]).read_bytes()).decode("utf-8", "replace")
        text = page_text_of(html, row.get("url"), min_chars)
        if "expected_text" in row:
            scores.append(f1(text, row["expected_text"]))
        else:
            flat = _flat(text)
            found.extend(_flat(snippet) in flat for snippet in row["must_contain"])
            absent.extend(_flat(snippet) not in flat for snippet in row["must_not_contain"])
        for name, pattern in MARKUP.items():
            markup[name] += bool(pattern.search(text))
    took = time.perf_counter() - start
    p, r, f = (statistics.mean(s[i] for s in scores) if scores else 0.0 for i in range(3))
    print(f"pages={len(rows)} ({took:.0f}s)")
    print(f"readability pages={len(scores)} precision={p:.4f} recall={r:.4f} f1={f:.4f}")
    print(
        f"trafilatura snippets: must_contain found={sum(found)}/{len(found)} "
        f"must_not_contain absent={sum(absent)}/{len(absent)}"
    )
    print("pages with markup: " + " ".join(f"{k}={markup[k]}" for k in MARKUP))


if __name__ == "__main__":
    main()
