"""Negated claims read through their positive form (``CHECKER_POSITIVE_FORM``), on dev rows.

Rows: every ``tune`` row (never trained on, never among the ``test`` rows eval reports) whose
claim has one plain negation (``judge.positive_form``), of each dataset file given (the dev sets
by default). Each row runs through the pipeline (passages, retrieval, checker, exact checks,
guard) once with the positive form off and once on (it is read only on passages without a
negation). Printed per dataset: n, balanced accuracy and three-way accuracy both ways, and how
many verdicts it changed, right and wrong (three ways where a set has contradictions, supported
or not elsewhere). Files with no such row are skipped. Challenge sets may be given with
``--split all``: measured only.

    python bench/negated_claims.py
    python bench/negated_claims.py ../shared/eval/challenge/negation_nli.jsonl.gz --split all
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from citation_verifier.evaluate import Prediction, dataset_name, predict, read_rows, score
from citation_verifier.judge.positive_form import positive_form
from citation_verifier.models import Label
from citation_verifier.pipeline import build_verifier
from citation_verifier.settings import Settings

EVAL_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "claims"


def supported(label: str) -> bool:
    """Whether a label is supported (binary sets only tell supported from the rest)."""
    return label == Label.SUPPORTED.value


async def run(files: list[Path], split: str) -> None:
    print(
        "| dataset | n | balanced acc. off → on | 3-way acc. off → on | changed | right | wrong |"
    )
    print("|---|---|---|---|---|---|---|")
    base = Settings()
    for path in files:
        rows, _ = read_rows(path, None if split == "all" else split)  # type: ignore[arg-type]
        rows = [r for r in rows if positive_form(r.claim) is not None]
        if not rows:
            continue
        outcomes: dict[bool, list[Prediction]] = {}
        start = time.perf_counter()
        for positive in (False, True):
            settings = base.model_copy(update={"checker_positive_form": positive})
            verifier = build_verifier(settings)
            outcomes[positive] = [await predict(verifier, row, None) for row in rows]
        seconds = (time.perf_counter() - start) / (2 * len(rows))
        off, on = outcomes[False], outcomes[True]
        changed = [(a, b) for a, b in zip(off, on, strict=True) if a.predicted != b.predicted]
        three_way = any(p.gold == Label.CONTRADICTED.value for p in off)
        right = sum(
            b.predicted == b.gold if three_way else supported(b.predicted) == supported(b.gold)
            for _, b in changed
        )
        s_off, s_on = score(off, three_way), score(on, three_way)
        acc = (
            f"{s_off.accuracy:.3f} → {s_on.accuracy:.3f}"
            if s_off.accuracy is not None and s_on.accuracy is not None
            else "-"
        )
        print(
            f"| {dataset_name(path)} | {len(rows)} | {s_off.balanced_accuracy:.3f} → "
            f"{s_on.balanced_accuracy:.3f} | {acc} | {len(changed)} | {right} | "
            f"{len(changed) - right} |"
        )
        print(f"<!-- {dataset_name(path)}: {seconds:.2f} s per row and setting -->")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--split", default="tune", choices=("tune", "test", "all"))
    args = parser.parse_args()
    files = args.files or sorted(EVAL_DIR.glob("*.jsonl.gz"))
    asyncio.run(run(files, args.split))


if __name__ == "__main__":
    main()
