"""Leave-one-dataset-out: the checker on a licensed dev set it was never trained on.

For each licensed in-domain set (WiCE, ExpertQA, Factcheck-GPT, Check-COVID), three models are
scored on the same seeded sample of that set's ``test`` rows with ``citation-verifier eval``'s
path (passages → retrieve → checker → guard, default settings):

- the general stage alone (``RUNS/general``: shared/train only, no in-domain rows);
- the general stage, then the in-domain stage on all four sets (``RUNS/all``);
- the same, without that set (``RUNS/without-<set>``).

``make train-lodo`` trains and exports the models (docs/CHECKER_MODEL.md). Finished rows are
checkpointed per model file (by its SHA-256) under ``--checkpoint-dir``, so a killed run
resumes.

    python bench/leave_one_dataset_out.py --runs training/runs/lodo --limit 300

Prints a Markdown table of balanced accuracy (supported vs rest) and, where the set has
contradicted rows, macro-F1.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
from collections.abc import Sequence
from pathlib import Path

from citation_verifier.evaluate import Scores, evaluate_files
from citation_verifier.settings import Settings
from citation_verifier.splits import LICENSED_FOR_TRAINING

_ROOT = Path(__file__).resolve().parents[1]
EVAL_DIR = _ROOT.parent / "shared" / "eval" / "claims"
DATASETS = ("wice", "expertqa", "factcheckgpt", "checkcovid")
assert set(DATASETS) == LICENSED_FOR_TRAINING


def model_file(run: Path) -> Path:
    """The exported float32 ONNX file of a training run."""
    path = run / "model.onnx"
    if not path.is_file():
        raise SystemExit(f"{path} is missing: run make train-lodo (it trains and exports)")
    return path


def scores(
    model: Path, datasets: Sequence[str], limit: int, checkpoints: Path
) -> dict[str, Scores]:
    """``model`` on each dataset's test rows (one verifier, the model loaded once)."""
    digest = hashlib.sha256(model.read_bytes()).hexdigest()[:12]
    settings = Settings(judge_provider="checker", checker_model_path=model)
    return asyncio.run(
        evaluate_files(
            [EVAL_DIR / f"{dataset}.jsonl.gz" for dataset in datasets],
            settings=settings,
            limit=limit,
            split="test",
            checkpoint_dir=checkpoints / digest,
        )
    )


def cell(scores: Scores) -> str:
    text = f"{scores.balanced_accuracy:.3f}"
    return text if scores.macro_f1 is None else f"{text} (F1 {scores.macro_f1:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=_ROOT / "training" / "runs" / "lodo")
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument(
        "--checkpoint-dir", type=Path, default=_ROOT / "bench-output" / "leave-one-out"
    )
    args = parser.parse_args()

    def score(run: str, datasets: Sequence[str]) -> dict[str, Scores]:
        return scores(model_file(args.runs / run), datasets, args.limit, args.checkpoint_dir)

    all_four = score("all", args.datasets)
    general = score("general", args.datasets)
    print(
        "| dataset | n | trained on all four | trained without it | difference "
        "| general stage only |"
    )
    print("|---|---|---|---|---|---|")
    for dataset in args.datasets:
        without = score(f"without-{dataset}", [dataset])[dataset]
        gap = without.balanced_accuracy - all_four[dataset].balanced_accuracy
        print(
            f"| {dataset} | {all_four[dataset].n} | {cell(all_four[dataset])} | "
            f"{cell(without)} | {gap:+.3f} | {cell(general[dataset])} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
