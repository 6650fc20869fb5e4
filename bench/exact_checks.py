"""How often each exact check of the checker fires on dev rows, and its confusion when it does.

Rows: the ``tune`` part of every dataset (never trained on, never among the ``test`` rows eval
reports), up to ``--per-dataset`` each. For each row the checker reads the top-3 passages once;
then the verdict is taken without exact checks, with each rule alone, and with all of them.
For each rule: how many rows it changes, the gold labels of those rows, whether it was right
(its label is the gold one; for a not-supported label, gold is not supported) and the mean
objective (balanced accuracy plus macro-F1 where a set has contradictions) with and without it.
A rule that costs accuracy where it fires does not ship.

    python bench/exact_checks.py --per-dataset 120
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from pathlib import Path

from checker_tuning import DATASETS, EVAL_DIR

from citation_verifier.evaluate import Prediction, read_rows, score, stratified_sample
from citation_verifier.judge.checker import EXACT_RULES, CheckerJudge, chunk_texts
from citation_verifier.judge.checker_model import CheckerModel
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder, top_passages


def objective(predictions: dict[str, list[Prediction]]) -> float:
    """Mean over datasets of balanced accuracy (+ macro-F1 where a set has contradictions)."""
    values = []
    for group in predictions.values():
        three_way = any(p.gold == "contradicted" for p in group)
        s = score(group, three_way)
        values.append(
            s.balanced_accuracy + (s.macro_f1 or 0.0) if three_way else s.balanced_accuracy
        )
    return sum(values) / len(values)


def right(label: str, gold: str) -> bool:
    if label == "supported" or gold == "supported":
        return label == gold
    return True  # a not-supported rule label on a not-supported row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=120)
    parser.add_argument("--model", type=Path, default=None, help="Another ONNX checker.")
    parser.add_argument("--show", action="store_true", help="Print every row a rule changes.")
    args = parser.parse_args()
    model = CheckerModel(args.model)
    judge = CheckerJudge(model, calibration=model.calibration)
    embedder = MiniLMEmbedder()
    variants = ("none", *EXACT_RULES, "all")
    predictions: dict[str, dict[str, list[Prediction]]] = {v: defaultdict(list) for v in variants}
    fired: dict[str, Counter[tuple[str, str, str]]] = {r: Counter() for r in EXACT_RULES}
    seconds: dict[str, list[float]] = defaultdict(list)
    for dataset in DATASETS:
        rows, _ = read_rows(EVAL_DIR / f"{dataset}.jsonl.gz", "tune")
        for row in stratified_sample(rows, args.per_dataset, 13):
            ranked = top_passages(row.claim, split_passages(row.source_text, 200), embedder, 3)
            reading = judge.read(row.claim, ranked)
            texts = chunk_texts(ranked)
            if not texts:
                continue
            label, _, chunk = judge.decide(reading)
            quote = None if chunk is None else judge.quote(row.claim, reading.texts[chunk], label)
            for variant in variants:
                rules = {"none": (), "all": EXACT_RULES}.get(variant, (variant,))
                start = time.perf_counter()
                finding = judge.overrule(row.claim, texts, label, quote, rules)
                seconds[variant].append(time.perf_counter() - start)
                final = label if finding is None else finding.label
                predictions[variant][dataset].append(
                    Prediction(row.id, row.label.value, final.value, None, 0.0)
                )
                if variant in fired and finding is not None and finding.label != label:
                    fired[variant][(row.label.value, label.value, finding.label.value)] += 1
                    if args.show:
                        sentence = finding.sentence.text if finding.sentence else quote
                        print(
                            f"{variant} gold={row.label.value} {label.value}→"
                            f"{finding.label.value}\n  claim: {row.claim}\n  on: {sentence}"
                        )
        print(f"{dataset}: done", flush=True)
    base = objective(predictions["none"])
    print(f"\nrows: {sum(len(g) for g in predictions['none'].values())}")
    print(f"mean objective without exact checks: {base:.4f}")
    print("| rule | changes | right | gold labels (gold: model → rule) | objective | ms/row |")
    print("|---|---:|---:|---|---:|---:|")
    for variant in (*EXACT_RULES, "all"):
        counts = fired.get(variant, Counter())
        changes = sum(counts.values())
        correct = sum(n for (gold, _, new), n in counts.items() if right(new, gold))
        shown = ", ".join(f"{g}: {m}→{r} ×{n}" for (g, m, r), n in sorted(counts.items()))
        ms = 1000 * sum(seconds[variant]) / max(1, len(seconds[variant]))
        print(
            f"| {variant} | {changes if variant != 'all' else '-'} | "
            f"{correct if variant != 'all' else '-'} | {shown or '-'} | "
            f"{objective(predictions[variant]):.4f} | {ms:.1f} |"
        )


if __name__ == "__main__":
    main()
