"""Language identification: accuracy on short claims and whole pages, and the time per text, for
each identifier that is installed (how ``citation_verifier.language`` chose fastText's lid.176).

Texts: up to ``--per-dataset`` claims and their source texts from every English dev set in
``../shared/eval/claims``, every row of the Russian and Japanese challenge sets (measured only),
and, with ``--extra DIR``, every ``*.jsonl.gz`` with a ``lang`` field there (e.g. the
multilingual evaluation sets of docs/LANGUAGES.md). The pair column scores what routing uses:
``LanguageIdentifier.pair`` (the claim read with its page) against the gold language.

    python bench/language_id.py [--extra /path/to/multilingual] [--per-dataset 150]

Candidates beside the shipped one are scored only when installed (``pip install py3langid
lingua-language-detector``); they are not dependencies.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

from citation_verifier.language import LanguageIdentifier

SHARED = Path(__file__).resolve().parents[2] / "shared" / "eval"


def _rows(path: Path) -> list[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def texts(per_dataset: int, extra: Path | None) -> Iterator[tuple[str, str, str]]:
    """(gold language, kind, text) for claims and pages."""
    rng = random.Random(7)
    for path in sorted((SHARED / "claims").glob("*.jsonl.gz")):
        rows = _rows(path)
        rng.shuffle(rows)
        for row in [r for r in rows if r.get("source_text")][:per_dataset]:
            yield "en", "claim", row["claim"]
            yield "en", "page", row["source_text"]
    folders = [SHARED / "challenge"] + ([extra] if extra else [])
    for folder in folders:
        for path in sorted(folder.glob("*.jsonl.gz")):
            for row in _rows(path):
                if row.get("lang"):
                    yield row["lang"], "claim", row["claim"]
                    yield row["lang"], "page", row["source_text"]


def candidates() -> dict[str, Callable[[str], str]]:
    """Identifier name → function from text to ISO 639-1 code, for those installed."""
    shipped = LanguageIdentifier()

    def fasttext(text: str) -> str:
        guesses = shipped.guesses(text, k=1)
        return guesses[0][0] if guesses else "-"

    found: dict[str, Callable[[str], str]] = {"fastText lid.176 (shipped)": fasttext}
    try:
        py3langid = importlib.import_module("py3langid")
        found["py3langid"] = lambda text: str(py3langid.classify(text)[0])
    except ImportError:
        pass
    try:
        lingua_module = importlib.import_module("lingua")
        detector = lingua_module.LanguageDetectorBuilder.from_all_languages().build()

        def lingua(text: str) -> str:
            language = detector.detect_language_of(text)
            return language.iso_code_639_1.name.lower() if language else "-"

        found["lingua"] = lingua
    except ImportError:
        pass
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-dataset", type=int, default=150)
    parser.add_argument("--extra", type=Path, default=None)
    args = parser.parse_args()
    rows = list(texts(args.per_dataset, args.extra))
    print(f"{len(rows)} texts")
    print("| identifier | language | claims right | pages right | ms per text |")
    print("|---|---|---|---|---|")
    for name, identify in candidates().items():
        identify("warm up")
        hits: dict[tuple[str, str], list[bool]] = defaultdict(list)
        start = time.perf_counter()
        for gold, kind, text in rows:
            hits[(gold, kind)].append(identify(text) == gold)
        ms = (time.perf_counter() - start) / len(rows) * 1000
        for language in sorted({gold for gold, _ in hits}):
            claims, pages = hits[(language, "claim")], hits[(language, "page")]
            print(
                f"| {name} | {language} | {sum(claims) / len(claims):.3f} (n={len(claims)}) | "
                f"{sum(pages) / len(pages):.3f} (n={len(pages)}) | {ms:.2f} |"
            )
    pairs: dict[str, list[bool]] = defaultdict(list)
    router = LanguageIdentifier()
    claim_rows = [(gold, text) for gold, kind, text in rows if kind == "claim"]
    page_texts = [text for _, kind, text in rows if kind == "page"]
    for (gold, claim_text), page in zip(claim_rows, page_texts, strict=True):
        languages = router.pair(claim_text, page)
        pairs[gold].append(languages.claim == gold and languages.page == gold)
    print("\nRouting (claim read with its page, both must be right):")
    for language, right in sorted(pairs.items()):
        print(f"  {language}: {sum(right) / len(right):.3f} (n={len(right)})")


if __name__ == "__main__":
    main()
