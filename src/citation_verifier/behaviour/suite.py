"""The behavioural suite: built from templates and real sentences, run through the same
passages → retrieve → judge → guard path as a live citation, scored per category."""

from __future__ import annotations

import gzip
import json
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citation_verifier.behaviour.cases import CATEGORIES, Case, Half
from citation_verifier.behaviour.edits import sentence_cases, sentences
from citation_verifier.behaviour.templates import template_cases
from citation_verifier.fetch.policy import Document
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.pipeline import build_verifier
from citation_verifier.settings import Settings
from citation_verifier.splits import LICENSED_FOR_TRAINING, split_of

# Real sentences are drawn from these many documents of each licensed dev set.
DOCUMENTS_PER_SET = 40


def licensed_passages(
    eval_dir: Path, half: Half, per_set: int = DOCUMENTS_PER_SET, seed: int = 13
) -> list[tuple[str, str]]:
    """(dataset, passage) pairs from the licensed dev sets: their ``test`` rows when measuring
    (never trained or tuned on), their ``train`` rows for training. One passage with
    claim-sized sentences per document, ``per_set`` documents per set (seeded)."""
    rng = random.Random(f"{seed}:{half}")
    wanted = "test" if half == "measure" else "train"
    out: list[tuple[str, str]] = []
    for dataset in sorted(LICENSED_FOR_TRAINING):
        path = eval_dir / f"{dataset}.jsonl.gz"
        if not path.is_file():
            continue
        documents: set[str] = set()
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                text = str(json.loads(line).get("source_text") or "").strip()
                if text and split_of(dataset, text) == wanted:
                    documents.add(text)
        chosen: list[tuple[str, str]] = []
        for document in sorted(documents):
            usable = [p.text for p in split_passages(document) if sentences(p.text)]
            if usable:
                chosen.append((dataset, rng.choice(usable)))
        out.extend(rng.sample(chosen, min(per_set, len(chosen))))
    return out


def build_suite(
    half: Half,
    *,
    eval_dir: Path | None,
    per_template: int = 12,
    per_set: int = DOCUMENTS_PER_SET,
    seed: int = 13,
) -> list[Case]:
    """The suite's cases of one half: every template ``per_template`` times, and edits of real
    sentences from ``eval_dir``'s licensed sets (none when ``eval_dir`` is None)."""
    cases = list(template_cases(half, per_template, seed))
    if eval_dir is not None:
        passages = licensed_passages(eval_dir, half, per_set, seed)
        cases.extend(sentence_cases(passages, random.Random(f"{seed}:{half}:edits")))
    return cases


def fast_subset(cases: Sequence[Case], per_category: int = 6) -> list[Case]:
    """A few cases of every template (for the test suite), covering every category."""
    by_template: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        by_template[case.template].append(case)
    per_template = max(1, per_category // 3)
    return [c for group in by_template.values() for c in group[:per_template]]


@dataclass(frozen=True)
class Outcome:
    """What the judge said about one case."""

    case: Case
    predicted: Label
    quote: str | None
    detail: str | None
    seconds: float

    @property
    def passed(self) -> bool:
        """See :meth:`Case.passes`."""
        return self.case.passes(self.predicted)


async def run_cases(
    cases: Sequence[Case],
    settings: Settings,
    on_progress: Callable[[int, int], None] = lambda done, total: None,
) -> list[Outcome]:
    """Judge every case on its evidence page (no fetch), in order."""
    outcomes: list[Outcome] = []
    async with build_verifier(settings) as verifier:
        for index, case in enumerate(cases):
            start = time.perf_counter()
            document = Document(
                url=f"suite:{case.id}",
                final_url=f"suite:{case.id}",
                status=200,
                text=case.evidence,
                kind="text",
            )
            verdict = await verifier.judge_document(case.claim, document)
            outcomes.append(
                Outcome(
                    case,
                    verdict.label,
                    verdict.evidence_quote,
                    verdict.detail,
                    time.perf_counter() - start,
                )
            )
            on_progress(index + 1, len(cases))
    return outcomes


@dataclass(frozen=True)
class CategoryScore:
    """One category's results."""

    category: str
    n: int
    pass_rate: float
    """Supported cases supported, every other case not supported."""
    exact_rate: float
    """The exact expected label."""
    supported_n: int
    """How many of its cases are positive controls (expected supported)."""

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` shape."""
        return {
            "n": self.n,
            "pass_rate": round(self.pass_rate, 4),
            "exact_rate": round(self.exact_rate, 4),
            "supported_cases": self.supported_n,
        }


def score_categories(outcomes: Sequence[Outcome]) -> list[CategoryScore]:
    """Per category, in the suite's order."""
    by_category: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_category[outcome.case.category].append(outcome)
    scores = []
    for category in CATEGORIES:
        group = by_category.get(category, [])
        if not group:
            continue
        scores.append(
            CategoryScore(
                category,
                len(group),
                sum(o.passed for o in group) / len(group),
                sum(o.case.strictly_passes(o.predicted) for o in group) / len(group),
                sum(o.case.expected == Label.SUPPORTED for o in group),
            )
        )
    return scores


def failures(outcomes: Sequence[Outcome]) -> Iterator[Outcome]:
    """The cases the judge failed, for reading."""
    return (o for o in outcomes if not o.passed)
