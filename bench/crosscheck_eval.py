"""Measure the LLM cross-check (judge/crosscheck.py) on real, human-labelled dev pairs.

No LLM is involved: each dev row gives a claim, the gold evidence sentence(s) and a human label.
We pose the verdict an LLM would return when it quotes that evidence, and let the embedded judge
score quote → claim exactly as the cross-check does:

- "supported" on a row labelled supported          → a correct verdict;
- "supported" on a row labelled not_found          → a wrong verdict (over-claiming on related
                                                     but insufficient evidence);
- "supported" on a row labelled contradicted       → a wrong verdict (polarity error);
- "contradicted" on a row labelled contradicted    → a correct verdict;
- "contradicted" on a row labelled supported       → a wrong verdict.

A flag on a wrong verdict is a catch; a flag on a correct verdict is a false alarm. Rows are split
by a hash of their id: the threshold is chosen on the ``tune`` half and reported on the
``report`` half. The cross-check is meant to flag *strong* disagreement for review, so the chosen
threshold is the highest one whose false-alarm rate stays at or under ``--max-false-alarm``
(default 5 %) on every dataset (datasets are never pooled).

    python bench/crosscheck_eval.py [--eval-dir ../shared/eval] [--limit 1500] [--json out.json]
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from citation_verifier.judge.crosscheck import agreement_score
from citation_verifier.judge.providers import local_judge
from citation_verifier.models import Label
from citation_verifier.passages import Passage
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings

_ROOT = Path(__file__).resolve().parents[1]
# ../shared/eval beside the checkout (or two levels up, from a worktree under wt/)
DEFAULT_EVAL_DIR = next(
    (p / "shared" / "eval" for p in (_ROOT.parent, _ROOT.parent.parent) if (p / "shared").is_dir()),
    _ROOT.parent / "shared" / "eval",
)
THRESHOLDS = [round(0.01 * i, 2) for i in range(1, 51)]


@dataclass(frozen=True)
class Pair:
    """A claim, the gold evidence quote, the human label and which half the row is in."""

    dataset: str
    claim: str
    quote: str
    gold: Label
    half: str


def _half(row_id: str) -> str:
    return "tune" if hashlib.sha256(row_id.encode()).digest()[0] % 2 == 0 else "report"


def _rows(path: Path) -> Iterator[dict[str, object]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            yield json.loads(line)


def climatefever(path: Path) -> Iterator[Pair]:
    """One Wikipedia sentence per row, labelled against the claim by annotators."""
    for row in _rows(path):
        text = str(row["source_text"]).strip()
        if text:
            yield Pair("climatefever", str(row["claim"]), text, Label(str(row["label"])), "")


def checkcovid(path: Path) -> Iterator[Pair]:
    """Abstract sentences; the gold evidence sentence indices are in meta."""
    for row in _rows(path):
        meta = row["meta"]
        assert isinstance(meta, dict)
        sentences, indices = meta.get("abstract_sentences"), meta.get("evidence_sentence_indices")
        if sentences and indices:
            quote = " ".join(sentences[i] for i in indices if i < len(sentences))
            yield Pair("checkcovid", str(row["claim"]), quote, Label(str(row["label"])), "")


def wice(path: Path) -> Iterator[Pair]:
    """Whole cited pages; the first gold supporting sentence set (partial for not_found rows)."""
    for row in _rows(path):
        meta = row["meta"]
        assert isinstance(meta, dict)
        raw, sets = meta.get("evidence_sentences"), meta.get("supporting_sentence_sets")
        if not raw or not sets:
            continue
        sentences = ast.literal_eval(raw) if isinstance(raw, str) else raw
        quote = " ".join(sentences[i] for i in sets[0] if i < len(sentences))
        if quote.strip():
            yield Pair("wice", str(row["claim"]), quote, Label(str(row["label"])), "")


LOADERS = {"climatefever": climatefever, "checkcovid": checkcovid, "wice": wice}


def load(eval_dir: Path, limit: int) -> list[Pair]:
    """Up to ``limit`` pairs per dataset, chosen by id hash (deterministic)."""
    pairs: list[Pair] = []
    for name, loader in LOADERS.items():
        found = list(loader(eval_dir / "claims" / f"{name}.jsonl.gz"))
        found.sort(key=lambda p: hashlib.sha256((p.claim + p.quote).encode()).hexdigest())
        for pair in found[:limit]:
            row_id = pair.claim + "\x00" + pair.quote
            pairs.append(Pair(pair.dataset, pair.claim, pair.quote, pair.gold, _half(row_id)))
    return pairs


CELLS = [
    (Label.SUPPORTED, Label.SUPPORTED, True),
    (Label.SUPPORTED, Label.NOT_FOUND, False),
    (Label.SUPPORTED, Label.CONTRADICTED, False),
    (Label.CONTRADICTED, Label.CONTRADICTED, True),
    (Label.CONTRADICTED, Label.SUPPORTED, False),
]
"""(label the LLM gives, human label, whether that verdict is correct)."""


def main() -> None:
    """Score every pair, choose the threshold on the tune half, report on the other."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    parser.add_argument("--limit", type=int, default=1500, help="pairs per dataset")
    parser.add_argument("--max-false-alarm", type=float, default=0.05)
    parser.add_argument("--json", type=Path, help="write the scores here")
    args = parser.parse_args()

    pairs = load(args.eval_dir, args.limit)
    checker = local_judge(Settings(), MiniLMEmbedder())
    started = time.monotonic()
    # scores[(dataset, half, llm_label, gold)] = agreement scores; the local judge reads each
    # pair once (its verdict does not depend on the LLM's label)
    scores: dict[tuple[str, str, Label, Label], list[float]] = {}
    local_verdicts: list[dict[str, object]] = []
    for pair in pairs:
        quote = Passage(pair.quote, 0, len(pair.quote), 0)
        local = checker.judge_sync(pair.claim, [quote])
        local_verdicts.append(
            {
                "dataset": pair.dataset,
                "half": pair.half,
                "gold": pair.gold.value,
                "local": local.label.value,
                "confidence": local.confidence,
            }
        )
        for llm_label, gold, _ in CELLS:
            if pair.gold == gold:
                key = (pair.dataset, pair.half, llm_label, gold)
                scores.setdefault(key, []).append(agreement_score(llm_label, local))
    elapsed = time.monotonic() - started
    datasets = list(LOADERS)

    def rates(half: str, threshold: float, dataset: str) -> tuple[float, float] | None:
        flagged = {True: [0, 0], False: [0, 0]}
        for llm_label, gold, correct in CELLS:
            values = scores.get((dataset, half, llm_label, gold), [])
            flagged[correct][0] += sum(v < threshold for v in values)
            flagged[correct][1] += len(values)
        if not flagged[True][1] or not flagged[False][1]:
            return None
        return flagged[False][0] / flagged[False][1], flagged[True][0] / flagged[True][1]

    best = THRESHOLDS[0]
    print("threshold  " + "  ".join(f"{d:>16}" for d in datasets) + "   (tune half: catch/false)")
    for threshold in THRESHOLDS:
        found = [rates("tune", threshold, d) for d in datasets]
        usable = [r for r in found if r is not None]
        cols = ["n/a" if r is None else f"{r[0]:.3f}/{r[1]:.3f}" for r in found]
        mean_j = sum(r[0] - r[1] for r in usable) / len(usable)
        if threshold <= 0.3 or threshold % 0.1 < 0.005:
            print(f"{threshold:>9}  " + "  ".join(f"{c:>16}" for c in cols) + f"   J={mean_j:.3f}")
        if all(r[1] <= args.max_false_alarm for r in usable):
            best = threshold
    print(f"\nchosen threshold: {best} (highest with false alarms <= {args.max_false_alarm})")
    print(f"scored {sum(len(v) for v in scores.values())} verdicts in {elapsed:.0f} s\n")
    print("report half, threshold", best)
    print(f"{'dataset':<13}{'LLM says':<14}{'human':<14}{'n':>6}{'flagged':>9}{'rate':>8}  verdict")
    for dataset in datasets:
        for llm_label, gold, correct in CELLS:
            values = scores.get((dataset, "report", llm_label, gold), [])
            if not values:
                continue
            flagged = sum(v < best for v in values)
            print(
                f"{dataset:<13}{llm_label.value:<14}{gold.value:<14}{len(values):>6}{flagged:>9}"
                f"{flagged / len(values):>8.3f}  {'correct' if correct else 'WRONG'}"
            )
    if args.json:
        args.json.write_text(json.dumps(local_verdicts))


if __name__ == "__main__":
    main()
