"""Set the checker's thresholds and the cascade's unsure band on dev data, and print the choices.

Rows: the ``tune`` part of every dataset (``citation_verifier.splits``): never trained on, and
never part of the ``test`` rows eval reports. For each row the checker scores the claim against
every passage of the source (up to ``--max-passages``, in retrieval order); the readings are
cached in ``--cache`` (JSONL; a killed run resumes), so every variant below is compared offline:

- chunks: the top-k passages the verifier hands over (k = 3, 5) or the whole page;
- thresholds: support, contradiction and relevance, grid-searched to maximise the mean over
  datasets of balanced accuracy (supported vs rest) plus macro-F1 where a set has contradictions;
- claim parts: long claims cut deterministically into parts (sentences, then clauses joined by
  "; " or ", and"), each part's support taken over the chunks, the claim's support the least of
  its parts' (a claim holds only if each of its facts does), against the whole claim's support;
- calibration: Platt scaling of the chosen support score, its ECE before and after
  (``--write-card`` stores it in the shipped model's card);
- with ``--llm``: the embedded LLM's verdict on every row whose support falls in the widest band
  considered, then each band [low, high) scored as a cascade, with the share of rows the LLM
  reads.

    python bench/checker_tuning.py --per-dataset 150 --llm
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citation_verifier.evaluate import EvalRow, Prediction, read_rows, score, stratified_sample
from citation_verifier.judge.checker import CheckerJudge, CheckerReading, CheckerThresholds
from citation_verifier.judge.checker_model import SHIPPED_CARD, CheckerModel, calibrated
from citation_verifier.judge.providers import embedded_llm_judge
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder, top_passages
from citation_verifier.settings import Settings

_ROOT = Path(__file__).resolve().parents[1]
EVAL_DIR = _ROOT.parent / "shared" / "eval" / "claims"
DATASETS = (
    "wice",
    "expertqa",
    "factcheckgpt",
    "checkcovid",
    "healthver",
    "climatefever",
    "attributionbench",
    "lfqa",
    "covidfact",
)
CHUNKS = {"top3": 3, "top5": 5, "page": 10_000}
WIDEST_BAND = (0.05, 0.95)


@dataclass(frozen=True)
class Row:
    """One cached reading: every passage's probabilities, in retrieval order."""

    dataset: str
    id: str
    gold: str
    probabilities: list[list[float]]
    relevance: list[float]
    seconds: float
    llm: str | None = None
    parts: list[list[float]] | None = None
    """For claims with several parts: each part's P(supported) per passage (retrieval order)."""

    def reading(self, k: int) -> CheckerReading:
        return CheckerReading(
            np.array(self.probabilities[:k], dtype=np.float32).reshape(-1, 3),
            tuple(self.relevance[:k]),
        )


def read_cache(path: Path) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                raw = json.loads(line)
                rows[raw["id"]] = Row(**raw)
            except (json.JSONDecodeError, TypeError, KeyError):
                continue  # cut by a kill: read again
    return rows


def append(path: Path, row: Row) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(row.__dict__) + "\n")


def read_row(row: EvalRow, judge: CheckerJudge, embedder: MiniLMEmbedder, max_passages: int) -> Row:
    start = time.perf_counter()
    ranked = top_passages(row.claim, split_passages(row.source_text, 200), embedder, max_passages)
    reading = judge.read(row.claim, ranked)
    return Row(
        row.dataset,
        row.id,
        row.label.value,
        reading.probabilities.round(5).tolist(),
        [round(r, 4) for r in reading.relevance],
        time.perf_counter() - start,
    )


_PART_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|;\s+|,\s+(?:and|but|while|whereas)\s+")


def claim_parts(claim: str) -> list[str]:
    """The claim cut at sentence ends and clause joins; parts under four words stay joined to
    the previous part. One part means the claim is not split."""
    parts: list[str] = []
    for piece in _PART_BREAK.split(claim):
        piece = piece.strip()
        if parts and len(piece.split()) < 4:
            parts[-1] = f"{parts[-1]} {piece}"
        elif piece:
            parts.append(piece)
    return parts


