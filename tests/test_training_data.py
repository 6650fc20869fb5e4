"""The checker's training data assembly (training/data.py): splits, passages, hard negatives."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest
from training.data import (
    LABELS,
    best_passage,
    licensed_examples,
    negation_examples,
    page_examples,
    shared_examples,
    training_mix,
    without_negation,
)

from citation_verifier.behaviour.edits import change_number, negate
from citation_verifier.splits import LICENSED_FOR_TRAINING, SPLITS, split_of


def write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    return path


def test_splits_are_fixed_and_only_licensed_sets_have_a_training_part() -> None:
    sources = [f"document number {i}" for i in range(300)]
    for dataset in ("wice", "climatefever"):
        parts = [split_of(dataset, s) for s in sources]
        assert parts == [split_of(dataset, s) for s in sources]  # deterministic
        assert set(parts) <= set(SPLITS)
    assert "train" in {split_of("wice", s) for s in sources}
    assert "train" not in {split_of("climatefever", s) for s in sources}
    assert {"wice", "expertqa", "factcheckgpt", "checkcovid"} == LICENSED_FOR_TRAINING


def test_a_long_document_is_cut_to_the_passage_holding_the_gold_evidence() -> None:
    filler = " ".join(f"word{i}" for i in range(450))
    document = f"{filler}\n\nThe bridge opened in 1932 and carries six lanes.\n\n{filler}"
    claim = "The bridge opened in 1932."
    passage = best_passage(claim, document, ["The bridge opened in 1932 and carries six lanes."])
    assert "The bridge opened in 1932" in passage
    assert len(passage.split()) <= 200


def test_changing_a_shared_number_makes_a_contradiction_candidate() -> None:
    rng = random.Random(1)
    edited = change_number("The bridge opened in 1932.", "It opened in 1932.", rng)
    assert edited is not None and edited != "The bridge opened in 1932."
    assert "1932" not in edited
    assert change_number("The bridge is old.", "It opened in 1932.", rng) is None
    assert change_number("It had 7 lanes.", "It had 6 lanes.", rng) is None  # 7 not in evidence


def test_negation_inserts_not_after_the_first_auxiliary_once() -> None:
    assert negate("The bridge was opened in 1932.") == "The bridge was not opened in 1932."
    assert negate("The bridge was not opened in 1932.") is None
    assert negate("Bridges carry cars.") is None


def test_binary_rows_keep_their_label_space(tmp_path: Path) -> None:
    train = tmp_path / "train"
    write(
        train / "x.jsonl.gz",
        [
            {
                "claim": "A dog runs.",
                "source_text": "A dog is running in a park.",
                "label": "supported",
                "dataset": "snli",
                "label_space": "3way",
            },
            {
                "claim": "A cat sleeps.",
                "source_text": "A dog is running in a park.",
                "label": "not_found",
                "dataset": "docnli",
                "label_space": "binary",
            },
        ],
    )
    examples = shared_examples(train)
    assert [(e.label, e.binary) for e in examples] == [("supported", False), ("not_found", True)]


def _checkcovid_rows(count: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for i in range(count):
        sentences = [
            f"Study {i} enrolled 120 patients in {2000 + i}.",
            f"Treatment {i} was associated with lower mortality.",
        ]
        rows.append(
            {
                "id": f"checkcovid-{i}",
                "claim": f"Treatment {i} was associated with lower mortality in 120 patients.",
                "label": "supported",
                "source_text": " ".join(sentences),
                "meta": {"abstract_sentences": sentences, "evidence_sentence_indices": [1]},
            }
        )
    return rows


def test_licensed_rows_come_only_from_the_training_part_with_hard_negatives(
    tmp_path: Path,
) -> None:
    evals = tmp_path / "eval"
    rows = _checkcovid_rows(60)
    write(evals / "checkcovid.jsonl.gz", rows)
    for other in LICENSED_FOR_TRAINING - {"checkcovid"}:
        write(evals / f"{other}.jsonl.gz", [])
    examples = licensed_examples(evals, "train")
    training_sources = {
        str(r["source_text"])
        for r in rows
        if split_of("checkcovid", str(r["source_text"])) == "train"
    }
    originals = [e for e in examples if e.origin == "checkcovid"]
    assert len(originals) == len(training_sources) > 0
    removed = [e for e in examples if e.origin == "checkcovid:removed"]
    assert removed and all(e.label == "not_found" for e in removed)
    assert all("associated with lower mortality" not in e.evidence for e in removed)
    edited = [e for e in examples if e.origin == "checkcovid:edited"]
    assert edited and all(e.label == "contradicted" for e in edited)


def _data_dirs(tmp_path: Path, shared: list[dict[str, object]]) -> tuple[Path, Path]:
    """shared/train with ``shared`` rows, and the dev sets with 30 Check-COVID rows."""
    evals = tmp_path / "eval"
    write(evals / "checkcovid.jsonl.gz", _checkcovid_rows(30))
    for other in LICENSED_FOR_TRAINING - {"checkcovid"}:
        write(evals / f"{other}.jsonl.gz", [])
    write(tmp_path / "train" / "shared.jsonl.gz", shared)
    return tmp_path / "train", evals


def test_the_training_mix_is_seeded(tmp_path: Path) -> None:
    train, evals = _data_dirs(tmp_path, [])
    first = training_mix(train, evals, seed=5)
    assert first == training_mix(train, evals, seed=5)
    assert first != training_mix(train, evals, seed=6)


def _shared_rows(n: int) -> list[dict[str, object]]:
    return [
        {
            "claim": f"Claim {i}.",
            "source_text": f"Source {i}.",
            "label": "supported",
            "dataset": "x",
        }
        for i in range(n)
    ]


def test_a_left_out_dataset_contributes_no_rows(tmp_path: Path) -> None:
    train, evals = _data_dirs(tmp_path, _shared_rows(5))
    assert {e.origin for e in training_mix(train, evals)} >= {"checkcovid", "x"}
    without = training_mix(train, evals, exclude=["checkcovid"])
    assert {e.origin for e in without} == {"x"}
    with pytest.raises(ValueError, match="not a licensed dev set: climatefever"):
        training_mix(train, evals, exclude=["climatefever"])


def test_the_general_stage_has_no_in_domain_rows_and_a_seeded_share_of_shared_rows(
    tmp_path: Path,
) -> None:
    train, evals = _data_dirs(tmp_path, _shared_rows(40))
    general = training_mix(train, evals, in_domain_repeats=0)
    assert len(general) == 40 and {e.origin for e in general} == {"x"}
    replay = training_mix(train, evals, in_domain_repeats=1, shared_rows=10)
    assert sum(e.origin == "x" for e in replay) == 10
    assert replay == training_mix(train, evals, in_domain_repeats=1, shared_rows=10)
    assert len(training_mix(train, evals, in_domain_repeats=2)) - 40 == 2 * (len(replay) - 10)


def _page(topic: str) -> str:
    """A page of three passages, each a run of whole sentences about ``topic``."""
    passages = []
    for p in range(3):
        sentences = [
            f"The {topic} report number {p} noted that {10 * p + i} towns lost power in 2019."
            for i in range(14)
        ]
        passages.append(" ".join(sentences))
    return "\n\n".join(passages)


def test_page_examples_pair_a_passage_with_its_own_and_other_sentences(tmp_path: Path) -> None:
    evals = tmp_path / "eval"
    pages = [_page(f"storm{i}") for i in range(20)]
    write(
        evals / "wice.jsonl.gz",
        [{"claim": "x", "label": "supported", "source_text": page} for page in pages],
    )
    for other in LICENSED_FOR_TRAINING - {"wice"}:
        write(evals / f"{other}.jsonl.gz", [])
    examples = page_examples(evals, draws=2)
    training_pages = [p for p in pages if split_of("wice", p) == "train"]
    assert training_pages and len(examples) >= 3 * 2 * len(training_pages)
    assert {e.origin for e in examples} == {"wice:page"}
    assert all(any(e.evidence in page for page in training_pages) for e in examples)
    by_label = {label: [e for e in examples if e.label == label] for label in LABELS}
    assert all(e.claim in e.evidence for e in by_label["supported"])
    assert all(e.claim not in e.evidence for e in by_label["not_found"])
    assert any(", and " in e.claim for e in by_label["not_found"])  # partly stated
    assert by_label["contradicted"] and all(
        e.claim not in e.evidence for e in by_label["contradicted"]
    )
    assert examples == page_examples(evals, draws=2)  # seeded
    assert page_examples(evals, draws=2, exclude=["wice"]) == []
    write(tmp_path / "train" / "shared.jsonl.gz", [])
    mix = training_mix(tmp_path / "train", evals, in_domain_repeats=0, page_draws=2)
    assert sorted(mix, key=repr) == sorted(examples, key=repr)  # once, shuffled in


def test_without_negation_makes_one_negated_auxiliary_positive() -> None:
    assert without_negation("The man is not sleeping.") == "The man is sleeping."
    assert without_negation("She doesn't swim.") == "She does swim."
    assert without_negation("Nobody is not here.") is None
    assert without_negation("The man is sleeping.") is None


def test_negation_examples_flip_the_label_the_flip_decides_and_balance_the_labels(
    tmp_path: Path,
) -> None:
    premise = "A man is sleeping on a couch."
    rows = [
        ("A man is sleeping.", "supported"),  # entailed, negated: contradicted
        ("A man is not sleeping.", "contradicted"),  # made positive: entailed
        ("A man is running on a couch.", "contradicted"),  # same words, negated: entailed
        ("A woman is dancing.", "contradicted"),  # about something else: left out
        ("A man is tired.", "not_found"),  # neutral either way
    ]
    write(
        tmp_path / "snli.jsonl.gz",
        [
            {"claim": c, "source_text": premise, "label": label, "dataset": "snli"}
            for c, label in rows
        ],
    )
    examples = negation_examples(tmp_path, rows=30)
    got = {(e.claim, e.label) for e in examples}
    assert ("A man is not tired.", "not_found") in got
    assert ("A man is not sleeping.", "contradicted") in got
    assert (
        len(
            got
            & {
                ("A man is sleeping.", "supported"),
                ("A man is not running on a couch.", "supported"),
            }
        )
        == 1
    )
    assert not any("woman" in e.claim for e in examples)
    assert [e.label for e in examples].count("supported") == 1
    assert all(e.evidence == premise and not e.binary for e in examples)
