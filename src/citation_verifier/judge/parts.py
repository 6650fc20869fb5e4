"""Long claims, judged part by part (``PartsJudge``, around every provider's judge).

A claim longer than ``PART_CHARS`` is split into parts: its sentences, and a sentence still
longer than that at clause breaks (``;`` ``:`` ``,``), then between words. A fragment shorter
than ``MIN_PART_CHARS`` ("Dr.", "U.S.") joins the part after it (the last one joins the part
before). Every part is a slice of the claim. Each part is judged by the inner judge against the
passages most relevant to that part (the verifier retrieves a long claim's passages part by part,
:func:`part_passages`), and the parts' judgements combine:

- any part contradicted → contradicted, with the quote of the most confident contradicted part;
  a part counts as contradicted only when its quote holds at least ``CONTRADICTION_COVERAGE``
  of the part's content words (a long claim's many parts each meet passages about the other
  parts; a sentence about another fact does not contradict this one);
- every part supported → supported, with the quote and confidence of the least confident part;
- otherwise not_found (confidence: the most confident not_found part's);
- any part the judge failed on (``judge_error``) → the claim's judgement is that failure.

A claim within ``PART_CHARS`` is one part and goes to the inner judge as it is.

Parts that read the same but for case, spacing and punctuation are judged once, and at most
``max_parts`` distinct parts (``MAX_CLAIM_PARTS``) are judged, in claim order: a claim of 140
short sentences must not cost 140 judgements. When some were left over, the claim cannot be
``supported`` (unjudged parts may not be): it is ``not_found`` with reason
``parts_over_budget`` and the counts in ``detail``, unless a judged part contradicts it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.judge.usage import JudgeUsage
from citation_verifier.models import Label, Reason
from citation_verifier.passages import Passage
from citation_verifier.retrieve import Embedder, top_passages
from citation_verifier.reuse.embeddings import CachingEmbedder
from citation_verifier.settings import Retrieval
from citation_verifier.terms import analyse, coverage

# The checker reads at most 320 word pieces of (claim, passage); a claim of 500 characters
# (about 110 pieces) leaves a 200-word passage most of its room. Claims up to this length are
# judged whole, as before parts existed.
PART_CHARS = 500
MIN_PART_CHARS = 25
CONTRADICTION_COVERAGE = 0.5

# Chinese and Japanese end sentences and clauses with full-width marks and no space after
# them, and often write an ASCII comma with no space either ("然而,库存产品仍有增无减").
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？])|\n+")
_CLAUSE_BREAKS = (
    re.compile(r"(?<=[;:])\s+|(?<=[；：])"),
    re.compile(r"(?<=,)\s+|(?<=,)(?=[^\x00-\x7f])|(?<=[，、])"),
    re.compile(r"\s+"),
)
# Two characters of one number or Latin word: no cut between them.
_WORD_PAIR = re.compile(r"[A-Za-z0-9]{2}")

Retriever = Callable[[str, Sequence[Passage]], list[Passage]]
"""``retrieve(part, passages)``: the passages most relevant to one part, best first."""


def part_retriever(
    embedder: Embedder, k: int, retrieval: Retrieval, max_embedded: int | None = None
) -> Retriever:
    """``top_passages`` with ``k``, ``retrieval`` and ``max_embedded``, through an embedder that
    remembers vectors for as long as the retriever lives: a passage ranked for many parts is
    embedded once."""
    cached = CachingEmbedder(embedder, capacity=4096)
    return lambda claim, passages: top_passages(claim, passages, cached, k, retrieval, max_embedded)


def _spans(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """(start, end) of the pieces of ``text[start:end]`` between matches of ``pattern``."""
    spans, at = [], start
    for match in pattern.finditer(text, start, end):
        spans.append((at, match.start()))
        at = match.end()
    spans.append((at, end))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _pack(text: str, start: int, end: int, limit: int, level: int) -> list[tuple[int, int]]:
    """``text[start:end]`` as consecutive spans of at most ``limit`` characters, broken at the
    coarsest clause break that makes them fit (a single word longer than ``limit`` is cut)."""
    if end - start <= limit:
        return [(start, end)]
    if level == len(_CLAUSE_BREAKS):
        return _cut(text, start, end, limit)
    pieces = _spans(text, start, end, _CLAUSE_BREAKS[level])
    if len(pieces) < 2:
        return _pack(text, start, end, limit, level + 1)
    out: list[tuple[int, int]] = []
    for a, b in pieces:
        if out and b - out[-1][0] <= limit:
            out[-1] = (out[-1][0], b)  # the break's own text stays inside the joined span
        elif b - a <= limit:
            out.append((a, b))
        else:
            out.extend(_pack(text, a, b, limit, level + 1))
    return out


def _cut(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Spans of at most ``limit`` characters with no break to cut at (text without spaces),
    never cutting inside a number or a Latin word: "1670" cut into "16" and "70" would state a
    number the claim does not."""
    spans, at = [], start
    while end - at > limit:
        cut = at + limit
        while cut > at + 1 and _WORD_PAIR.fullmatch(text, cut - 1, cut + 1):
            cut -= 1
        if cut == at + 1:  # one word longer than the limit: cut it anyway
            cut = at + limit
        spans.append((at, cut))
        at = cut
    spans.append((at, end))
    return spans


