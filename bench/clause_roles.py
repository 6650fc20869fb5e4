"""How often the clause-roles check fires on human-labelled pairs, and how right it is.

The check (``judge/clause_roles.py``) applies only where a claim's content words are all in the
evidence sentence, and says the sentence does not state the claim. On the premise/hypothesis
pairs of ``shared/train`` (SNLI, MultiNLI, SciTail: human-written, labelled by people, never
tuned on for this check) it is measured alone, whatever a model says: of the pairs whose
hypothesis words are all the premise's, how many it flags, and the gold labels of those. A
flagged pair whose gold label is entailment is a false alarm.

    python bench/clause_roles.py --per-file 20000
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter
from pathlib import Path

from citation_verifier.judge.clause_roles import ClauseParser, conflicting_roles

TRAIN_DIR = Path(__file__).resolve().parents[1] / ".." / "shared" / "train"
FILES = tuple(__import__("os").environ.get("CR_FILES", "snli mnli scitail").split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-dir", type=Path, default=TRAIN_DIR)
    parser.add_argument("--per-file", type=int, default=20000)
    parser.add_argument("--show", action="store_true", help="Print every flagged pair.")
    args = parser.parse_args()
    clauses = ClauseParser()
    print("| file | pairs | same words | flagged | flagged by gold label | ms/pair |")
    print("|---|---:|---:|---:|---|---:|")
    for name in FILES:
        pairs = same = 0
        flagged: Counter[str] = Counter()
        start = time.perf_counter()
        with gzip.open(args.train_dir / f"{name}.jsonl.gz", "rt", encoding="utf-8") as lines:
            for line in lines:
                if pairs >= args.per_file:
                    break
                row = json.loads(line)
                pairs += 1
                claim, premise = row["claim"], row["source_text"]
                said, stated = clauses.read(claim), clauses.read(premise)
                if not said.content <= stated.content:
                    continue
                same += 1
                if conflicting_roles(clauses, claim, premise):
                    flagged[row["label"]] += 1
                    if args.show:
                        print(f"  {row['label']}: {premise}  =>  {claim}")
        seconds = time.perf_counter() - start
        labels = ", ".join(f"{label} {n}" for label, n in flagged.most_common()) or "-"
        print(
            f"| {name} | {pairs} | {same} | {sum(flagged.values())} | {labels} | "
            f"{1000 * seconds / max(pairs, 1):.1f} |"
        )


if __name__ == "__main__":
    main()
