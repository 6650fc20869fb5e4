"""Does a small stacked model over the checker's scores and deterministic features decide
"supported" better than the shipped support threshold?

The stack is a logistic regression (L2, datasets weighted equally) over features the judge
already has or gets for free: the checker's best P(supported) and P(contradicted) over the top-3
passages (as logits), P(not_found) of the winning passage, the claim-term coverage of the winning
passage, of the best-covering passage and of the whole page, the share of the claim's numbers
missing from the page, whether the claim has numbers or a negation, and the sizes of claim and
page. It is fitted only on the ``tune`` rows of the four licensed sets (the checker never trained
on them; the unlicensed sets may set thresholds, never weights) and scored two ways:

- on the ``tune`` rows of the five unlicensed sets (sources it never saw), against the shipped
  thresholds on the same rows;
- leave one licensed set out: fitted on three, scored on the fourth.

Its decision threshold is chosen on the rows it is fitted on; contradicted and not_found are
decided as the shipped judge does wherever the stack says "not supported". Readings are shared
with ``bench/checker_tuning.py``'s cache (``--cache``; a killed run resumes).

    python bench/checker_stacking.py
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from checker_tuning import DATASETS, EVAL_DIR, Row, append, read_cache, read_row

from citation_verifier.evaluate import EvalRow, Prediction, read_rows, score, stratified_sample
from citation_verifier.judge.checker import CheckerJudge
from citation_verifier.judge.checker_model import CheckerModel
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.splits import LICENSED_FOR_TRAINING
from citation_verifier.terms import analyse, coverage

_ROOT = Path(__file__).resolve().parents[1]
K = 3
FEATURES = (
    "support",
    "contradiction",
    "not_found at the winner",
    "coverage of the winner",
    "best coverage",
    "page coverage",
    "numbers missing",
    "has numbers",
    "log passages",
    "log claim words",
    "negated",
)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def features(row: Row, source: EvalRow) -> list[float]:
    """The stack's inputs for one cached reading (see the module docstring)."""
    reading = row.reading(K)
    p = reading.probabilities
    winner = int(p[:, 0].argmax())
    claim, page = analyse(source.claim), analyse(source.source_text)
    missing = [n for n in claim.numbers if n not in page.numbers]
    return [
        _logit(reading.support),
        _logit(float(p[:, 1].max())),
        _logit(float(p[winner, 2])),
        reading.relevance[winner],
        max(reading.relevance),
        coverage(claim, page),
        len(missing) / len(claim.numbers) if claim.numbers else 0.0,
        float(bool(claim.numbers)),
        math.log(len(row.probabilities)),
        math.log(1 + len(source.claim.split())),
        float(claim.negated),
    ]


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float) -> np.ndarray:
    """Weighted L2 logistic regression by Newton's method; the last weight is the intercept."""
    x = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x.shape[1])
    penalty = l2 * np.r_[np.ones(x.shape[1] - 1), 0.0]
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        gradient = x.T @ (weight * (p - y)) + penalty * w
        hessian = x.T @ (x * (weight * p * (1 - p))[:, None]) + np.diag(penalty + 1e-9)
        w -= np.linalg.solve(hessian, gradient)
    return w


def probability(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-(x @ w[:-1] + w[-1]))))


def objective_by_set(
    rows: Sequence[Row], supported: Sequence[bool], judge: CheckerJudge
) -> dict[str, float]:
    """Per set: balanced accuracy plus macro-F1 where it has contradictions (checker_tuning's)."""
    out: dict[str, float] = {}
    for dataset in sorted({r.dataset for r in rows}):
        mine = [(r, s) for r, s in zip(rows, supported, strict=True) if r.dataset == dataset]
        predictions = []
        for r, s in mine:
            label = judge.decide(r.reading(K))[0].value
            if s:
                label = "supported"
            elif label == "supported":
                label = "not_found"
            predictions.append(Prediction(r.id, r.gold, label, None, 0.0))
        result = score(predictions, any(r.gold == "contradicted" for r, _ in mine))
        out[dataset] = result.balanced_accuracy + (result.macro_f1 or 0.0)
        out[f"{dataset}:ba"] = result.balanced_accuracy
    return out


def stack(
    x: np.ndarray, y: np.ndarray, sets: np.ndarray, fit_on: np.ndarray, l2: float
) -> tuple[np.ndarray, float]:
    """Fit on ``fit_on`` rows (each set weighted equally); the threshold maximising the mean
    balanced accuracy over those sets."""
    names = sorted(set(sets[fit_on]))
    # Each set the same total weight; the weights average 1, so ``l2`` reads per row.
    weight = np.array([1.0 / np.sum(sets[fit_on] == s) for s in sets[fit_on]])
    w = fit(x[fit_on], y[fit_on], weight * len(weight) / len(names), l2)
    p = probability(w, x)
    best = (-1.0, 0.5)
    for t in np.arange(0.1, 0.9, 0.025):
        value = statistics.mean(_balanced(y[sets == s], p[sets == s] >= t) for s in names)
        if value > best[0] + 1e-9:
            best = (value, float(t))
    return w, best[1]


