"""One meaning for ``confidence``: the probability that the verdict is right.

Judges report their own kind of score (the checker a probability over chunks, an LLM its own
guess) and rules carried a fixed 0.9. Here every judged verdict's confidence is re-computed from
signals that separate right from wrong verdicts:

- the judge's own score (as a log-odds), and which label it gave;
- the rule that decided, if any: a rule's confidence is its measured precision on the fitting
  rows (right + 1) / (fired + 2) when it fired there at least ``MIN_RULE_ROWS`` times;
- whether a rule overturned the judge's label; how much of the claim's content the quote holds;
- whether the claim's parts disagreed, the judges disagreed (cross-check), the page was only
  partly read (paywall, parts over budget); the claim's length; English or not.

A logistic model per judge family (``checker``, ``llm``, ``lexical``; ``all`` when a family had
no rows of its own) turns the signals the card names into P(right), where "right" is the
supported-versus-rest call being the gold one (how ``eval`` scores binary sets). The shipped card
reads the judge's own score alone (:data:`FITTED_FEATURES` says why); the other signals decide
what a reviewer is told (:func:`review_reason`). The fitted card ships as
``data/calibration.json``; ``citation-verifier calibrate`` fits it again on ``tune`` rows
(never trained on) and ``eval`` measures it on ``test`` rows (expected calibration error and
risk-coverage).

A verdict whose confidence is under ``REVIEW_BELOW`` keeps its label and is marked
``needs_review`` with the reason in words (:func:`review_reason`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from citation_verifier.judge.base import exact_check_rule
from citation_verifier.models import Label, Reason
from citation_verifier.quote_rules import RULE_DETAIL
from citation_verifier.terms import analyse, coverage

SECOND_OPINION = "checker unsure"
"""How the detail of a verdict the checker's second opinion gave begins (judge/cascade.py)."""
SHIPPED_CARD = Path(__file__).parent.parent / "data" / "calibration.json"
FLOOR = 0.01
"""Confidence stays within [FLOOR, 1 - FLOOR]."""
MIN_RULE_ROWS = 8
"""A rule that fired fewer times on the fitting rows keeps the family model's confidence."""
FEATURES = (
    "bias",
    "judge_logit",
    "supported",
    "contradicted",
    "quote_coverage",
    "rule_overturned",
    "parts_disagree",
    "partly_read",
    "cross_disagree",
    "claim_words",
    "english",
    "has_support",
    "support_logit",
    "support_logit_squared",
    "best_coverage",
    "passage_chars",
)
FITTED_FEATURES = ("bias", "judge_logit")
"""What the shipped card's models read: the judge's own log-odds (Platt scaling). Chosen by
leaving each licensed dev set out of the fit in turn (``tune`` rows): every richer set of
signals (label, quote coverage, rule overturned, support margin, passage length) separated
right from wrong on the sets it was fitted on and mis-calibrated the set left out (mean
expected calibration error 0.16-0.26 against 0.104 for this one and 0.113 for the raw score)."""
_PARTS = re.compile(r"claim judged in (\d+) parts \((\d+) supported, (\d+) contradicted")
_PARTLY_READ = frozenset({Reason.PAYWALLED, Reason.PARTS_OVER_BUDGET})


