"""The checker judge (``JUDGE_PROVIDER=checker``, the default without an API key).

1. Every passage the verifier hands over is one chunk; the trained cross-encoder
   (``checker_model``) scores the claim against each chunk. A claim that negates something is
   also scored against the sentences holding most of its words, each a chunk of its own
   (``scored_texts``).
2. Support is the maximum over chunks of P(supported) (as MiniCheck and AlignScore do: one
   chunk that states the claim is enough). At or above ``support_threshold``: supported.
3. Otherwise contradicted when some chunk's P(contradicted) reaches ``contradict_threshold`` and
   the chunk is about the claim (claim-term coverage ≥ ``relevance_threshold``: a page must be
   about a claim to contradict it).
4. Otherwise not_found.
5. Confidence: the support score through the model card's calibration (Platt scaling fitted on
   dev data) for supported (its complement for not_found); P(contradicted) for contradicted.
6. The quote: the sentence, or two adjacent sentences, of the winning chunk that the checker
   scores highest for the label, sliced from the passage: verbatim by construction.
7. Exact checks (``exact_checks``) overrule the model where a rule is exact and the model is
   weak: a claim stated word for word is supported; a value the aligned sentence states
   otherwise contradicts (that sentence is the quote); a value stated nowhere is not supported;
   a quote of the opposite polarity contradicts.
8. A claim with one plain negation ("not X") is also scored as its positive form X on every
   passage that negates nothing (``positive_form``): there the model's P(contradicted) of
   "not X" is mostly its cue that a "not" means contradiction, so "not X" is contradicted only
   as far as the passage is about X and does not contradict it (X read as neither not_found
   nor contradicted), and supported only as far as X read as contradicted agrees.

``read`` exposes the scores so the cascade (``cascade.py``) can ask a second judge when the
checker is unsure, and eval can report them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from citation_verifier.judge.base import RULE_CONFIDENCE, Judgement, exact_check_detail
from citation_verifier.judge.checker_model import PairScorer, Probabilities, calibrated
from citation_verifier.judge.clause_roles import ClauseParser
from citation_verifier.judge.exact_checks import ExactChecks, Finding, Sentence, negations
from citation_verifier.judge.positive_form import positive_form
from citation_verifier.judge.sentences import split_sentences
from citation_verifier.models import Label
from citation_verifier.passages import Passage
from citation_verifier.terms import analyse, coverage

_SUPPORTED, _CONTRADICTED, _NOT_FOUND = 0, 1, 2
EXACT_RULES = (
    "verbatim",
    "commitment",
    "number_conflict",
    "negated",
    "other_number",
    "antonym",
    "other_name",
    "other_rank",
    "comparison",
    "quantifier",
    "goes_on",
    "number_missing",
    "polarity",
    "roles",
    "clause_roles",
    "swapped",
    "added_fact",
    "certainty",
)
"""The exact checks, in the order they are tried (``exact_checks``)."""
# A claim that negates something is also scored against this many of the passages' sentences
# (``CHECKER_NEGATED_SENTENCES``) that hold at least this share of its content words.
NEGATED_SENTENCES = 2
NEGATED_ALIGNED = 0.5


@dataclass(frozen=True)
class CheckerThresholds:
    """Decision thresholds (``CHECKER_*`` settings; defaults set on dev data, see the card)."""

    support: float = 0.35
    contradict: float = 0.4
    relevance: float = 0.0


@dataclass(frozen=True)
class CheckerReading:
    """The checker's scores for one claim against its chunks."""

    probabilities: Probabilities
    """(chunks, 3): P(supported), P(contradicted), P(not_found) per chunk."""
    relevance: tuple[float, ...]
    """Claim-term coverage of each chunk."""
    texts: tuple[str, ...] = ()
    """The chunks' texts (``scored_texts``)."""
    positive: str | None = None
    """The claim's positive form when some chunks were scored on it (``positive_form``)."""
    checked_positively: frozenset[int] = frozenset()
    """Those chunks (they negate nothing): P(supported) is the lower of the claim's and the
    positive form's P(contradicted); P(contradicted) the lower of the claim's and the positive
    form's 1 - max(P(not_found), P(contradicted))."""

    @property
    def support(self) -> float:
        """The highest P(supported) over chunks."""
        return float(self.probabilities[:, _SUPPORTED].max()) if len(self.relevance) else 0.0

    def contradiction(self, relevance: float) -> tuple[float, int | None]:
        """The highest P(contradicted) over chunks at least ``relevance``-relevant, and its
        chunk (None when no chunk qualifies)."""
        best, where = 0.0, None
        for i, relevant in enumerate(self.relevance):
            p = float(self.probabilities[i, _CONTRADICTED])
            if relevant >= relevance and p > best:
                best, where = p, i
        return best, where


