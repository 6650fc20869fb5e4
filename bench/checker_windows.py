"""Sentence windows: does the checker judge better when it also scores each sentence (and pair of
adjacent sentences) of the passages it reads, not only the passages?

Rows: the same ``tune`` sample as ``bench/checker_tuning.py`` (up to ``--per-dataset`` per set,
seed 13). For each row the checker scores the claim against the top-3 passages (default
retrieval) and against every candidate quote of each passage (``candidate_quotes``: the windows
the quote is chosen from); readings are cached in ``--cache`` (JSONL; a killed run resumes).
Each rule then gets its support and contradiction thresholds grid-searched for the mean
objective of ``checker_tuning`` (balanced accuracy plus macro-F1 where a set has
contradictions):

- passages: support and contradiction from the passages (the shipped rule);
- windows: both from the windows;
- windows for support: support the maximum over passages and windows, contradiction from the
  passages.

    python bench/checker_windows.py --per-dataset 120
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from checker_tuning import DATASETS, EVAL_DIR, mean_objective

from citation_verifier.evaluate import Prediction, read_rows, score, stratified_sample
from citation_verifier.judge.checker import candidate_quotes, chunk_texts
from citation_verifier.judge.checker_model import CheckerModel
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder, top_passages
from citation_verifier.settings import Settings

_ROOT = Path(__file__).resolve().parents[1]
# (passage support, passage contradiction, window support, window contradiction) → (s, c)
Rule = Callable[[float, float, float, float], tuple[float, float]]
RULES: dict[str, Rule] = {
    "passages": lambda ps, pc, ws, wc: (ps, pc),
    "windows": lambda ps, pc, ws, wc: (ws, wc),
    "windows for support": lambda ps, pc, ws, wc: (max(ps, ws), pc),
}


def reading(
    claim: str, source: str, model: CheckerModel, embedder: MiniLMEmbedder
) -> dict[str, Any]:
    start = time.perf_counter()
    texts = chunk_texts(top_passages(claim, split_passages(source, 200), embedder, 3))
    passages = model.probabilities(claim, texts) if texts else np.zeros((0, 3))
    windows = [w for text in texts for w in candidate_quotes(text)]
    scored = model.probabilities(claim, windows) if windows else np.zeros((0, 3))
    return {
        "passage_support": float(passages[:, 0].max(initial=0.0)),
        "passage_contradiction": float(passages[:, 1].max(initial=0.0)),
        "window_support": float(scored[:, 0].max(initial=0.0)),
        "window_contradiction": float(scored[:, 1].max(initial=0.0)),
        "windows": len(windows),
        "seconds": time.perf_counter() - start,
    }


def objective(
    rows: list[dict[str, Any]], rule: Rule, support: float, contradict: float
) -> dict[str, float]:
    """Per dataset: balanced accuracy plus macro-F1 where the set has contradicted rows."""
    out = {}
    for dataset in sorted({r["dataset"] for r in rows}):
        mine = [r for r in rows if r["dataset"] == dataset]
        predictions = []
        for r in mine:
            s, c = rule(
                r["passage_support"],
                r["passage_contradiction"],
                r["window_support"],
                r["window_contradiction"],
            )
            label = (
                "supported" if s >= support else "contradicted" if c >= contradict else "not_found"
            )
            predictions.append(Prediction(r["id"], r["gold"], label, None, 0.0))
        scores = score(predictions, any(r["gold"] == "contradicted" for r in mine))
        out[dataset] = scores.balanced_accuracy + (scores.macro_f1 or 0.0)
        out[f"{dataset}:ba"] = scores.balanced_accuracy
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=120)
    parser.add_argument(
        "--cache", type=Path, default=_ROOT / "bench-output" / "checker-windows.jsonl"
    )
    args = parser.parse_args()
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    done: dict[str, dict[str, Any]] = {}
    if args.cache.exists():
        for line in args.cache.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
                done[row["id"]] = row
            except (json.JSONDecodeError, KeyError):
                continue  # cut by a kill: read again
    settings = Settings()
    model, embedder = CheckerModel(settings.checker_model_path), MiniLMEmbedder()
    rows = []
    with args.cache.open("a", encoding="utf-8") as cache:
        for dataset in DATASETS:
            eval_rows, _ = read_rows(EVAL_DIR / f"{dataset}.jsonl.gz", "tune")
            for row in stratified_sample(eval_rows, args.per_dataset, 13):
                if row.id not in done:
                    read = reading(row.claim, row.source_text, model, embedder)
                    done[row.id] = {"id": row.id, "dataset": dataset, "gold": row.label.value}
                    done[row.id].update(read)
                    cache.write(json.dumps(done[row.id]) + "\n")
                    cache.flush()
                rows.append(done[row.id])
    windows = statistics.median(r["windows"] for r in rows)
    print(f"rows: {len(rows)}; windows per row: median {windows}")
    for dataset in DATASETS:
        mine = [r["windows"] for r in rows if r["dataset"] == dataset]
        print(f"  {dataset}: median {statistics.median(mine)} windows")
    grid = [
        (float(s), float(c)) for s in np.arange(0.2, 0.91, 0.05) for c in np.arange(0.3, 0.91, 0.05)
    ]
    print("\n| rule | thresholds | mean objective | " + " | ".join(DATASETS) + " |")
    print("|---|---|---|" + "---|" * len(DATASETS))
    for name, rule in RULES.items():
        best = max(grid, key=lambda t: round(mean_objective(objective(rows, rule, *t)), 9))
        scores = objective(rows, rule, *best)
        cells = " | ".join(f"{scores[f'{d}:ba']:.3f}" for d in DATASETS)
        overall = mean_objective(scores)
        print(f"| {name} | {best[0]:.2f} / {best[1]:.2f} | {overall:.3f} | {cells} |")


if __name__ == "__main__":
    main()
