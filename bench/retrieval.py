"""Retrieval: how often each way of ranking a page's passages puts the gold evidence in the top k,
what it costs, and what the checker makes of the passages it picks.

Rows: the dev sets that mark their evidence sentences (WiCE, Check-COVID), `train` and `tune`
parts only (the `test` rows stay unseen), supported claims whose page has more than ``--k``
passages (on a shorter page every passage is read and ranking changes nothing). A row counts as
found when a top-k passage holds one of its gold sentences.

Configurations: embedding cosine with passages cut at 256 and at 128 word pieces, BM25
(lexical), and the two fused (hybrid, reciprocal rank fusion).

- ``--paraphrase``: the same rows with each claim rewritten by the embedded LLM (other words,
  the same facts; cached in ``--cache``), to see which retrieval leans on the claim's wording.
- The checker's balanced accuracy (supported vs rest, default thresholds) on every WiCE `tune`
  row with each configuration: what retrieval changes end to end.

    python bench/retrieval.py --paraphrase
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))  # training/data.py (torch-free): which sentences are gold

from training.data import gold_sentences  # noqa: E402

from citation_verifier.evaluate import Prediction, read_rows, score  # noqa: E402
from citation_verifier.judge.checker import CheckerJudge  # noqa: E402
from citation_verifier.judge.checker_model import CheckerModel  # noqa: E402
from citation_verifier.passages import Passage, split_passages  # noqa: E402
from citation_verifier.retrieve import MiniLMEmbedder, top_passages  # noqa: E402
from citation_verifier.settings import Retrieval, Settings  # noqa: E402
from citation_verifier.splits import split_of  # noqa: E402

EVAL_DIR = _ROOT.parent / "shared" / "eval" / "claims"
DATASETS = ("wice", "checkcovid")


@dataclass(frozen=True)
class GoldRow:
    id: str
    claim: str
    passages: list[Passage]
    gold: frozenset[int]
    """Indices of the passages holding a gold evidence sentence."""


def gold_rows(k: int) -> list[GoldRow]:
    """Supported non-test rows with located gold evidence on a page of more than ``k`` passages."""
    rows = []
    for dataset in DATASETS:
        with gzip.open(EVAL_DIR / f"{dataset}.jsonl.gz", "rt", encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                source = str(row.get("source_text") or "")
                if row["label"] != "supported" or split_of(dataset, source) == "test":
                    continue
                sentences = [s for group in gold_sentences(dataset, row["meta"]) for s in group]
                passages = split_passages(source, 200)
                # A gold sentence may be cut across two passages: its first 80 characters decide.
                gold = frozenset(
                    i
                    for i, p in enumerate(passages)
                    if any(s and s[:80] in p.text for s in sentences)
                )
                if len(passages) > k and gold:
                    rows.append(GoldRow(row["id"], str(row["claim"]), passages, gold))
    return rows


Rank = Callable[[str, Sequence[Passage], int], list[Passage]]


def configurations() -> dict[str, Rank]:
    wide, narrow = MiniLMEmbedder(max_tokens=256), MiniLMEmbedder(max_tokens=128)

    def make(embedder: MiniLMEmbedder, retrieval: Retrieval) -> Rank:
        return lambda claim, passages, k: top_passages(claim, passages, embedder, k, retrieval)

    return {
        "embedding, 256 word pieces": make(wide, "embedding"),
        "embedding, 128 word pieces": make(narrow, "embedding"),
        "lexical (BM25)": make(narrow, "lexical"),
        "hybrid, 128 word pieces": make(narrow, "hybrid"),
        "hybrid, 256 word pieces": make(wide, "hybrid"),
    }


def paraphrases(rows: Sequence[GoldRow], cache: Path, settings: Settings) -> dict[str, str]:
    """Each claim rewritten by the embedded LLM (cached by row id)."""
    from llama_cpp import Llama

    from citation_verifier.judge.model_file import model_path

    done: dict[str, str] = json.loads(cache.read_text()) if cache.exists() else {}
    missing = [r for r in rows if r.id not in done]
    if missing:
        llm = Llama(str(model_path(settings)), n_ctx=512, n_threads=2, verbose=False)
        for row in missing:
            reply = llm.create_chat_completion(
                messages=[
                    {"role": "system", "content": "You rewrite sentences."},
                    {
                        "role": "user",
                        "content": "Rewrite this statement in different words (use synonyms, "
                        "change the word order), keeping every fact, name and number. Reply "
                        "with the rewritten statement only.\n\n" + row.claim,
                    },
                ],
                temperature=0,
                max_tokens=120,
            )
            done[row.id] = str(reply["choices"][0]["message"]["content"]).strip()  # type: ignore[index]
            cache.write_text(json.dumps(done, indent=1))
    return done


def recall_table(rows: Sequence[GoldRow], ranks: dict[str, Rank], k: int, title: str) -> None:
    print(f"\n{title} (n = {len(rows)})\n")
    print(f"| retrieval | gold at 1 | gold in top {k} | median s | p90 s |")
    print("|---|---|---|---|---|")
    for name, rank in ranks.items():
        rank(rows[0].claim, rows[0].passages, k)  # load the model outside the timing
        at1 = atk = 0
        seconds = []
        for row in rows:
            start = time.perf_counter()
            best = rank(row.claim, row.passages, k)
            seconds.append(time.perf_counter() - start)
            at1 += best[0].index in row.gold
            atk += any(p.index in row.gold for p in best)
        seconds.sort()
        print(
            f"| {name} | {at1 / len(rows):.3f} | {atk / len(rows):.3f} "
            f"| {statistics.median(seconds):.3f} | {seconds[int(0.9 * len(seconds))]:.3f} |"
        )


def checker_table(ranks: dict[str, Rank], settings: Settings) -> None:
    tune, _ = read_rows(EVAL_DIR / "wice.jsonl.gz", "tune")
    judge = CheckerJudge(CheckerModel(settings.checker_model_path))
    print(f"\nThe checker on WiCE tune rows (n = {len(tune)})\n")
    print("| retrieval | balanced accuracy | rows whose passages differ from embedding, 256 |")
    print("|---|---|---|")
    reference: dict[str, list[int]] = {}
    for name, rank in ranks.items():
        predictions, differ = [], 0
        for row in tune:
            best = rank(row.claim, split_passages(row.source_text, 200), settings.top_k)
            chosen = sorted(p.index for p in best)
            differ += reference.setdefault(row.id, chosen) != chosen
            label = judge.judge_sync(row.claim, best).label.value
            predictions.append(Prediction(row.id, row.label.value, label, None, 0.0))
        accuracy = score(predictions, three_way=False).balanced_accuracy
        print(f"| {name} | {accuracy:.3f} | {differ} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--paraphrase", action="store_true")
    parser.add_argument(
        "--cache", type=Path, default=_ROOT / "bench-output" / "retrieval-paraphrases.json"
    )
    args = parser.parse_args()
    settings = Settings()
    rows = gold_rows(args.k)
    ranks = configurations()
    recall_table(rows, ranks, args.k, "Gold evidence retrieved, claims as written")
    if args.paraphrase:
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        rewritten = paraphrases(rows, args.cache, settings)
        reworded = [GoldRow(r.id, rewritten[r.id], r.passages, r.gold) for r in rows]
        recall_table(reworded, ranks, args.k, "Gold evidence retrieved, claims paraphrased")
    checker_table(ranks, settings)


if __name__ == "__main__":
    main()
