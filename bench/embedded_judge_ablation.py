"""Ablation and tuning of the embedded LLM judge on the human-labelled dev claims.

For each dataset a seeded, stratified *tuning* sample is drawn from the rows that the reported
``citation-verifier eval --limit 300`` sample (seed 13) does not use, so the decision rule is never
tuned on the rows it is reported on. Each row runs the judge's real stages (passages → top-k →
sentence scoring → evidence selection → prompt → label probabilities) once per evidence budget and
prompt variant; the model's readings are cached in ``--cache`` (JSONL), so decision rules are
compared offline in seconds and a killed run resumes.

Printed, as a Markdown table: per dataset, balanced accuracy (supported vs rest) and, where the
file has contradicted rows, three-way macro-F1, for the lexical baseline on the same rows and, per
configuration, under the argmax of the three label probabilities, the shipped decision rule and
its variants, and the rule grid-searched on this sample (maximising the mean, over datasets, of
balanced accuracy plus macro-F1 where defined).

    python bench/embedded_judge_ablation.py --per-dataset 40 --budgets 300 500 \
        --variants fewshot zeroshot
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from citation_verifier.evaluate import (
    EvalRow,
    Prediction,
    read_rows,
    score,
    stratified_sample,
)
from citation_verifier.judge.embedded import ANSWERS, DecisionRule, EmbeddedLLMJudge, decide
from citation_verifier.judge.llama import load_label_model
from citation_verifier.judge.model_file import model_path
from citation_verifier.judge.providers import decision_rule, local_judge
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder, top_passages
from citation_verifier.settings import Settings

_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_EVAL_DIR = _ROOT.parent / "shared" / "eval"
DEFAULT_DATASETS = ("wice", "expertqa", "checkcovid", "factcheckgpt", "healthver", "lfqa")


@dataclass(frozen=True)
class Reading:
    """One row's model reading under one configuration."""

    dataset: str
    id: str
    gold: str
    config: str
    p: dict[str, float]
    coverage: float
    seconds: float
    prompt_tokens: int
    number_conflict: bool = False
    similarity: float = 1.0


def tuning_rows(path: Path, per_dataset: int, seed: int) -> tuple[list[EvalRow], bool]:
    """Rows outside eval's reported sample (seed 13, limit 300), stratified and seeded."""
    rows, _ = read_rows(path)
    reported = {r.id for r in stratified_sample(rows, 300, 13)}
    rest = [r for r in rows if r.id not in reported]
    three_way = any(r.label == Label.CONTRADICTED for r in rows)
    return stratified_sample(rest, per_dataset, seed), three_way


def read_cache(path: Path) -> dict[tuple[str, str], Reading]:
    """Cached readings by (row id, config); lines cut by a kill are skipped."""
    done: dict[tuple[str, str], Reading] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                reading = Reading(**json.loads(line))
            except (ValueError, TypeError):
                continue
            done[(reading.id, reading.config)] = reading
    return done


def label_of(reading: Reading, rule: DecisionRule) -> Label:
    """The shipped judge's decision on a cached reading."""
    return decide(reading.p, reading.coverage, rule, reading.number_conflict, reading.similarity)[0]


def argmax(p: dict[str, float]) -> Label:
    """The most probable label."""
    return Label(max(ANSWERS, key=lambda a: p[a]))


def metrics(readings: Sequence[Reading], labels: Sequence[Label], three_way: bool) -> str:
    """``bacc [/ macro-F1]`` for predicted ``labels``."""
    predictions = [
        Prediction(r.id, r.gold, label.value, None, r.seconds)
        for r, label in zip(readings, labels, strict=True)
    ]
    s = score(predictions, three_way)
    return f"{s.balanced_accuracy:.3f}" + (f" / {s.macro_f1:.3f}" if s.macro_f1 is not None else "")


def objective(groups: dict[str, tuple[list[Reading], bool]], rule: DecisionRule) -> float:
    """Mean over datasets of balanced accuracy (+ macro-F1 where three-way)."""
    values = []
    for readings, three_way in groups.values():
        predictions = [
            Prediction(r.id, r.gold, label_of(r, rule).value, None, 0.0) for r in readings
        ]
        s = score(predictions, three_way)
        values.append(
            s.balanced_accuracy + (s.macro_f1 or 0.0) if three_way else 2 * s.balanced_accuracy
        )
    return sum(values) / len(values)


