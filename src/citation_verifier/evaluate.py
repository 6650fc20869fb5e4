"""``citation-verifier eval``: score the judge path on human-labelled claim/source pairs.

Each row (``id, claim, label, source_text``) goes through the same passages → retrieve → judge →
guard path as a live citation, on its ``source_text`` (no fetch); with ``via_http`` each source
is served as an HTML page on 127.0.0.1 and the full pipeline runs, fetch and extraction included.
Scores are per dataset, never pooled: binary supported-vs-rest balanced accuracy everywhere,
three-way accuracy and macro-F1 where the file has contradicted rows.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import html
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.fetch.policy import Document
from citation_verifier.judge.base import exact_check_rule
from citation_verifier.judge.calibration import (
    FEATURES,
    CalibrationCard,
    Signals,
    card_for,
    expected_calibration_error,
    risk_coverage,
)
from citation_verifier.models import FAILURES, Label, Reason
from citation_verifier.pipeline import build_verifier
from citation_verifier.settings import Settings
from citation_verifier.splits import Split, split_of
from citation_verifier.verifier import Verifier

LABELS = (Label.SUPPORTED, Label.CONTRADICTED, Label.NOT_FOUND)
# Settings that change a verdict: a checkpoint from other values must not be reused.
_VERDICT_SETTINGS = {
    "readability_min_chars",
    "soft_404_max_chars",
    "passage_max_words",
    "top_k",
    "retrieval",
}
_VERDICT_SETTING_PREFIXES = (
    "judge_provider",
    "lexical_judge_",
    "local_judge_",
    "checker_",
    "second_opinion_",
    "language_judge",
)


def _verdict_settings(settings: Settings) -> str:
    names = {
        name
        for name in type(settings).model_fields
        if name in _VERDICT_SETTINGS or name.startswith(_VERDICT_SETTING_PREFIXES)
    }
    return settings.model_dump_json(include=names)


@dataclass(frozen=True)
class EvalRow:
    """One labelled pair from a dataset file."""

    dataset: str
    id: str
    claim: str
    label: Label
    source_text: str


@dataclass
class Prediction:
    """What the pipeline said about one row."""

    id: str
    gold: str
    predicted: str
    reason: str | None
    seconds: float
    language: str | None = None
    """The claim's language as identified (``None`` in checkpoints written before it was)."""
    rule: str | None = None
    """The exact check that decided the verdict, when one did (how often each fires, and how
    well, is read off the checkpoints)."""
    confidence: float | None = None
    """The verdict's confidence (``None`` in checkpoints written before it was kept)."""
    needs_review: bool = False
    signals: dict[str, Any] | None = None
    """What the confidence was computed from (calibration.Signals): ``calibrate`` fits on it."""

    @property
    def right(self) -> bool:
        """Whether the supported-versus-rest call is the gold one (what confidence predicts)."""
        return (self.gold == Label.SUPPORTED) == (self.predicted == Label.SUPPORTED)


def dataset_name(path: Path) -> str:
    """``wice`` for ``.../wice.jsonl.gz``."""
    name = path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


def read_rows(path: Path, split: Split | None = None) -> tuple[list[EvalRow], int]:
    """Rows with a usable source text (in ``split`` only, when given: see ``splits``), and how
    many rows were skipped (no text, bad label). Rows of other splits are neither."""
    opener = gzip.open if path.suffix == ".gz" else open
    rows: list[EvalRow] = []
    skipped = 0
    name = dataset_name(path)
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                row = EvalRow(
                    dataset=name,
                    id=str(record.get("id") or f"{name}:{number}"),
                    claim=str(record["claim"]).strip(),
                    label=Label(record["label"]),
                    source_text=str(record.get("source_text") or ""),
                )
            except (json.JSONDecodeError, KeyError, ValueError, TypeError):
                skipped += 1
                continue
            if not row.source_text.strip() or not row.claim or row.label == Label.UNREACHABLE:
                skipped += 1
                continue
            if split is None or split_of(name, row.source_text) == split:
                rows.append(row)
    return rows, skipped