def chunk_texts(passages: Sequence[Passage]) -> list[str]:
    """The passages the checker scores: every one with text."""
    return [p.text for p in passages if p.text.strip()]


def scored_texts(
    claim: str, passages: Sequence[Passage], negated_sentences: int = NEGATED_SENTENCES
) -> list[str]:
    """What the checker scores: every passage with text and, for a claim that negates
    something, also the ``negated_sentences`` sentences of them that hold most (at least
    ``NEGATED_ALIGNED``) of its content words. Over a whole passage the model reads a "not" in
    the claim as a contradiction, whatever the passage says: "The city has not introduced a
    toll" against a passage stating just that is P(contradicted) 0.92 over its 180 words, and
    P(supported) 0.75 against its sentence."""
    texts = chunk_texts(passages)
    if not negated_sentences or not negations(claim):
        return texts
    wanted = analyse(claim)
    scored = [(coverage(wanted, s.terms), -i, s.text) for i, s in enumerate(chunk_sentences(texts))]
    best = sorted((c for c in scored if c[0] >= NEGATED_ALIGNED), reverse=True)
    whole = {t.strip() for t in texts}
    extra = dict.fromkeys(text for _, _, text in best if text.strip() not in whole)
    return texts + list(extra)[:negated_sentences]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text`` (``split_sentences``' sentences)."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for sentence in split_sentences([Passage(text, 0, len(text), 0)]):
        start = text.find(sentence, offset)
        if start < 0:
            continue
        spans.append((start, start + len(sentence)))
        offset = start + len(sentence)
    return spans


def candidate_quotes(text: str) -> list[str]:
    """Each sentence of ``text`` and each pair of adjacent sentences of one line, as slices of
    ``text``: a pair never crosses a line break (a heading, a list item, a table row or a
    paragraph stays apart from the next)."""
    spans = sentence_spans(text)
    singles = [text[a:b] for a, b in spans]
    pairs = [
        text[spans[i][0] : spans[i + 1][1]]
        for i in range(len(spans) - 1)
        if "\n" not in text[spans[i][1] : spans[i + 1][0]]
    ]
    return singles + pairs


def chunk_sentences(texts: Sequence[str]) -> list[Sentence]:
    """Every sentence of every chunk, with where it sits (what the exact checks compare)."""
    return [
        Sentence(chunk, a, b, text[a:b], analyse(text[a:b]))
        for chunk, text in enumerate(texts)
        for a, b in sentence_spans(text)
    ]


class CheckerJudge:
    """Judges a claim with the trained checker (see module docstring). Thread-safe."""

    def __init__(
        self,
        model: PairScorer,
        *,
        model_name: str = "checker",
        thresholds: CheckerThresholds | None = None,
        calibration: tuple[float, float] = (1.0, 0.0),
        exact_checks: bool = True,
        parser: ClauseParser | None = None,
        check_positive_form: bool = False,
        negated_sentences: int = NEGATED_SENTENCES,
    ) -> None:
        self.model = model
        self.negated_sentences = negated_sentences
        self.exact_checks = exact_checks
        self.check_positive_form = check_positive_form
        self.parser = parser or ClauseParser()
        self.calibration = calibration
        self._model_name = model_name
        self.thresholds = thresholds or CheckerThresholds()

    @property
    def name(self) -> str:
        """Provider and model, recorded with each verdict."""
        return f"checker/{self._model_name}"

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """Judge ``claim`` against ``passages`` (the model runs off the event loop)."""
        return await asyncio.to_thread(self.judge_sync, claim, passages)

    def read(self, claim: str, passages: Sequence[Passage]) -> CheckerReading:
        """Score the claim against every passage."""
        texts = scored_texts(claim, passages, self.negated_sentences)
        wanted = analyse(claim)
        relevance = tuple(coverage(wanted, analyse(text)) for text in texts)
        probabilities = self.model.probabilities(claim, texts)
        positive = positive_form(claim) if self.check_positive_form else None
        plain = [] if positive is None else [i for i, t in enumerate(texts) if not negations(t)]
        if positive is None or not plain:
            return CheckerReading(probabilities, relevance, tuple(texts))
        # On a passage with no negation, the model's P(contradicted) of "not X" is mostly its
        # cue that a "not" means contradiction: it stands only as far as the passage is about
        # X (X not read as not_found) and does not contradict X itself. "not X" is supported
        # only as far as X read as contradicted agrees: a contradiction of X alone ("opened an
        # office in Oslo" against "did open an office in Paris") is an exclusivity guess, not
        # a statement of "not X".
        positive_read = self.model.probabilities(positive, [texts[i] for i in plain])
        claim_read = probabilities[plain]
        support = np.minimum(claim_read[:, _SUPPORTED], positive_read[:, _CONTRADICTED])
        about = 1 - np.maximum(positive_read[:, _NOT_FOUND], positive_read[:, _CONTRADICTED])
        contradiction = np.minimum(claim_read[:, _CONTRADICTED], about)
        probabilities = probabilities.copy()
        probabilities[plain] = np.stack(
            [support, contradiction, np.clip(1 - support - contradiction, 0, 1)], axis=1
        )
        return CheckerReading(probabilities, relevance, tuple(texts), positive, frozenset(plain))

    def decide(self, reading: CheckerReading) -> tuple[Label, float, int | None]:
        """The label, its confidence and the chunk the quote comes from."""
        t = self.thresholds
        support = calibrated(reading.support, self.calibration)
        if reading.relevance and reading.support >= t.support:
            return (
                Label.SUPPORTED,
                support,
                int(np.argmax(reading.probabilities[:, _SUPPORTED])),
            )
        p_contradicted, chunk = reading.contradiction(t.relevance)
        if chunk is not None and p_contradicted >= t.contradict:
            return Label.CONTRADICTED, p_contradicted, chunk
        return Label.NOT_FOUND, 1.0 - support, None

    def quote(self, claim: str, chunk: str, label: Label) -> str:
        """The sentence or adjacent sentence pair of ``chunk`` the checker scores highest for
        ``label`` (ties: the earliest single sentence); the whole chunk if it has no sentence."""
        candidates = candidate_quotes(chunk)
        if not candidates:
            return chunk.strip()
        column = _SUPPORTED if label == Label.SUPPORTED else _CONTRADICTED
        scores = self.model.probabilities(claim, candidates)[:, column]
        best = max(range(len(candidates)), key=lambda i: (round(float(scores[i]), 3), -i))
        return candidates[best]

    def judgement(
        self, claim: str, passages: Sequence[Passage], reading: CheckerReading
    ) -> Judgement:
        """The judgement a reading of these passages gives (the quote is found now)."""
        texts = chunk_texts(passages)
        if not texts:
            return Judgement(Label.NOT_FOUND, None, 1.0, support=0.0)
        label, confidence, chunk = self.decide(reading)
        support = round(calibrated(reading.support, self.calibration), 4)
        quote = None if chunk is None else self.quote(claim, reading.texts[chunk], label)
        finding = self.overrule(claim, texts, label, quote) if self.exact_checks else None
        detail = None
        if finding is not None:
            detail = exact_check_detail(finding.rule)
            if finding.label == label:  # the same verdict, shown by the rule's sentence
                quote = finding.sentence.text if finding.sentence else quote
            else:
                label = finding.label
                quote = finding.sentence.text if finding.sentence else None
                confidence = RULE_CONFIDENCE
                if label == Label.NOT_FOUND:
                    confidence = max(
                        confidence, 1.0 - calibrated(reading.support, self.calibration)
                    )
        confidence = round(min(1.0, max(0.0, confidence)), 4)
        return Judgement(label, quote, confidence, detail=detail, support=support)

    def overrule(
        self,
        claim: str,
        texts: Sequence[str],
        label: Label,
        quote: str | None,
        rules: Collection[str] = EXACT_RULES,
    ) -> Finding | None:
        """The exact check among ``rules`` that decides instead of the model (module
        docstring, point 7), or None when the model's verdict stands."""
        checks = ExactChecks(claim, chunk_sentences(texts), self.parser)
        if "verbatim" in rules and (verbatim := checks.verbatim()) is not None:
            return verbatim
        held = checks.held_as() if "commitment" in rules and label != Label.NOT_FOUND else None
        if held == "unasserted":
            return Finding("commitment", Label.NOT_FOUND, None)
        if held == "presupposed":  # "did not know that P" does not negate P
            rules = [r for r in rules if r not in {"negated", "polarity"}]
        conflict = checks.number_conflict() if "number_conflict" in rules else None
        changed = checks.one_change() or checks.outranked() or checks.comparison()
        changed = changed if changed is not None and changed.rule in rules else None
        if label != Label.SUPPORTED:
            return conflict or changed
        assert quote is not None
        if conflict is not None and not checks.states_values(quote):
            return conflict
        if changed is not None:
            return changed
        for rule, check in (
            ("number_missing", checks.number_missing),
            ("polarity", lambda: checks.polarity(quote)),
            ("roles", lambda: checks.roles(quote)),
            ("clause_roles", lambda: checks.clause_roles(quote)),
            ("swapped", checks.swapped),
            ("added_fact", checks.added_fact),
            ("certainty", checks.certainty),
        ):
            if rule in rules and (finding := check()) is not None:
                return finding
        return None

    def judge_sync(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The same judgement, on the calling thread."""
        return self.judgement(claim, passages, self.read(claim, passages))