GRID = [
    DecisionRule(min_coverage=c, support_threshold=t, contradict_margin=m, ask_coverage=a)
    for c, t, m, a in itertools.product(
        [0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
        [-0.2, 0.0, 0.2, 0.4, 0.6, 1.0],
        [0.0, 0.2, 0.3, 0.4, 0.5],
    )
    if a <= c
]


_NOTHING_TO_READ = {"supported": 0.0, "contradicted": 0.0, "not_found": 1.0}


def read_row(
    judge: EmbeddedLLMJudge, embedder: MiniLMEmbedder, settings: Settings, row: EvalRow, config: str
) -> Reading:
    """The judge's stages on one row, timed from its source text to the label probabilities."""
    start = time.perf_counter()
    passages = split_passages(row.source_text, settings.passage_max_words)
    reading = judge.read(row.claim, top_passages(row.claim, passages, embedder, settings.top_k))
    return Reading(
        dataset=row.dataset,
        id=row.id,
        gold=row.label.value,
        config=config,
        p=(reading.probabilities if reading else None)
        or {"supported": 0.0, "contradicted": 0.0, "not_found": 1.0},
        coverage=reading.coverage if reading else 0.0,
        seconds=time.perf_counter() - start,
        prompt_tokens=reading.prompt_tokens if reading else 0,
        number_conflict=reading.number_conflict if reading else False,
        similarity=reading.similarity if reading else 0.0,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    parser.add_argument("--datasets", nargs="+", default=list(DEFAULT_DATASETS))
    parser.add_argument("--per-dataset", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--budgets", nargs="+", type=int, default=[600])
    parser.add_argument(
        "--variants", nargs="+", default=["fewshot"], choices=["fewshot", "zeroshot"]
    )
    parser.add_argument("--cache", type=Path, default=Path("bench-output/embedded_ablation.jsonl"))
    args = parser.parse_args()

    settings = Settings()
    embedder = MiniLMEmbedder()
    model = load_label_model(model_path(settings), settings.local_judge_threads)
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    done = read_cache(args.cache)
    configs = [f"{v}-{b}" for v in args.variants for b in args.budgets]
    judges = {
        f"{v}-{b}": EmbeddedLLMJudge(
            embedder,
            lambda: model,
            model_name="ablation",
            evidence_chars=b,
            few_shot=v == "fewshot",
        )
        for v in args.variants
        for b in args.budgets
    }
    groups: dict[str, dict[str, tuple[list[Reading], bool]]] = {c: {} for c in configs}
    for config in configs:  # one whole configuration first: a cut-short run still compares
        for name in args.datasets:
            path = args.eval_dir / "claims" / f"{name}.jsonl.gz"
            rows, three_way = tuning_rows(path, args.per_dataset, args.seed)
            readings = []
            for number, row in enumerate(rows, 1):
                key = (row.id, config)
                if key not in done:
                    done[key] = read_row(judges[config], embedder, settings, row, config)
                    with args.cache.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(done[key].__dict__) + "\n")
                    print(f"\r{name} {config} {number}/{len(rows)}", end="", flush=True)
                readings.append(done[key])
            groups[config][name] = (readings, three_way)
    print()

    shipped = decision_rule(settings)
    variants = {
        "argmax of the three probabilities": None,
        "P(supported) >= 0.5": replace(shipped, support_threshold=0.5),
        "shipped rule": shipped,
        "shipped + coverage >= 0.3 to support": replace(shipped, min_coverage=0.3),
        "shipped + model asked only at coverage >= 0.2": replace(shipped, ask_coverage=0.2),
    }
    lexical = local_judge(settings, embedder)
    names = list(args.datasets)
    print("configuration | " + " | ".join(names) + " | median s/row (each set)")
    print("|".join(["---"] * (len(names) + 2)))
    lexical_rows = []
    for name in names:
        readings, three_way = groups[configs[0]][name]
        by_id = {
            r.id: r
            for r in tuning_rows(
                args.eval_dir / "claims" / f"{name}.jsonl.gz", args.per_dataset, args.seed
            )[0]
        }
        labels = []
        for reading in readings:
            row = by_id[reading.id]
            passages = split_passages(row.source_text, settings.passage_max_words)
            best = top_passages(row.claim, passages, embedder, settings.top_k)
            labels.append(lexical.judge_sync(row.claim, best).label)
        lexical_rows.append(metrics(readings, labels, three_way))
    print("lexical baseline | " + " | ".join(lexical_rows) + " | -")
    for config in configs:
        best_rule = max(GRID, key=lambda rule: objective(groups[config], rule))
        for title, rule in [*variants.items(), (f"tuned here: {best_rule}", best_rule)]:
            cells = []
            for name in names:
                readings, three_way = groups[config][name]
                labels = [argmax(r.p) if rule is None else label_of(r, rule) for r in readings]
                cells.append(metrics(readings, labels, three_way))
            seconds = "/".join(
                f"{statistics.median(r.seconds for r in groups[config][n][0]):.1f}" for n in names
            )
            print(f"{config}, {title} | " + " | ".join(cells) + f" | {seconds}")


if __name__ == "__main__":
    main()