def stratified_sample(rows: Sequence[EvalRow], limit: int | None, seed: int) -> list[EvalRow]:
    """A seeded sample of ``limit`` rows keeping each label's share (largest remainders)."""
    if limit is None or limit >= len(rows):
        return list(rows)
    by_label: dict[Label, list[EvalRow]] = defaultdict(list)
    for row in rows:
        by_label[row.label].append(row)
    exact = {label: limit * len(group) / len(rows) for label, group in by_label.items()}
    quota = {label: int(share) for label, share in exact.items()}
    leftover = limit - sum(quota.values())
    for label in sorted(exact, key=lambda lb: (quota[lb] - exact[lb], lb.value))[:leftover]:
        quota[label] += 1
    rng = random.Random(seed)
    sample: list[EvalRow] = []
    for label in sorted(by_label, key=lambda lb: lb.value):
        sample.extend(rng.sample(by_label[label], quota[label]))
    rng.shuffle(sample)
    return sample


@dataclass
class Scores:
    """Per-dataset metrics."""

    n: int
    balanced_accuracy: float
    accuracy: float | None
    macro_f1: float | None
    confusion: dict[str, dict[str, int]]
    errors: int
    sec_per_citation: float
    median_sec: float
    p90_sec: float = 0.0
    skipped: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    unsupported: int = 0
    """Rows no configured judge reads (``unsupported_language``): not judged, left out of every
    score."""
    languages: dict[str, int] = field(default_factory=dict)
    """Rows per claim language."""
    exact_checks: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per exact check that decided rows: how many, by ``gold->predicted`` (how often a rule
    fires and how well)."""
    ece: float | None = None
    """Expected calibration error of ``confidence`` against supported-vs-rest rightness."""
    risk_coverage: dict[str, float | None] = field(default_factory=dict)
    """Balanced accuracy of the most confident 100/80/60/40 % of verdicts."""
    review_share: float | None = None
    """Share of verdicts marked ``needs_review``."""
    unreviewed_accuracy: float | None = None
    """Supported-vs-rest accuracy of the verdicts not marked, beside ``binary_accuracy``."""
    binary_accuracy: float | None = None
    """Supported-vs-rest accuracy of all verdicts."""

    @property
    def language(self) -> str:
        """The rows' main claim language (``-`` when unknown), e.g. ``ru``."""
        known = {k: v for k, v in self.languages.items() if k != "?"}
        return max(known, key=lambda k: known[k]) if known else "-"

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` shape."""
        return {
            "n": self.n,
            "balanced_accuracy": _round(self.balanced_accuracy),
            "accuracy": _round(self.accuracy),
            "macro_f1": _round(self.macro_f1),
            "confusion": self.confusion,
            "errors": self.errors,
            "sec_per_citation": _round(self.sec_per_citation),
            "median_sec_per_citation": _round(self.median_sec),
            "p90_sec_per_citation": _round(self.p90_sec),
            "skipped_rows": self.skipped,
            "reasons": self.reasons,
            "unsupported_language": self.unsupported,
            "languages": self.languages,
            "exact_checks": self.exact_checks,
            "expected_calibration_error": _round(self.ece),
            "risk_coverage": {k: _round(v) for k, v in self.risk_coverage.items()},
            "needs_review_share": _round(self.review_share),
            "binary_accuracy": _round(self.binary_accuracy),
            "unreviewed_binary_accuracy": _round(self.unreviewed_accuracy),
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _recall(pairs: Sequence[tuple[bool, bool]], positive: bool) -> float | None:
    relevant = [p for g, p in pairs if g == positive]
    return None if not relevant else sum(1 for p in relevant if p == positive) / len(relevant)


def score(predictions: Sequence[Prediction], three_way: bool, skipped: int = 0) -> Scores:
    """Balanced accuracy of supported-vs-rest; accuracy and macro-F1 over three labels when
    ``three_way``. A class absent from the gold labels is left out of the balanced mean; rows
    no judge reads (``unsupported_language``) are counted, never scored."""
    languages = dict(Counter(p.language or "?" for p in predictions))
    every = predictions
    predictions = [p for p in every if p.reason != Reason.UNSUPPORTED_LANGUAGE]
    binary = [(p.gold == Label.SUPPORTED, p.predicted == Label.SUPPORTED) for p in predictions]
    recalls = [r for r in (_recall(binary, True), _recall(binary, False)) if r is not None]
    confusion = {g.value: {p.value: 0 for p in LABELS} for g in LABELS}
    for p in predictions:
        confusion[p.gold][p.predicted] += 1
    accuracy = macro_f1 = None
    if three_way and predictions:
        accuracy = sum(p.gold == p.predicted for p in predictions) / len(predictions)
        f1s = []
        for label in LABELS:
            tp = confusion[label][label]
            predicted = sum(confusion[g][label] for g in confusion)
            actual = sum(confusion[label].values())
            f1s.append(0.0 if tp == 0 else 2 * tp / (predicted + actual))
        macro_f1 = sum(f1s) / len(f1s)
    seconds = sorted(p.seconds for p in predictions)
    fired: dict[str, Counter[str]] = {}
    for p in predictions:
        if p.rule is not None:
            fired.setdefault(p.rule, Counter())[f"{p.gold}->{p.predicted}"] += 1
    return Scores(
        n=len(predictions),
        balanced_accuracy=sum(recalls) / len(recalls) if recalls else 0.0,
        accuracy=accuracy,
        macro_f1=macro_f1,
        confusion=confusion,
        errors=sum(1 for p in predictions if p.reason in FAILURES),
        sec_per_citation=sum(seconds) / len(seconds) if seconds else 0.0,
        median_sec=seconds[len(seconds) // 2] if seconds else 0.0,
        p90_sec=seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))] if seconds else 0.0,
        skipped=skipped,
        reasons=dict(Counter(p.reason for p in every if p.reason)),
        unsupported=len(every) - len(predictions),
        languages=languages,
        exact_checks={rule: dict(counts) for rule, counts in sorted(fired.items())},
        **_confidence_scores(predictions),
    )


def _confidence_scores(predictions: Sequence[Prediction]) -> dict[str, Any]:
    """How well ``confidence`` and ``needs_review`` separate right verdicts from wrong ones
    (rows of checkpoints without a confidence are left out)."""
    rated = [p for p in predictions if p.confidence is not None and p.reason not in FAILURES]
    if not rated:
        return {}
    confidences = [p.confidence or 0.0 for p in rated]
    rights = [p.right for p in rated]
    unmarked = [p.right for p in rated if not p.needs_review]
    return {
        "ece": expected_calibration_error(confidences, rights),
        "risk_coverage": risk_coverage(
            confidences,
            [p.predicted == Label.SUPPORTED for p in rated],
            [p.gold == Label.SUPPORTED for p in rated],
        ),
        "review_share": sum(p.needs_review for p in rated) / len(rated),
        "binary_accuracy": sum(rights) / len(rights),
        "unreviewed_accuracy": sum(unmarked) / len(unmarked) if unmarked else None,
    }


class Checkpoint:
    """Append-only JSONL of finished predictions, so a killed run continues where it stopped."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: dict[str, Prediction] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                    self.done[record["key"]] = Prediction(**record["prediction"])
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue  # a line cut short by a kill: that row runs again
        path.parent.mkdir(parents=True, exist_ok=True)

    def add(self, key: str, prediction: Prediction) -> None:
        """Record one finished row (flushed at once)."""
        self.done[key] = prediction
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"key": key, "prediction": prediction.__dict__}) + "\n")


def run_key(judge_name: str, via_http: bool, settings_fingerprint: str) -> str:
    """Identifies a configuration: a checkpoint is reused only by the same configuration."""
    # Checkpoints written with other confidence signals are not reused: calibrate fits on them.
    raw = f"{judge_name}|{via_http}|{settings_fingerprint}|{','.join(FEATURES)}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def source_page(row: EvalRow) -> str:
    """A source text as a simple HTML article (one <p> per paragraph) for ``via_http``."""
    paragraphs = [p for p in row.source_text.replace("\r\n", "\n").split("\n") if p.strip()]
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        "<!doctype html><html><head><title>source</title></head>"
        f"<body><article>{body}</article></body></html>"
    )


async def predict(verifier: Verifier, row: EvalRow, url: str | None) -> Prediction:
    """Run one row through the pipeline: on its text, or through fetch when ``url`` is given."""
    start = time.perf_counter()
    if url is None:
        document = Document(
            url=row.id, final_url=row.id, status=200, text=row.source_text, kind="text"
        )
        verdict = await verifier.judge_document(row.claim, document)
    else:
        verdict = await verifier.verify_url(row.claim, url)
    label = verdict.label if verdict.label != Label.UNREACHABLE else Label.NOT_FOUND
    return Prediction(
        row.id,
        row.label.value,
        label.value,
        verdict.reason,
        time.perf_counter() - start,
        verdict.claim_language,
        exact_check_rule(verdict.detail),
        confidence=verdict.confidence,
        needs_review=verdict.needs_review,
        signals=verdict.confidence_signals,
    )


async def evaluate_files(
    files: Sequence[Path], *, settings: Settings, **options: Any
) -> dict[str, Scores]:
    """Scores per dataset file of :func:`predict_files`'s predictions (``options`` are its:
    ``split``, ``limit``, ``checkpoint_dir``, ...). Each verdict's confidence is computed again
    from its signals with the calibration card in use, so a card fitted again is measured
    without judging the rows again."""
    predicted = await predict_files(files, settings=settings, **options)
    card = card_for(settings.calibration_path)
    return {
        name: score([recalibrated(p, card, settings.review_below) for p in rows], three_way, skip)
        for name, (rows, three_way, skip) in predicted.items()
    }


def recalibrated(prediction: Prediction, card: CalibrationCard, review_below: float) -> Prediction:
    """``prediction`` with the confidence and review mark ``card`` gives its signals."""
    if prediction.signals is None:
        return prediction
    confidence, why = card.assess(Signals(**prediction.signals), review_below)
    return dataclasses.replace(prediction, confidence=confidence, needs_review=why is not None)


async def predict_files(
    files: Sequence[Path],
    *,
    settings: Settings,
    limit: int | None = None,
    seed: int = 13,
    via_http: bool = False,
    split: Split | None = "test",
    checkpoint_dir: Path | None = None,
    on_progress: Callable[[str, int, int], None] = lambda name, done, total: None,
    fresh: bool = False,
    on_reuse: Callable[[str, int, Path], None] = lambda name, rows, path: None,
) -> dict[str, tuple[list[Prediction], bool, int]]:
    """Per dataset file: the pipeline's prediction for each row of ``split`` (None: every row;
    the default, test, holds rows no shipped model was trained or tuned on), whether the set has
    contradicted rows, and how many rows were skipped. Finished rows are checkpointed under
    ``checkpoint_dir`` (default: ``settings.cache_dir / "eval"``) and reused by a rerun of the
    same configuration (``on_reuse`` is told how many, per dataset), unless ``fresh``."""
    if via_http:
        settings = settings.model_copy(update={"allow_private_urls": True})
    results: dict[str, tuple[list[Prediction], bool, int]] = {}
    async with build_verifier(settings) as verifier:
        fingerprint = _verdict_settings(settings)
        key = run_key(verifier.router.name, via_http, fingerprint)
        checkpoint_path = (checkpoint_dir or settings.cache_dir / "eval") / f"{key}.jsonl"
        if fresh:
            checkpoint_path.unlink(missing_ok=True)
        checkpoint = Checkpoint(checkpoint_path)
        for path in files:
            all_rows, skipped = read_rows(path, split)
            rows = stratified_sample(all_rows, limit, seed)
            three_way = any(r.label == Label.CONTRADICTED for r in all_rows)
            name = dataset_name(path)
            reused = sum(f"{name}:{row.id}" in checkpoint.done for row in rows)
            if reused:
                on_reuse(name, reused, checkpoint.path)
            predictions: list[Prediction] = []
            site = (
                LoopbackSite({f"/{i}": Page(source_page(r)) for i, r in enumerate(rows)})
                if via_http
                else None
            )
            with site or nullcontext():
                for index, row in enumerate(rows):
                    row_key = f"{name}:{row.id}"
                    if row_key not in checkpoint.done:
                        url = site.url(f"/{index}") if site else None
                        checkpoint.add(row_key, await predict(verifier, row, url))
                    predictions.append(checkpoint.done[row_key])
                    on_progress(name, index + 1, len(rows))
            results[name] = (predictions, three_way, skipped)
    return results
