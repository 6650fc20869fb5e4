"""How often each quote rule (``quote_rules.py``) changes a verdict on dev rows, and whether
it is right when it does.

Rows: the ``tune`` part of every dev dataset (never trained on, never among the ``test`` rows
eval reports), up to ``--per-dataset`` each, judged by the checker (all its exact checks) on
the top-3 passages once. Then the guard runs without the claim (the quote check alone) and with
each quote rule alone, with all of them, and with those the checker's English verdicts get
(``shipped``: ``OWN_CHECKS``). A change is right when its label is the gold one
(for not_found, when gold is not supported: the binary scores count not_found and
contradicted alike). The article set's figures come from ``eval --articles`` (decided by).

    python bench/quote_rules.py --per-dataset 120
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

from checker_tuning import DATASETS, EVAL_DIR
from exact_checks import objective, right

from citation_verifier.evaluate import Prediction, read_rows, stratified_sample
from citation_verifier.guard import apply_guard
from citation_verifier.judge.checker import CheckerJudge
from citation_verifier.judge.checker_model import CheckerModel
from citation_verifier.passages import split_passages
from citation_verifier.quote_rules import OWN_CHECKS, QUOTE_RULES
from citation_verifier.retrieve import MiniLMEmbedder, top_passages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=120)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--show", action="store_true", help="Print every row a rule changes.")
    args = parser.parse_args()
    model = CheckerModel()
    judge = CheckerJudge(model, calibration=model.calibration, check_positive_form=True)
    embedder = MiniLMEmbedder()
    rules = [name for name, _ in QUOTE_RULES]
    variants = ("none", *rules, "all", "shipped")
    predictions: dict[str, dict[str, list[Prediction]]] = {v: defaultdict(list) for v in variants}
    fired: dict[str, Counter[tuple[str, str, str]]] = {r: Counter() for r in rules}
    for dataset in args.datasets:
        rows, _ = read_rows(EVAL_DIR / f"{dataset}.jsonl.gz", "tune")
        for row in stratified_sample(rows, args.per_dataset, 13):
            passages = split_passages(row.source_text, 200, "en")
            ranked = top_passages(row.claim, passages, embedder, 3)
            judgement = judge.judge_sync(row.claim, ranked)
            before = apply_guard(judgement, ranked)
            for variant in variants:
                chosen = {"none": [], "all": rules, "shipped": list(OWN_CHECKS)}.get(
                    variant, [variant]
                )
                after = apply_guard(judgement, ranked, row.claim, "en", chosen)
                predictions[variant][dataset].append(
                    Prediction(row.id, row.label.value, after.label.value, None, 0.0)
                )
                if variant in fired and after.label != before.label:
                    key = (row.label.value, before.label.value, after.label.value)
                    fired[variant][key] += 1
                    if args.show:
                        print(
                            f"{variant} gold={row.label.value} {before.label.value}→"
                            f"{after.label.value}: {after.detail}\n  claim: {row.claim}\n"
                            f"  quote: {judgement.evidence_quote}"
                        )
        print(f"{dataset}: done", flush=True)
    print(f"\nrows: {sum(len(g) for g in predictions['none'].values())}")
    print(f"mean objective without quote rules: {objective(predictions['none']):.4f}")
    print("| rule | changes | right | gold labels (gold: judge → rule) | objective |")
    print("|---|---:|---:|---|---:|")
    for variant in (*rules, "all", "shipped"):
        counts = fired.get(variant, Counter())
        changes = sum(counts.values())
        correct = sum(n for (gold, _, new), n in counts.items() if right(new, gold))
        shown = ", ".join(f"{g}: {m}→{r} ×{n}" for (g, m, r), n in sorted(counts.items()))
        print(
            f"| {variant} | {changes if variant in fired else '-'} | "
            f"{correct if variant in fired else '-'} | {shown or '-'} | "
            f"{objective(predictions[variant]):.4f} |"
        )


if __name__ == "__main__":
    main()