def _balanced(gold: np.ndarray, predicted: np.ndarray) -> float:
    gold = gold.astype(bool)
    return float(0.5 * (predicted[gold].mean() + (~predicted[~gold]).mean()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=120, help="Unlicensed rows per set.")
    parser.add_argument("--max-passages", type=int, default=30)
    parser.add_argument("--cache", type=Path, default=_ROOT / "bench-output" / "checker.jsonl")
    parser.add_argument("--l2", type=float, nargs="+", default=[0.1, 1.0, 10.0])
    args = parser.parse_args()
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    settings = Settings()
    embedder = MiniLMEmbedder()
    judge = CheckerJudge(CheckerModel(settings.checker_model_path))
    cache = read_cache(args.cache)
    rows: list[Row] = []
    sources: list[EvalRow] = []
    for dataset in DATASETS:
        eval_rows, _ = read_rows(EVAL_DIR / f"{dataset}.jsonl.gz", "tune")
        # Every licensed tune row is a fitting row; the unlicensed sets as checker_tuning samples.
        limit = None if dataset in LICENSED_FOR_TRAINING else args.per_dataset
        for source in stratified_sample(eval_rows, limit, 13):
            cached = cache.get(source.id)
            if cached is None:
                cached = read_row(source, judge, embedder, args.max_passages)
                append(args.cache, cached)
            rows.append(cached)
            sources.append(source)
    x = np.array([features(r, s) for r, s in zip(rows, sources, strict=True)])
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-9)
    y = np.array([r.gold == "supported" for r in rows], dtype=np.float64)
    sets = np.array([r.dataset for r in rows])
    licensed = np.isin(sets, sorted(LICENSED_FOR_TRAINING))
    print(
        f"rows: {licensed.sum()} licensed tune rows to fit on, "
        f"{(~licensed).sum()} unlicensed tune rows to score on"
    )
    shipped = objective_by_set(
        rows, [r.reading(K).support >= judge.thresholds.support for r in rows], judge
    )
    unlicensed = sorted(set(sets[~licensed]))
    held = sorted(set(sets[licensed]))
    print(
        "\n| rule | unlicensed mean objective | "
        + " | ".join(unlicensed)
        + " | licensed, left out: mean | "
        + " | ".join(held)
        + " |"
    )
    print("|---|---|" + "---|" * len(unlicensed) + "---|" + "---|" * len(held))
    print(_line("shipped threshold", shipped, unlicensed, shipped, held))
    # The support score alone, fitted the same way: the like-for-like baseline of the stack.
    for name, columns, l2 in [("support alone", 1, 1.0)] + [
        (f"stack, L2 {value:g}", len(FEATURES), value) for value in args.l2
    ]:
        xs = x[:, :columns]
        w, t = stack(xs, y, sets, licensed, l2)
        on_unlicensed = objective_by_set(rows, list(probability(w, xs) >= t), judge)
        left_out: dict[str, float] = {}
        for s in held:
            w_s, t_s = stack(xs, y, sets, licensed & (sets != s), l2)
            mine = sets == s
            scored = objective_by_set(
                [r for r, m in zip(rows, mine, strict=True) if m],
                list(probability(w_s, xs[mine]) >= t_s),
                judge,
            )
            left_out.update(scored)
        print(_line(name, on_unlicensed, unlicensed, left_out, held))
        weights = ", ".join(f"{n} {v:+.2f}" for n, v in zip(FEATURES, w[:-1], strict=False))
        print(f"<!-- {name}: threshold {t:.3f}; standardised weights: {weights} -->")


def _line(
    name: str,
    unseen: dict[str, float],
    unlicensed: Sequence[str],
    left_out: dict[str, float],
    held: Sequence[str],
) -> str:
    def mean(scores: dict[str, float], names: Sequence[str]) -> float:
        return statistics.mean(scores[n] for n in names)

    return (
        f"| {name} | {mean(unseen, unlicensed):.3f} | "
        + " | ".join(f"{unseen[f'{n}:ba']:.3f}" for n in unlicensed)
        + f" | {mean(left_out, held):.3f} | "
        + " | ".join(f"{left_out[f'{n}:ba']:.3f}" for n in held)
        + " |"
    )


if __name__ == "__main__":
    main()
