"""The behavioural suite's other half, as a second measure of rules written against the first.

`eval --suite behaviour` scores the *measured* half. The checker's exact checks were written
while reading that half's failures, so its figures for the categories the rules carry are not
an unbiased measure of them. The *train* half has other templates, other filler words and
edits of other real sentences (the licensed sets' `train` rows); the shipped checker was never
trained on it (a behaviour stage that was is measured in docs/CHECKER_MODEL.md, not shipped),
and no rule was written against it. Scoring it with the same pipeline says how far the rules
carry to cases they were not written for.

    python bench/behaviour_other_half.py
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from citation_verifier.behaviour.suite import build_suite, run_cases, score_categories
from citation_verifier.settings import Settings

EVAL_DIR = Path(__file__).resolve().parents[2] / "shared" / "eval" / "claims"


def main() -> None:
    cases = build_suite("train", eval_dir=EVAL_DIR if EVAL_DIR.is_dir() else None)
    outcomes = asyncio.run(run_cases(cases, Settings(judge_provider="checker")))
    print("| category | n | pass rate | exact label | positive controls |")
    print("|---|---|---|---|---|")
    for s in score_categories(outcomes):
        rates = f"{s.pass_rate:.3f} | {s.exact_rate:.3f}"
        print(f"| {s.category} | {s.n} | {rates} | {s.supported_n} |")
    print(f"\n{len(cases)} cases of the train half")


if __name__ == "__main__":
    main()
