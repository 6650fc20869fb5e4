"""``citation-verifier eval --articles DIR``: the whole product on article pages with gold claims.

A folder holds article pages (``*.html``) and ``claims.jsonl``: one claim a line with ``id``,
``page`` (a file of the folder), ``claim``, ``label`` (supported, contradicted, not_found) and
optionally ``kind``, ``claim_lang`` (or ``lang``) and ``evidence`` (the deciding sentences,
``||``-joined). The pages are served on 127.0.0.1 and every claim goes through the real pipeline
(fetch, extraction, passages, retrieval, judge, guard, aggregation) with the configured settings,
loopback allowed. Scores: accuracy overall, per kind and per claim language; the share of claims
the page does not support that are called ``supported`` (the costliest error); unmentioned facts
called ``contradicted``; quotes that are not the page's visible text; and every wrong verdict
with its quote and the rule or judge that decided it.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.extract import decode_body, html_to_full_text
from citation_verifier.judge.base import exact_check_rule
from citation_verifier.judge.calibration import expected_calibration_error
from citation_verifier.models import Label, VerifyRequest
from citation_verifier.passages import normalise_for_quote
from citation_verifier.pipeline import build_verifier
from citation_verifier.quote_rules import rule_of
from citation_verifier.settings import Settings

_GOLD = {label.value for label in (Label.SUPPORTED, Label.CONTRADICTED, Label.NOT_FOUND)}


class ArticleSetError(ValueError):
    """The folder is not an article set (no claims file, a bad line, a missing page)."""


@dataclass(frozen=True)
class ArticleClaim:
    """One gold claim about one page of the set."""

    id: str
    page: str
    claim: str
    label: str
    kind: str
    language: str


@dataclass(frozen=True)
class ArticleVerdict:
    """What the product said about one claim."""

    claim: ArticleClaim
    label: str
    quote: str | None
    decided_by: str
    """The exact check that decided, else the judge (or the reason of a citation not judged)."""
    detail: str | None
    quote_on_page: bool
    seconds: float
    confidence: float = 0.0
    needs_review: bool = False

    @property
    def right(self) -> bool:
        """Whether the label is the gold one."""
        return self.label == self.claim.label


@dataclass
class ArticleScores:
    """The scores of one run over an article set."""

    verdicts: list[ArticleVerdict] = field(default_factory=list)

    @property
    def n(self) -> int:
        """Claims scored."""
        return len(self.verdicts)

    @property
    def accuracy(self) -> float:
        """Share of claims given their gold label."""
        return _share(v.right for v in self.verdicts)

    def by(self, key: Callable[[ArticleVerdict], str]) -> dict[str, tuple[int, float]]:
        """(n, accuracy) per value of ``key``, sorted by value."""
        groups: dict[str, list[ArticleVerdict]] = defaultdict(list)
        for verdict in self.verdicts:
            groups[key(verdict)].append(verdict)
        return {k: (len(g), _share(v.right for v in g)) for k, g in sorted(groups.items())}

    @property
    def false_supported(self) -> tuple[int, int]:
        """(claims called supported, claims) among those the page does not support."""
        unsupported = [v for v in self.verdicts if v.claim.label != Label.SUPPORTED.value]
        return sum(v.label == Label.SUPPORTED.value for v in unsupported), len(unsupported)

    @property
    def unmentioned_contradicted(self) -> tuple[int, int]:
        """(claims called contradicted, claims) among the unmentioned ones."""
        unmentioned = [v for v in self.verdicts if v.claim.kind == "unmentioned"]
        return sum(v.label == Label.CONTRADICTED.value for v in unmentioned), len(unmentioned)

    @property
    def quotes_off_page(self) -> list[ArticleVerdict]:
        """Verdicts whose quote is not the page's visible text."""
        return [v for v in self.verdicts if v.quote and not v.quote_on_page]

    @property
    def wrong(self) -> list[ArticleVerdict]:
        """Every verdict that is not the gold label, in claim order."""
        return [v for v in self.verdicts if not v.right]

    @property
    def median_seconds(self) -> float:
        """Median seconds per claim."""
        seconds = sorted(v.seconds for v in self.verdicts)
        return seconds[len(seconds) // 2] if seconds else 0.0

    def as_json(self) -> dict[str, Any]:
        """Every figure, and every wrong verdict, as JSON."""
        false_supported, unsupported = self.false_supported
        contradicted, unmentioned = self.unmentioned_contradicted
        return {
            "n": self.n,
            "accuracy": round(self.accuracy, 4),
            "by_kind": {k: {"n": n, "accuracy": round(a, 4)} for k, (n, a) in self.by_kind.items()},
            "by_language": {
                k: {"n": n, "accuracy": round(a, 4)} for k, (n, a) in self.by_language.items()
            },
            "false_supported": false_supported,
            "not_supported_n": unsupported,
            "false_supported_rate": round(false_supported / unsupported, 4) if unsupported else 0,
            "unmentioned_contradicted": contradicted,
            "unmentioned_n": unmentioned,
            "quotes_off_page": len(self.quotes_off_page),
            "median_sec_per_claim": round(self.median_seconds, 3),
            **{k: None if v is None else round(v, 4) for k, v in self.confidence_figures.items()},
            "wrong": [_as_json(v) for v in self.wrong],
            "verdicts": [_as_json(v) for v in self.verdicts],
        }

    @property
    def confidence_figures(self) -> dict[str, float | None]:
        """How well confidence and ``needs_review`` separate right verdicts from wrong ones:
        expected calibration error (against the label being the gold one), the share marked for
        review and the accuracy of the unmarked."""
        judged = [v for v in self.verdicts if v.label != Label.UNREACHABLE]
        unmarked = [v.right for v in judged if not v.needs_review]
        return {
            "expected_calibration_error": expected_calibration_error(
                [v.confidence for v in judged], [v.right for v in judged]
            ),
            "needs_review_share": _share(v.needs_review for v in judged) if judged else None,
            "unreviewed_accuracy": sum(unmarked) / len(unmarked) if unmarked else None,
        }

    @property
    def by_kind(self) -> dict[str, tuple[int, float]]:
        """(n, accuracy) per claim kind."""
        return self.by(lambda v: v.claim.kind)

    @property
    def by_language(self) -> dict[str, tuple[int, float]]:
        """(n, accuracy) per claim language."""
        return self.by(lambda v: v.claim.language)


def _as_json(verdict: ArticleVerdict) -> dict[str, Any]:
    return {
        "id": verdict.claim.id,
        "kind": verdict.claim.kind,
        "claim_lang": verdict.claim.language,
        "claim": verdict.claim.claim,
        "gold": verdict.claim.label,
        "predicted": verdict.label,
        "decided_by": verdict.decided_by,
        "detail": verdict.detail,
        "quote": verdict.quote,
        "confidence": round(verdict.confidence, 4),
        "needs_review": verdict.needs_review,
    }


def _share(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0


def load_article_set(folder: Path) -> list[ArticleClaim]:
    """The claims of ``folder/claims.jsonl``, each checked to name a page of the folder."""
    path = folder / "claims.jsonl"
    if not path.is_file():
        raise ArticleSetError(f"{folder} has no claims.jsonl")
    claims: list[ArticleClaim] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            claim = ArticleClaim(
                id=str(row["id"]),
                page=str(row["page"]),
                claim=str(row["claim"]),
                label=str(row["label"]),
                kind=str(row.get("kind") or "-"),
                language=str(row.get("claim_lang") or row.get("lang") or "-"),
            )
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise ArticleSetError(f"{path} line {number}: not a claim ({error})") from None
        if claim.label not in _GOLD:
            raise ArticleSetError(
                f"{path} line {number}: label {claim.label!r} is not one of "
                f"{', '.join(sorted(_GOLD))}"
            )
        if "/" in claim.page or not (folder / claim.page).is_file():
            raise ArticleSetError(f"{path} line {number}: no page {claim.page!r} in {folder}")
        claims.append(claim)
    if not claims:
        raise ArticleSetError(f"{path} holds no claim")
    return claims


async def evaluate_articles(
    folder: Path,
    settings: Settings,
    *,
    limit: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> ArticleScores:
    """Serve ``folder``'s pages on 127.0.0.1 and score every claim through the real pipeline."""
    claims = load_article_set(folder)[:limit]
    pages = sorted({c.page for c in claims})
    raw = {page: (folder / page).read_bytes() for page in pages}
    visible = {
        page: normalise_for_quote(html_to_full_text(decode_body(body, None)))
        for page, body in raw.items()
    }
    settings = settings.model_copy(update={"allow_private_urls": True, "audit_enabled": False})
    scores = ArticleScores()
    with LoopbackSite({f"/{page}": Page(body) for page, body in raw.items()}) as site:
        async with build_verifier(settings) as verifier:
            for done, claim in enumerate(claims, 1):
                start = time.perf_counter()
                result = await verifier.verify(
                    VerifyRequest(claim=claim.claim, urls=[site.url(f"/{claim.page}")])
                )
                seconds = time.perf_counter() - start
                verdict = result.citations[0]
                quote = verdict.evidence_quote
                decided_by = (
                    exact_check_rule(verdict.detail)
                    or rule_of(verdict.detail)
                    or (verdict.reason if verdict.reason else None)
                    or verdict.judge
                    or "-"
                )
                scores.verdicts.append(
                    ArticleVerdict(
                        claim=claim,
                        label=result.overall.value,
                        quote=quote,
                        decided_by=decided_by,
                        detail=verdict.detail,
                        quote_on_page=not quote
                        or normalise_for_quote(quote) in visible[claim.page],
                        seconds=seconds,
                        confidence=verdict.confidence,
                        needs_review=verdict.needs_review,
                    )
                )
                if on_progress is not None:
                    on_progress(done, len(claims))
    return scores
