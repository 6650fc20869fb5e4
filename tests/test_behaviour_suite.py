"""The behavioural suite (citation_verifier.behaviour): how it is built, what is held out, and
the checker on its fast subset."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from citation_verifier.behaviour import templates
from citation_verifier.behaviour.cases import CATEGORIES, Case
from citation_verifier.behaviour.edits import (
    drop_hedge,
    regroup_thousands,
    sentence_cases,
    swap_antonym,
    swap_entity,
    swap_roles,
)
from citation_verifier.behaviour.suite import build_suite, fast_subset, licensed_passages
from citation_verifier.models import Label
from citation_verifier.splits import split_of

ROOT = Path(__file__).resolve().parents[1]
SHARED_CLAIMS = ROOT.parent / "shared" / "eval" / "claims"


def test_measured_and_trained_halves_share_no_template_and_no_filler_word() -> None:
    measured = {t.id for t in templates.TEMPLATES if t.half == "measure"}
    trained = {t.id for t in templates.TEMPLATES if t.half == "train"}
    assert measured and trained and not measured & trained
    for slot, halves in templates._FILLERS.items():
        assert not set(halves["measure"]) & set(halves["train"]), slot


@pytest.mark.parametrize("half", ["measure", "train"])
def test_every_category_has_cases_and_positive_controls_in_each_half(half: str) -> None:
    cases = list(templates.template_cases(half, 2))  # type: ignore[arg-type]
    for category in CATEGORIES:
        group = [c for c in cases if c.category == category]
        assert group, category
        assert any(c.expected == Label.SUPPORTED for c in group), category


def test_a_template_case_sets_its_evidence_in_a_page_of_distractors() -> None:
    case = next(templates.template_cases("measure", 1))
    assert case.evidence.count(".") >= 3  # the sentence and two distractors


def test_passing_means_never_supported_unless_supported() -> None:
    contradiction = Case("x", "negation", "c", "e", Label.CONTRADICTED, "t", "s")
    assert contradiction.passes(Label.NOT_FOUND) and not contradiction.passes(Label.SUPPORTED)
    assert not contradiction.strictly_passes(Label.NOT_FOUND)
    control = Case("y", "negation", "c", "e", Label.SUPPORTED, "t", "s")
    assert control.passes(Label.SUPPORTED) and not control.passes(Label.NOT_FOUND)


def test_edits_change_what_a_sentence_states() -> None:
    assert regroup_thousands("It employs 2,068 people.") == "It employs 2068 people."
    assert regroup_thousands("It employs 20680 people.") == "It employs 20,680 people."
    assert regroup_thousands("It opened in 1932.") is None  # years keep their spelling
    assert swap_roles("Federer defeated Nadal in Paris.") == "Nadal defeated Federer in Paris."
    assert swap_roles("The bridge opened in Paris.") is None
    assert swap_antonym("Cases increased after May.") == "Cases decreased after May."
    assert drop_hedge("Tea may reduce the risk.") == "Tea will reduce the risk."
    assert drop_hedge("Tea is associated with calm.") == "Tea causes calm."
    swapped = swap_entity("The prize went to Maria Keller.", ["Tomas Novak"], random.Random(1))
    assert swapped == "The prize went to Tomas Novak."


def test_sentence_cases_are_checked_against_the_passage_they_come_from() -> None:
    passages = [
        ("a", "The bridge over the river opened to traffic in 1932 after four years of work."),
        ("b", "Maria Keller was elected mayor of the city of Lyon in 2014 by a wide margin."),
    ]
    cases = list(sentence_cases(passages, random.Random(3)))
    assert {c.category for c in cases} >= {"verbatim", "numbers", "negation", "partial"}
    for case in cases:
        assert case.evidence in {p for _, p in passages}
        if case.template == "real-verbatim":
            assert case.claim in case.evidence and case.expected == Label.SUPPORTED


def write_set(path: Path, texts: list[str]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for i, text in enumerate(texts):
            row = {"id": str(i), "claim": "c", "label": "supported", "source_text": text}
            handle.write(json.dumps(row) + "\n")


def test_measured_sentences_come_only_from_test_rows(tmp_path: Path) -> None:
    texts = [
        f"Report number {i} says the town council approved a new budget for the harbour area."
        for i in range(60)
    ]
    write_set(tmp_path / "wice.jsonl.gz", texts)
    for half, split in (("measure", "test"), ("train", "train")):
        chosen = licensed_passages(tmp_path, half, per_set=100)  # type: ignore[arg-type]
        assert chosen
        assert all(split_of("wice", text) == split for _, text in chosen)


def test_the_fast_subset_covers_every_category() -> None:
    cases = fast_subset(build_suite("measure", eval_dir=None))
    assert {c.category for c in cases} == set(CATEGORIES)
    assert len(cases) < 150


def test_eval_suite_behaviour_scores_the_checker_per_category(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "citation_verifier",
            "eval",
            "--suite",
            "behaviour",
            "--fast",
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "CACHE_DIR": str(tmp_path), "JUDGE_PROVIDER": "checker"},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert set(payload["categories"]) == set(CATEGORIES)
    for category, scores in payload["categories"].items():
        assert scores["pass_rate"] >= PASS_RATE[category], (category, payload["failures"])


# What the shipped checker must keep passing on the fast subset (docs/BEHAVIOUR.md): 0.9 in
# every category, as on the measured half; the subset's eight hedges cases include one edit of
# a real sentence the rules leave to the model (7 of 8).
PASS_RATE = dict.fromkeys(CATEGORIES, 0.9) | {"hedges": 0.85}


def test_eval_refuses_files_and_a_suite_together(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "eval", "x.jsonl", "--suite", "behaviour"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and "either" in done.stderr