def predict(
    row: Row,
    judge: CheckerJudge,
    k: int,
    band: tuple[float, float] | None,
    parts: bool = False,
) -> str:
    reading = row.reading(k)
    if parts and row.parts:
        support = min(max(p[:k]) for p in row.parts)
        if support >= judge.thresholds.support:
            return "supported"
        label = judge.decide(reading)[0].value
        return "not_found" if label == "supported" else label
    if band and row.llm is not None and band[0] <= reading.support < band[1]:
        return row.llm
    return judge.decide(reading)[0].value


def objective(
    rows: Sequence[Row],
    judge: CheckerJudge,
    k: int,
    band: tuple[float, float] | None = None,
    parts: bool = False,
) -> dict[str, float]:
    """Per dataset: balanced accuracy, plus macro-F1 where the set has contradicted rows."""
    out: dict[str, float] = {}
    for dataset in sorted({r.dataset for r in rows}):
        mine = [r for r in rows if r.dataset == dataset]
        three_way = any(r.gold == "contradicted" for r in mine)
        s = score(
            [Prediction(r.id, r.gold, predict(r, judge, k, band, parts), None, 0.0) for r in mine],
            three_way,
        )
        out[dataset] = s.balanced_accuracy + (s.macro_f1 or 0.0)
        out[f"{dataset}:ba"] = s.balanced_accuracy
    return out