def claim_parts(claim: str, limit: int = PART_CHARS) -> list[str]:
    """The parts ``claim`` is judged in (see module docstring): ``[claim]`` when it fits
    ``limit`` characters; otherwise its sentences (and clause parts), each a slice of it."""
    text = claim.strip()
    if len(text) <= limit:
        return [text] if text else []
    spans: list[tuple[int, int]] = []
    for a, b in _spans(text, 0, len(text), _SENTENCE_BREAK):
        spans.extend(_pack(text, a, b, limit, 0))
    merged: list[tuple[int, int]] = []
    short = None  # a fragment waiting to join the next part
    for a, b in spans:
        a = short if short is not None else a
        short = a if b - a < MIN_PART_CHARS else None
        if short is None:
            merged.append((a, b))
    if short is not None:
        if merged:
            merged[-1] = (merged[-1][0], len(text))
        else:
            merged.append((short, len(text)))
    return [text[a:b].strip() for a, b in merged]


def part_passages(
    claim: str, passages: Sequence[Passage], retrieve: Retriever, max_parts: int | None = None
) -> list[Passage]:
    """The passages a claim is judged on: ``retrieve``'s for a claim of one part; for a long
    claim, the union of the passages of every part that will be judged (the first
    ``max_parts`` distinct ones; each passage once, in the order first retrieved)."""
    parts = claim_parts(claim)
    if len(parts) <= 1:
        return retrieve(claim, passages)
    seen: dict[tuple[int, int], Passage] = {}
    for part in distinct_parts(parts)[:max_parts]:
        for passage in retrieve(part, passages):
            seen.setdefault((passage.start, passage.end), passage)
    return list(seen.values())


def _usage(judgements: Sequence[Judgement]) -> JudgeUsage | None:
    usages = [j.usage for j in judgements if j.usage is not None]
    if not usages:
        return None
    costs = [u.cost_usd for u in usages]
    return JudgeUsage(
        calls=sum(u.calls for u in usages),
        input_tokens=sum(u.input_tokens for u in usages),
        output_tokens=sum(u.output_tokens for u in usages),
        cost_usd=None if None in costs else sum(c for c in costs if c is not None),
    )


def _about_its_part(part: str, judgement: Judgement) -> Judgement:
    """A contradicted part's judgement as it is when its quote is about the part; else
    not_found (the quote is about another fact)."""
    if judgement.label != Label.CONTRADICTED:
        return judgement
    held = coverage(analyse(part), analyse(judgement.evidence_quote or ""))
    if held >= CONTRADICTION_COVERAGE:
        return judgement
    return replace(judgement, label=Label.NOT_FOUND, evidence_quote=None)


def _same_words(part: str) -> str:
    """What two near-identical parts share: their words, lower-cased, without punctuation."""
    return " ".join(re.findall(r"\w+", part.lower()))


def distinct_parts(parts: Sequence[str]) -> list[str]:
    """``parts`` in order, each near-identical repetition (:func:`_same_words`) left out."""
    kept: dict[str, str] = {}
    for part in parts:
        kept.setdefault(_same_words(part), part)
    return list(kept.values())


