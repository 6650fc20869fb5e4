"""Accuracy and time of each judge configuration on the same held-out rows.

Configurations: the checker alone, the checker with the embedded LLM's second opinion where it is
unsure, the embedded LLM alone, and the lexical baseline. Every configuration runs
``citation-verifier eval``'s path (passages → retrieve → judge → guard) on the same seeded,
stratified sample of each dataset's ``test`` rows (never trained or tuned on). Finished rows are
checkpointed under ``--checkpoint-dir``, so a killed run resumes.

    python bench/judge_compare.py --limit 60 --datasets wice expertqa checkcovid factcheckgpt

Prints a Markdown table: per configuration and dataset, n, balanced accuracy (supported vs rest),
macro-F1 where the set has contradicted rows, mean and median seconds per citation.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from citation_verifier.evaluate import evaluate_files
from citation_verifier.settings import Settings

_ROOT = Path(__file__).resolve().parents[1]
EVAL_DIR = _ROOT.parent / "shared" / "eval" / "claims"
CONFIGURATIONS: dict[str, dict[str, object]] = {
    "checker": {"judge_provider": "checker", "checker_second_opinion": "none"},
    "checker + LLM": {"judge_provider": "checker", "checker_second_opinion": "local"},
    "LLM alone": {"judge_provider": "local"},
    "lexical": {"judge_provider": "lexical"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets", nargs="+", default=["wice", "expertqa", "checkcovid", "factcheckgpt"]
    )
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--configs", nargs="+", default=list(CONFIGURATIONS))
    parser.add_argument(
        "--checkpoint-dir", type=Path, default=_ROOT / "bench-output" / "judge-compare"
    )
    args = parser.parse_args()
    files = [EVAL_DIR / f"{name}.jsonl.gz" for name in args.datasets]
    print("| configuration | dataset | n | balanced acc. | macro-F1 | mean s | median s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.configs:
        settings = Settings(audit_enabled=False, **CONFIGURATIONS[name])  # type: ignore[arg-type]
        results = asyncio.run(
            evaluate_files(
                files,
                settings=settings,
                limit=args.limit,
                split="test",
                checkpoint_dir=args.checkpoint_dir,
            )
        )
        for dataset, s in results.items():
            f1 = "-" if s.macro_f1 is None else f"{s.macro_f1:.3f}"
            print(
                f"| {name} | {dataset} | {s.n} | {s.balanced_accuracy:.3f} | {f1} | "
                f"{s.sec_per_citation:.2f} | {s.median_sec:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