@dataclass(frozen=True)
class Signals:
    """What a judged verdict tells about its own reliability (the module docstring's list)."""

    family: str
    label: str
    judge_confidence: float
    rule: str | None = None
    rule_overturned: bool = False
    quote_coverage: float = 0.0
    parts_disagree: float = 0.0
    partly_read: bool = False
    cross_disagree: bool = False
    claim_words: int = 0
    english: bool = True
    support: float | None = None
    """The judge's own P(supported), when it has one (the checker)."""
    best_coverage: float = 0.0
    """The largest share of the claim's content words one passage shown to the judge holds."""
    passage_chars: int = 0
    """Characters of the passages shown to the judge."""

    def values(self) -> dict[str, float]:
        """Every input a logistic model can use, by :data:`FEATURES` name."""
        # The judge's confidence is in its own label: where a rule or the quote guard overturned
        # it, what it says of ours is the rest.
        said = 1.0 - self.judge_confidence if self.rule_overturned else self.judge_confidence
        p = min(max(said, 0.02), 0.98)
        s = min(max(self.support if self.support is not None else 0.5, 0.02), 0.98)
        support_logit = math.log(s / (1 - s))
        values = {
            "bias": 1.0,
            "judge_logit": math.log(p / (1 - p)),
            "supported": float(self.label == Label.SUPPORTED),
            "contradicted": float(self.label == Label.CONTRADICTED),
            "quote_coverage": self.quote_coverage,
            "rule_overturned": float(self.rule_overturned),
            "parts_disagree": self.parts_disagree,
            "partly_read": float(self.partly_read),
            "cross_disagree": float(self.cross_disagree),
            "claim_words": math.log1p(self.claim_words) / 4,
            "english": float(self.english),
            "has_support": float(self.support is not None),
            "support_logit": support_logit,
            "support_logit_squared": support_logit**2 / 10,
            "best_coverage": self.best_coverage,
            "passage_chars": math.log1p(self.passage_chars) / 8,
        }
        return values

    def as_json(self) -> dict[str, Any]:
        """For eval checkpoints (re-fitting needs the signals, not only the confidence)."""
        return asdict(self)


def family_of(judge_name: str | None, detail: str | None = None) -> str:
    """``checker``, ``lexical`` or ``llm`` (embedded, OpenAI, Anthropic, Ollama): the judge that
    gave a verdict, from the name verdicts record (``checker/minilm-…``, ``openai/gpt-…``) and,
    for a checker with a second opinion (``checker/…+local/…``), its detail."""
    name = (judge_name or "").lower()
    if name.startswith("lexical"):
        return "lexical"
    if name.startswith("checker") and (
        "+" not in name or not (detail or "").startswith(SECOND_OPINION)
    ):
        return "checker"
    return "llm"


def deciding_rule(detail: str | None) -> str | None:
    """The exact check or quote rule a verdict's detail names (``exact:verbatim``,
    ``quote:polarity``), or None when the judge decided."""
    rule = exact_check_rule(detail)
    if rule is not None:
        return f"exact:{rule}"
    if detail is not None and detail.startswith(RULE_DETAIL):
        return "quote:" + detail.removeprefix(RULE_DETAIL).split(":")[0].strip()
    return None


def parts_disagreement(detail: str | None) -> float:
    """The share of a long claim's parts whose label is not the majority's (0 for one part)."""
    found = _PARTS.search(detail or "")
    if found is None:
        return 0.0
    total, supported, contradicted = (int(g) for g in found.groups())
    counts = [supported, contradicted, total - supported - contradicted]
    return 1.0 - max(counts) / total if total else 0.0


def signals_of(
    claim: str,
    *,
    judge_name: str | None,
    judge_label: Label,
    judge_confidence: float,
    label: Label,
    quote: str | None,
    reason: str | None,
    detail: str | None,
    cross_check: str | None,
    english: bool,
    passages: Sequence[str],
    support: float | None = None,
    partly_read: bool = False,
) -> Signals:
    """The :class:`Signals` of one judged verdict: ``judge_*`` and ``support`` as the judge gave
    them, the rest as the verdict stands after the quote guard and its rules; ``passages``: the
    texts the judge was shown."""
    wanted = analyse(claim)
    held = coverage(wanted, analyse(quote)) if quote else 0.0
    best = max((coverage(wanted, analyse(text)) for text in passages), default=0.0)
    return Signals(
        family=family_of(judge_name, detail),
        label=label.value,
        judge_confidence=judge_confidence,
        rule=deciding_rule(detail),
        rule_overturned=judge_label != label,
        quote_coverage=round(held, 4),
        parts_disagree=round(parts_disagreement(detail), 4),
        partly_read=partly_read or reason in _PARTLY_READ,
        cross_disagree=cross_check == "disagree",
        claim_words=len(claim.split()),
        english=english,
        support=support,
        best_coverage=round(best, 4),
        passage_chars=sum(len(text) for text in passages),
    )