def mean_objective(scores: dict[str, float]) -> float:
    return statistics.mean(v for k, v in scores.items() if ":" not in k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--per-dataset", type=int, default=150)
    parser.add_argument("--max-passages", type=int, default=30)
    parser.add_argument("--cache", type=Path, default=_ROOT / "bench-output" / "checker.jsonl")
    parser.add_argument("--llm", action="store_true", help="Also tune the cascade's band.")
    parser.add_argument(
        "--write-card", action="store_true", help="Store the fitted calibration in checker.json."
    )
    args = parser.parse_args()
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    settings = Settings()
    embedder = MiniLMEmbedder()
    judge = CheckerJudge(CheckerModel(settings.checker_model_path))
    llm = embedded_llm_judge(settings, embedder) if args.llm else None
    cache = read_cache(args.cache)
    rows: list[Row] = []
    for dataset in args.datasets:
        eval_rows, _ = read_rows(EVAL_DIR / f"{dataset}.jsonl.gz", "tune")
        for row in stratified_sample(eval_rows, args.per_dataset, 13):
            cached = cache.get(row.id)
            if cached is None:
                cached = read_row(row, judge, embedder, args.max_passages)
                append(args.cache, cached)
            if llm is not None and cached.llm is None:
                support = cached.reading(3).support
                if WIDEST_BAND[0] <= support < WIDEST_BAND[1]:
                    passages = split_passages(row.source_text, 200)
                    top = top_passages(row.claim, passages, embedder, 3)
                    label = llm.judge_sync(row.claim, top).label.value
                    cached = Row(**{**cached.__dict__, "llm": label})
                    append(args.cache, cached)
            rows.append(cached)
    seconds = sorted(r.seconds for r in rows)
    print(
        f"rows: {len(rows)}; checker s/row (all passages) median {seconds[len(seconds) // 2]:.3f}"
    )

    default = CheckerThresholds()
    print("\n| chunks | thresholds | mean objective | " + " | ".join(args.datasets) + " |")
    print("|---|---|---|" + "---|" * len(args.datasets))
    best_overall: tuple[float, str, CheckerThresholds] | None = None
    for name, k in CHUNKS.items():
        judge.thresholds = default
        base = objective(rows, judge, k)
        grid = itertools.product(
            np.arange(0.2, 0.95, 0.05), np.arange(0.3, 0.95, 0.1), (0.0, 0.2, 0.3, 0.5)
        )
        best: tuple[float, CheckerThresholds] | None = None
        for s, c, r in grid:
            judge.thresholds = CheckerThresholds(float(s), float(c), float(r))
            value = mean_objective(objective(rows, judge, k))
            if best is None or value > best[0] + 1e-9:
                best = (value, judge.thresholds)
        assert best is not None
        judge.thresholds = best[1]
        tuned = objective(rows, judge, k)
        for label, scores in (("default", base), (_fmt(best[1]), tuned)):
            cells = " | ".join(f"{scores[f'{d}:ba']:.3f}" for d in args.datasets)
            print(f"| {name} | {label} | {mean_objective(scores):.3f} | {cells} |")
        if best_overall is None or best[0] > best_overall[0]:
            best_overall = (best[0], name, best[1])
    assert best_overall is not None
    _, chunks, thresholds = best_overall
    print(f"\nchosen: chunks={chunks} thresholds {_fmt(thresholds)}")
    judge.thresholds = thresholds
    k = CHUNKS[chunks]
    support_scores = [r.reading(k).support for r in rows]
    gold = [r.gold == "supported" for r in rows]
    a, b = fit_platt(support_scores, gold)
    before = expected_calibration_error(support_scores, gold)
    after = expected_calibration_error([calibrated(x, (a, b)) for x in support_scores], gold)
    print(f"calibration: a={a:.4f} b={b:.4f}; ECE of the support score {before:.3f} -> {after:.3f}")
    if args.write_card:
        card = json.loads(SHIPPED_CARD.read_text(encoding="utf-8"))
        card["calibration"] = [round(a, 4), round(b, 4)]
        SHIPPED_CARD.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
        print(f"calibration written to {SHIPPED_CARD}")
    split = [r for r in rows if r.parts]
    print(f"\nclaims with several parts: {len(split)} of {len(rows)}")
    print("| claim | mean objective | " + " | ".join(args.datasets) + " |")
    print("|---|---|" + "---|" * len(args.datasets))
    for label, use_parts in (("whole", False), ("least of its parts", True)):
        scores = objective(rows, judge, k, parts=use_parts)
        cells = " | ".join(f"{scores[f'{d}:ba']:.3f}" for d in args.datasets)
        print(f"| {label} | {mean_objective(scores):.3f} | {cells} |")
    if llm is None:
        return
    print("\n| band | LLM share | mean objective | " + " | ".join(args.datasets) + " |")
    print("|---|---|---|" + "---|" * len(args.datasets))
    for low, high in [(0.0, 0.0), (0.3, 0.7), (0.2, 0.8), (0.1, 0.9), (0.05, 0.95), (0.2, 0.6)]:
        scores = objective(rows, judge, k, (low, high))
        share = sum(low <= r.reading(k).support < high for r in rows) / len(rows)
        cells = " | ".join(f"{scores[f'{d}:ba']:.3f}" for d in args.datasets)
        print(f"| [{low}, {high}) | {share:.2f} | {mean_objective(scores):.3f} | {cells} |")


def fit_platt(support: Sequence[float], gold: Sequence[bool]) -> tuple[float, float]:
    """Platt scaling of the support score: (a, b) of σ(a·logit(s) + b), by Newton's method."""
    s = np.clip(np.array(support, dtype=np.float64), 1e-6, 1 - 1e-6)
    x = np.log(s / (1 - s))
    y = np.array(gold, dtype=np.float64)
    w = np.array([1.0, 0.0])
    features = np.stack([x, np.ones_like(x)], axis=1)
    for _ in range(50):
        p = 1 / (1 + np.exp(-features @ w))
        gradient = features.T @ (p - y)
        hessian = features.T @ (features * (p * (1 - p))[:, None]) + 1e-6 * np.eye(2)
        w -= np.linalg.solve(hessian, gradient)
    return float(w[0]), float(w[1])


def expected_calibration_error(
    probability: Sequence[float], gold: Sequence[bool], bins: int = 10
) -> float:
    """ECE of P(supported) against the gold supported labels, equal-width bins."""
    p = np.array(probability)
    y = np.array(gold, dtype=np.float64)
    total = 0.0
    for lo in np.linspace(0, 1, bins, endpoint=False):
        inside = (p >= lo) & (p < lo + 1 / bins) if lo + 1 / bins < 1 else p >= lo
        if inside.any():
            total += inside.sum() / len(p) * abs(p[inside].mean() - y[inside].mean())
    return float(total)


def _fmt(t: CheckerThresholds) -> str:
    return f"support {t.support:.2f}, contradict {t.contradict:.2f}, relevance {t.relevance:.2f}"


if __name__ == "__main__":
    main()
