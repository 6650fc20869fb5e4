"""Negated claims, read two more ways by the checker, on dev rows: through their positive form
(``CHECKER_POSITIVE_FORM``), and against the sentences that hold most of their words
(``CHECKER_NEGATED_SENTENCES``).

Rows: every ``tune`` row (never trained on, never among the ``test`` rows eval reports) whose
claim the compared reading applies to (one plain negation, ``judge.positive_form``; any
negation, ``exact_checks.negations``), at most ``--per-dataset`` per dataset file given (the dev
sets by default). Each row runs through the pipeline (passages, retrieval, checker, exact
checks, guard) once with the reading off and once on. Printed per dataset: n, balanced
accuracy and three-way accuracy both ways, and how many verdicts it changed, right and wrong
(three ways where a set has contradictions, supported or not elsewhere). Files with no such row
are skipped. Challenge sets may be given with ``--split all``: measured only.

    python bench/negated_claims.py
    python bench/negated_claims.py --compare sentences --per-dataset 150
    python bench/negated_claims.py ../shared/eval/challenge/negation_nli.jsonl.gz --split all
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from citation_verifier.evaluate import Prediction, dataset_name, predict, read_rows, score
from citation_verifier.judge.exact_checks import negations
from citation_verifier.judge.positive_form import positive_form
from citation_verifier.models import Label
from citation_verifier.pipeline import build_verifier
from citation_verifier.settings import Settings

EVAL_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "claims"


def supported(label: str) -> bool:
    """Whether a label is supported (binary sets only tell supported from the rest)."""
    return label == Label.SUPPORTED.value


def has_plain_negation(claim: str) -> bool:
    """One plain negation: what the positive form reads."""
    return positive_form(claim) is not None


def has_negation(claim: str) -> bool:
    """Any negation: what the sentences are scored for."""
    return negations(claim) > 0


# What each comparison turns off and on, and the claims it applies to.
COMPARED: dict[str, tuple[str, tuple[object, object], Callable[[str], bool]]] = {
    "positive-form": ("checker_positive_form", (False, True), has_plain_negation),
    "sentences": ("checker_negated_sentences", (0, 2), has_negation),
}


async def run(files: list[Path], split: str, compare: str, per_dataset: int | None) -> None:
    print(
        "| dataset | n | balanced acc. off → on | 3-way acc. off → on | changed | right | wrong |"
    )
    print("|---|---|---|---|---|---|---|")
    base = Settings()
    for path in files:
        rows, _ = read_rows(path, None if split == "all" else split)  # type: ignore[arg-type]
        setting, (off_value, on_value), applies = COMPARED[compare]
        rows = [r for r in rows if applies(r.claim)][:per_dataset]
        if not rows:
            continue
        outcomes: list[list[Prediction]] = []
        start = time.perf_counter()
        for value in (off_value, on_value):
            verifier = build_verifier(base.model_copy(update={setting: value}))
            outcomes.append([await predict(verifier, row, None) for row in rows])
        seconds = (time.perf_counter() - start) / (2 * len(rows))
        off, on = outcomes
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
    parser.add_argument("--compare", default="positive-form", choices=sorted(COMPARED))
    parser.add_argument("--per-dataset", type=int, default=None, help="Rows per file at most.")
    args = parser.parse_args()
    files = args.files or sorted(EVAL_DIR.glob("*.jsonl.gz"))
    asyncio.run(run(files, args.split, args.compare, args.per_dataset))


if __name__ == "__main__":
    main()