@dataclass
class CalibrationCard:
    """The fitted calibration: logistic weights per judge family, each rule's measured
    precision, and what it was fitted on."""

    weights: dict[str, list[float]] = field(default_factory=dict)
    rules: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per rule: how often it decided a fitting row (``n``) and how often rightly (``right``)."""
    fitted_on: dict[str, int] = field(default_factory=dict)
    """Rows per dataset (and per family under ``family:<name>``)."""
    features: list[str] = field(default_factory=lambda: list(FITTED_FEATURES))
    """The :data:`FEATURES` the weights are for, in order."""

    @classmethod
    def load(cls, path: Path = SHIPPED_CARD) -> CalibrationCard:
        """The card at ``path``; raises ValueError when it does not fit this code."""
        data = json.loads(path.read_text(encoding="utf-8"))
        card = cls(**data)
        unknown = sorted(set(card.features) - set(FEATURES))
        if unknown:
            raise ValueError(f"{path}: fitted on features this code does not have: {unknown}")
        return card

    def save(self, path: Path) -> None:
        """Write the card as JSON."""
        path.write_text(json.dumps(asdict(self), indent=1, sort_keys=True) + "\n", "utf-8")

    def assess(self, signals: Signals, review_below: float) -> tuple[float, str | None]:
        """The confidence for ``signals`` and, when it is under ``review_below``, why the
        verdict needs review (:func:`review_reason`)."""
        confidence = self.confidence(signals)
        return confidence, review_reason(signals, confidence, review_below)

    def confidence(self, signals: Signals) -> float:
        """P(the verdict is right) for ``signals``."""
        rule = self.rules.get(signals.rule or "")
        weights = self.weights.get(signals.family) or self.weights.get("all")
        if rule is not None and rule["n"] >= MIN_RULE_ROWS:
            p = (rule["right"] + 1) / (rule["n"] + 2)
        elif weights is None:  # an empty card: the judge's own word
            p = signals.judge_confidence
        else:
            values = signals.values()
            z = sum(w * values[name] for w, name in zip(weights, self.features, strict=True))
            p = 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))
        # No verdict measured on a few hundred rows earns certainty either way.
        return round(min(max(p, FLOOR), 1.0 - FLOOR), 4)


def _logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray, ridge: float) -> list[float]:
    """Weighted logistic regression by Newton's method, L2 penalty (not on the bias)."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], ridge)
    penalty[0] = 1e-6
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        gradient = x.T @ ((p - y) * weight) + penalty * w
        hessian = (x * (p * (1 - p) * weight)[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return [round(float(v), 6) for v in w]


MIN_FAMILY_ROWS = 60
"""A family with fewer fitting rows uses the model fitted on all rows."""


def fit(
    rows: Iterable[tuple[str, Signals, bool]],
    features: Sequence[str] = FITTED_FEATURES,
    ridge: float = 1.0,
) -> CalibrationCard:
    """A card from ``(dataset, signals, right)`` rows: each rule's precision, a logistic model
    on ``features`` over all rows and one per family that has at least
    :data:`MIN_FAMILY_ROWS` rows. Each dataset weighs the same, however many rows it has, so
    the largest does not set everyone's calibration."""
    rows = list(rows)
    card = CalibrationCard(features=list(features))
    for dataset, _, _ in rows:
        card.fitted_on[dataset] = card.fitted_on.get(dataset, 0) + 1
    for _, signals, right in rows:
        if signals.rule is not None:
            entry = card.rules.setdefault(signals.rule, {"n": 0, "right": 0})
            entry["n"] += 1
            entry["right"] += int(right)
    if not rows:
        return card
    groups: dict[str, list[tuple[str, Signals, bool]]] = {"all": rows}
    for row in rows:
        groups.setdefault(row[1].family, []).append(row)
    for name, members in groups.items():
        card.fitted_on[f"family:{name}"] = len(members)
        if name != "all" and len(members) < MIN_FAMILY_ROWS:
            continue
        rows_values = [s.values() for _, s, _ in members]
        x = np.array([[v[f] for f in features] for v in rows_values], dtype=np.float64)
        y = np.array([float(r) for _, _, r in members])
        weight = np.array([1.0 / card.fitted_on[d] for d, _, _ in members])
        card.weights[name] = _logistic(x, y, weight / weight.mean(), ridge)
    return card


# What a reviewer is told, in the order the reasons are looked for.
REVIEW_REASONS: tuple[tuple[str, Callable[[Signals], bool]], ...] = (
    ("judges disagree", lambda s: s.cross_disagree),
    ("rule and model disagree", lambda s: s.rule_overturned),
    ("page only partly read", lambda s: s.partly_read),
    ("the claim's parts disagree", lambda s: s.parts_disagree > 0),
)


def review_reason(signals: Signals, confidence: float, review_below: float) -> str | None:
    """Why a verdict needs a person's look, in words, or None when its confidence is at or above
    ``review_below``."""
    if confidence >= review_below:
        return None
    why = next((words for words, applies in REVIEW_REASONS if applies(signals)), "model unsure")
    return f"{why} (confidence {confidence:.2f} < REVIEW_BELOW {review_below:g})"


_CONSEQUENCE = {Label.SUPPORTED: 3.0, Label.CONTRADICTED: 2.0, Label.NOT_FOUND: 1.0}


def review_priority(label: Label | str, confidence: float) -> float:
    """How much a review could change: the chance the verdict is wrong times what a wrong verdict
    of its label costs (a wrong ``supported`` most). Higher first."""
    return _CONSEQUENCE.get(Label(label), 0.0) * (1.0 - confidence)


def expected_calibration_error(
    confidences: Sequence[float], rights: Sequence[bool], bins: int = 10
) -> float | None:
    """The mean gap between confidence and accuracy over ``bins`` equal-width bins, weighted by
    their rows (None without rows)."""
    if not confidences:
        return None
    total = 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [
            i for i, c in enumerate(confidences) if low <= c < high or (b == bins - 1 and c == 1.0)
        ]
        if members:
            confidence = sum(confidences[i] for i in members) / len(members)
            accuracy = sum(rights[i] for i in members) / len(members)
            total += len(members) * abs(confidence - accuracy)
    return total / len(confidences)


def card_for(path: Path | None) -> CalibrationCard:
    """The card at ``path`` (``CALIBRATION_PATH``), else the shipped one."""
    return CalibrationCard.load(path or SHIPPED_CARD)


COVERAGES = (1.0, 0.8, 0.6, 0.4)


def balanced_accuracy(predicted: Sequence[bool], gold: Sequence[bool]) -> float | None:
    """Mean of the recalls of the two classes (None when a class has no rows)."""
    recalls = []
    for positive in (True, False):
        members = [p for p, g in zip(predicted, gold, strict=True) if g == positive]
        if not members:
            return None
        recalls.append(sum(p == positive for p in members) / len(members))
    return sum(recalls) / 2


def risk_coverage(
    confidences: Sequence[float],
    predicted: Sequence[bool],
    gold: Sequence[bool],
    coverages: Sequence[float] = COVERAGES,
) -> dict[str, float | None]:
    """Balanced accuracy (supported vs rest) of the most confident ``coverage`` share of the
    verdicts, per coverage (``"0.6"``: the most confident 60 %)."""
    order = sorted(range(len(confidences)), key=lambda i: -confidences[i])
    table: dict[str, float | None] = {}
    for share in coverages:
        kept = order[: max(1, round(share * len(order)))] if order else []
        table[f"{share:g}"] = balanced_accuracy(
            [predicted[i] for i in kept], [gold[i] for i in kept]
        )
    return table