def over_budget(judgement: Judgement, judged: int, total: int) -> Judgement:
    """The claim's judgement when only the first ``judged`` of ``total`` distinct parts were
    judged: a contradiction (or a failure) stands; anything else is ``parts_over_budget``."""
    note = (
        f"only the first {judged} of the claim's {total} distinct parts were judged "
        f"(MAX_CLAIM_PARTS={judged}); {total - judged} were not"
    )
    detail = note if judgement.detail is None else f"{note}; {judgement.detail}"
    if judgement.label == Label.CONTRADICTED or judgement.reason == Reason.JUDGE_ERROR:
        return replace(judgement, detail=detail)
    return replace(
        judgement,
        label=Label.NOT_FOUND,
        evidence_quote=None,
        confidence=1.0,
        reason=Reason.PARTS_OVER_BUDGET,
        detail=detail,
    )


def combine(parts: Sequence[str], judgements: Sequence[Judgement]) -> Judgement:
    """One judgement for the claim from its parts' (the rule in the module docstring); its
    ``detail`` says how the parts went and which part decided."""
    judgements = [_about_its_part(p, j) for p, j in zip(parts, judgements, strict=True)]
    by_label = {label: [i for i, j in enumerate(judgements) if j.label == label] for label in Label}
    errors = [i for i, j in enumerate(judgements) if j.reason == Reason.JUDGE_ERROR]
    if errors:
        chosen = errors[0]
    elif by_label[Label.CONTRADICTED]:
        chosen = max(by_label[Label.CONTRADICTED], key=lambda i: judgements[i].confidence)
    elif len(by_label[Label.SUPPORTED]) == len(judgements):
        chosen = min(by_label[Label.SUPPORTED], key=lambda i: judgements[i].confidence)
    else:
        chosen = max(by_label[Label.NOT_FOUND], key=lambda i: judgements[i].confidence)
    counts = ", ".join(
        f"{len(by_label[label])} {label.value}"
        for label in (Label.SUPPORTED, Label.CONTRADICTED, Label.NOT_FOUND)
    )
    excerpt = parts[chosen] if len(parts[chosen]) <= 80 else parts[chosen][:77] + "…"
    note = f"claim judged in {len(parts)} parts ({counts}); part {chosen + 1} decided: {excerpt}"
    inner = judgements[chosen]
    return replace(
        inner,
        detail=note if inner.detail is None else f"{note}; {inner.detail}",
        usage=_usage(judgements),
    )


class PartsJudge:
    """Judges a long claim part by part with ``inner`` (see module docstring)."""

    def __init__(
        self,
        inner: Judge,
        embedder: Embedder,
        *,
        k: int,
        retrieval: Retrieval,
        max_parts: int = 24,
    ) -> None:
        """Each part is judged on the ``k`` passages handed over that ``retrieval`` (with
        ``embedder``) ranks highest for it, as the verifier ranks a page's for a claim; at
        most ``max_parts`` distinct parts are judged."""
        self._inner = inner
        self._embedder = embedder
        self.k = k
        self.retrieval = retrieval
        self.max_parts = max_parts

    @property
    def name(self) -> str:
        """The inner judge's name: parts change how a claim is read, not who judges it."""
        return self._inner.name

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The inner judge's judgement of ``claim``, or of each of its parts combined."""
        parts = claim_parts(claim)
        if len(parts) <= 1:
            return await self._inner.judge(claim, passages)
        distinct = distinct_parts(parts)
        budget = distinct[: self.max_parts]
        retrieve = part_retriever(self._embedder, self.k, self.retrieval)
        chosen = await asyncio.to_thread(lambda: [retrieve(part, passages) for part in budget])
        judged = await asyncio.gather(
            *(self._inner.judge(part, own) for part, own in zip(budget, chosen, strict=True))
        )
        # Near-identical parts only: one claim, as the inner judge reads it.
        combined = judged[0] if len(budget) == 1 else combine(budget, judged)
        if len(budget) < len(distinct):
            return over_budget(combined, len(budget), len(distinct))
        return combined
