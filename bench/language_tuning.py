"""The embedded LLM's decision rule on pairs outside English, measured on ``tune`` rows.

For each multilingual evaluation file given (JSONL.gz with ``claim``, ``source_text``, ``label``,
``lang``; docs/LANGUAGES.md lists the ones measured), up to ``--per-file`` rows of its ``tune``
part (never among the ``test`` rows ``eval`` reports) are read once by the other-language judge
(lexical evidence selection, the packaged model). The label probabilities are kept, and every
rule of a small grid (support threshold, the claim-term coverage support needs, the
evidence budget) is scored offline: balanced accuracy per file and its mean.

    python bench/language_tuning.py /path/to/multilingual/*.jsonl.gz --per-file 40
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import replace
from pathlib import Path

from citation_verifier.evaluate import Prediction, read_rows, score, stratified_sample
from citation_verifier.judge.embedded import DecisionRule, Reading, decide
from citation_verifier.judge.providers import decision_rule, lexical_llm_judge
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import TermsEmbedder, top_passages
from citation_verifier.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--per-file", type=int, default=40)
    parser.add_argument("--budgets", default="300,600")
    args = parser.parse_args()
    base = Settings()
    rule = decision_rule(base)
    readings: dict[tuple[str, int], list[tuple[str, Reading | None]]] = {}
    for budget in [int(b) for b in args.budgets.split(",")]:
        judge = lexical_llm_judge(base.model_copy(update={"local_judge_evidence_chars": budget}))
        for path in args.files:
            rows, _ = read_rows(path, "tune")
            rows = stratified_sample(rows, args.per_file, 13)
            start = time.perf_counter()
            got = []
            for row in rows:
                passages = split_passages(row.source_text, base.passage_max_words)
                best = top_passages(row.claim, passages, TermsEmbedder(), base.top_k, "lexical")
                got.append((row.label.value, judge.read(row.claim, best)))
            readings[(path.name, budget)] = got
            seconds = (time.perf_counter() - start) / max(1, len(rows))
            print(f"read {path.name} at {budget} chars: {len(rows)} rows, {seconds:.2f} s/row")
    grid = itertools.product([0.4, 0.5, 0.6, 0.7, 0.8], [0.0, 0.25, 0.5, 0.75])
    results = []
    for (support, coverage), budget in itertools.product(
        grid, [int(b) for b in args.budgets.split(",")]
    ):
        candidate: DecisionRule = replace(rule, support_threshold=support, min_coverage=coverage)
        per_file = {}
        for path in args.files:
            predictions = []
            for gold, reading in readings[(path.name, budget)]:
                label = Label.NOT_FOUND
                if reading is not None:
                    label, _ = judge_decide(candidate, reading)
                predictions.append(Prediction("", gold, label.value, None, 0.0))
            per_file[path.name] = score(predictions, three_way=False).balanced_accuracy
        mean = sum(per_file.values()) / len(per_file)
        results.append((mean, support, coverage, budget, per_file))
    results.sort(key=lambda r: -r[0])
    current = next(
        r for r in results if (r[1], r[2], r[3]) == (rule.support_threshold, rule.min_coverage, 300)
    )
    print(
        "| support ≥ | coverage ≥ | evidence chars | mean | "
        + " | ".join(p.name.split(".")[0] for p in args.files)
        + " |"
    )
    print("|---" * (4 + len(args.files)) + "|")
    for mean, support, coverage, budget, per_file in [current, *results[:8]]:
        cells = " | ".join(f"{v:.3f}" for v in per_file.values())
        print(f"| {support} | {coverage} | {budget} | {mean:.3f} | {cells} |")


def judge_decide(rule: DecisionRule, reading: Reading) -> tuple[Label, float]:
    """The embedded judge's decision on a stored reading under ``rule``."""
    return decide(
        reading.probabilities,
        reading.coverage,
        rule,
        reading.number_conflict,
        reading.similarity,
    )


if __name__ == "__main__":
    main()
