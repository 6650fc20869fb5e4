"""Training data for the claim checker: assembled from files, deterministic, torch-free.

Sources (see docs/CHECKER_MODEL.md for licences):
- ``shared/train/*.jsonl.gz``: third-party NLI and fact-checking rows. Rows whose label space is
  ``binary`` keep that flag: their ``not_found`` may be a contradiction, so the loss treats them
  as supported-vs-rest.
- the ``train`` part (``citation_verifier.splits``) of the dev sets whose licences allow it
  (WiCE, ExpertQA, Factcheck-GPT, Check-COVID), each cut to the passage the judge would score,
  plus hard negatives made from them:
  - gold supporting sentences removed from a supported row's document → not_found;
  - a number the claim shares with its evidence changed, or the claim's main verb negated →
    contradicted;
  - on request (``page_draws``), claims made from their multi-passage documents
    (``page_examples``; measured, not in the shipped recipe: docs/CHECKER_MODEL.md).
Long documents are cut into the same passages the runtime scores (``split_passages``), and the
passage most like the claim (word overlap; the gold evidence where the dataset marks it) is kept:
the model learns on what it will see, and a not_found row is its hardest passage.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from citation_verifier.behaviour.edits import AUXILIARIES, change_number, negate, sentence_cases
from citation_verifier.behaviour.suite import licensed_passages
from citation_verifier.behaviour.templates import template_cases
from citation_verifier.passages import split_passages
from citation_verifier.splits import LICENSED_FOR_TRAINING, Split, split_of

LABELS = ("supported", "contradicted", "not_found")
PASSAGE_WORDS = 200
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Example:
    """One (claim, evidence) pair with its label."""

    claim: str
    evidence: str
    label: str
    binary: bool
    origin: str

    @property
    def label_id(self) -> int:
        """Index of the label in ``LABELS``."""
        return LABELS.index(self.label)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def overlap(claim: str, text: str) -> float:
    """Share of the claim's words (over two letters) found in ``text``."""
    wanted = _words(claim)
    return len(wanted & _words(text)) / len(wanted) if wanted else 0.0


def best_passage(claim: str, document: str, must_contain: Sequence[str] = ()) -> str:
    """The passage of ``document`` the checker would score highest for ``claim``: among those
    holding any of ``must_contain`` (gold evidence) when given, the one with most claim words."""
    passages = [p.text for p in split_passages(document, PASSAGE_WORDS)]
    if not passages:
        return ""
    gold = [p for p in passages if any(s and s in p for s in must_contain)]
    return max(gold or passages, key=lambda p: overlap(claim, p))


def _read(path: Path) -> Iterator[dict[str, object]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def shared_examples(train_dir: Path, sample: int | None = None, seed: int = 13) -> list[Example]:
    """Every row of ``shared/train`` (or a seeded sample of ``sample`` rows); documents longer
    than a passage are cut to their best passage."""
    rows = [
        (str(row["claim"]).strip(), str(row["source_text"]).strip(), row)
        for path in sorted(train_dir.glob("*.jsonl.gz"))
        for row in _read(path)
    ]
    rows = [r for r in rows if r[0] and r[1]]
    if sample is not None:
        rows = random.Random(seed).sample(rows, min(sample, len(rows)))
    return [
        Example(
            claim,
            best_passage(claim, source) if len(source.split()) > PASSAGE_WORDS else source,
            str(row["label"]),
            row.get("label_space") == "binary",
            str(row["dataset"]),
        )
        for claim, source, row in rows
    ]


def gold_sentences(dataset: str, meta: dict[str, object]) -> list[list[str]]:
    """Gold supporting sentence sets, as text, where the dataset marks them."""
    if dataset == "wice":
        sentences = meta.get("evidence_sentences") or []
        sets = meta.get("supporting_sentence_sets") or []
    elif dataset == "checkcovid":
        sentences = meta.get("abstract_sentences") or []
        sets = [meta.get("evidence_sentence_indices") or []]
    else:
        return []
    assert isinstance(sentences, list) and isinstance(sets, list)
    return [
        [str(sentences[i]) for i in group if isinstance(i, int) and 0 <= i < len(sentences)]
        for group in sets
        if isinstance(group, list)
    ]


def licensed_examples(
    eval_dir: Path, split: Split = "train", seed: int = 13, exclude: Collection[str] = ()
) -> list[Example]:
    """The ``split`` part of the licensed dev sets but ``exclude``, cut to passages, with hard
    negatives."""
    unknown = set(exclude) - LICENSED_FOR_TRAINING
    if unknown:
        raise ValueError(f"not a licensed dev set: {', '.join(sorted(unknown))}")
    rng = random.Random(seed)
    examples: list[Example] = []
    for dataset in sorted(LICENSED_FOR_TRAINING - set(exclude)):
        for row in _read(eval_dir / f"{dataset}.jsonl.gz"):
            source = str(row.get("source_text") or "").strip()
            claim = str(row["claim"]).strip()
            if not source or not claim or split_of(dataset, source) != split:
                continue
            label = str(row["label"])
            meta = row.get("meta") or {}
            assert isinstance(meta, dict)
            gold = gold_sentences(dataset, meta) if label == "supported" else []
            flat = [s for group in gold for s in group]
            passage = best_passage(claim, source, flat)
            examples.append(Example(claim, passage, label, False, dataset))
            if label != "supported":
                continue
            if flat:
                stripped = source
                for sentence in flat:
                    stripped = stripped.replace(sentence, " ")
                rest = best_passage(claim, stripped)
                if rest:
                    examples.append(Example(claim, rest, "not_found", False, f"{dataset}:removed"))
            for edited in (change_number(claim, passage, rng), negate(claim)):
                if edited:
                    examples.append(
                        Example(edited, passage, "contradicted", False, f"{dataset}:edited")
                    )
    return examples


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def _sentences(passage: str) -> list[str]:
    """The passage's whole sentences of 8 to 50 words (claim-sized; not a passage's cut-off
    start)."""
    return [
        s
        for s in map(str.strip, _SENTENCE_END.split(passage))
        if 8 <= len(s.split()) <= 50 and s[-1] in ".!?" and s[0].isupper()
    ]


def page_examples(
    eval_dir: Path,
    draws: int,
    split: Split = "train",
    seed: int = 13,
    exclude: Collection[str] = (),
) -> list[Example]:
    """Claims made from the licensed sets' own multi-passage documents (``split`` part), up to
    ``draws`` per document, each against one passage P of its page:

    - a sentence of P → supported;
    - a sentence of another passage of the same page → not_found (on topic, not stated in P);
    - a sentence of P joined to one from elsewhere on the page → not_found (partly stated);
    - a sentence of P with a number changed or its verb negated → contradicted.

    Real pages hold many passages about the claim's topic that do not state it; these teach that
    topical overlap is not support, and that every part of a claim must be stated."""
    rng = random.Random(seed)
    examples: list[Example] = []
    for dataset in sorted(LICENSED_FOR_TRAINING - set(exclude)):
        documents = sorted(
            {
                str(row.get("source_text") or "").strip()
                for row in _read(eval_dir / f"{dataset}.jsonl.gz")
            }
        )
        for document in documents:
            if not document or split_of(dataset, document) != split:
                continue
            passages = [p.text for p in split_passages(document, PASSAGE_WORDS)]
            sentences = [_sentences(p) for p in passages]
            usable = [i for i, found in enumerate(sentences) if found]
            if len(usable) < 2:
                continue
            origin = f"{dataset}:page"
            for _ in range(draws):
                here, there = rng.sample(usable, 2)
                passage = passages[here]
                stated = rng.choice(sentences[here])
                elsewhere = rng.choice(sentences[there])
                examples.append(Example(stated, passage, "supported", False, origin))
                examples.append(Example(elsewhere, passage, "not_found", False, origin))
                joined = f"{stated[:-1]}, and {elsewhere[0].lower()}{elsewhere[1:]}"
                examples.append(Example(joined, passage, "not_found", False, origin))
                edited = change_number(stated, passage, rng) or negate(stated)
                if edited:
                    examples.append(Example(edited, passage, "contradicted", False, origin))
    return examples


# shared/train sources whose evidence is prose (not captions or summaries of long documents).
_BEHAVIOUR_SOURCES = ("vitaminc", "fever_challenge", "mnli", "docnli_fever")


def behaviour_examples(
    train_dir: Path, eval_dir: Path, passages: int, seed: int = 13, per_template: int = 30
) -> list[Example]:
    """The behavioural suite's ``train`` half (``citation_verifier.behaviour``): its templates
    ``per_template`` times, and its edits of real sentences (negation, numbers, names, roles,
    antonyms, hedges, partial claims) applied to ``passages`` evidence texts of shared/train and
    to the licensed sets' ``train`` rows. The suite's ``measure`` half (other templates, other
    fillers, the licensed ``test`` rows) is never trained on."""
    rng = random.Random(seed)
    texts = sorted(
        {
            str(row["source_text"]).strip()
            for name in _BEHAVIOUR_SOURCES
            for row in _read(train_dir / f"{name}.jsonl.gz")
            if len(str(row["source_text"]).split()) >= 12
        }
    )
    pool = [("shared", t) for t in rng.sample(texts, min(passages, len(texts)))]
    pool += licensed_passages(eval_dir, "train", per_set=10_000, seed=seed)
    cases = [*template_cases("train", per_template, seed), *sentence_cases(pool, rng)]
    return [
        Example(c.claim, c.evidence, c.expected.value, False, f"behaviour:{c.template}")
        for c in cases
    ]


def training_mix(
    train_dir: Path,
    eval_dir: Path,
    *,
    in_domain_repeats: int = 3,
    seed: int = 13,
    exclude: Collection[str] = (),
    shared_rows: int | None = None,
    page_draws: int = 0,
    behaviour_passages: int = 0,
    negation_rows: int = 0,
) -> list[Example]:
    """The whole training stream, shuffled with ``seed``: shared/train once (or a seeded sample
    of ``shared_rows`` of it), the licensed in-domain rows but ``exclude`` (and their hard
    negatives) ``in_domain_repeats`` times (0: none), and ``page_draws`` claims per licensed
    multi-passage document (``page_examples``) once, and the behavioural suite's ``train`` half
    over ``behaviour_passages`` shared/train texts (``behaviour_examples``) once, and
    ``negation_rows`` polarity-flipped NLI hypotheses (``negation_examples``) once."""
    shared = shared_examples(train_dir, shared_rows, seed)
    in_domain = licensed_examples(eval_dir, "train", seed, exclude) if in_domain_repeats else []
    pages = page_examples(eval_dir, page_draws, "train", seed, exclude) if page_draws else []
    behaviour = (
        behaviour_examples(train_dir, eval_dir, behaviour_passages, seed)
        if behaviour_passages
        else []
    )
    negation = negation_examples(train_dir, negation_rows, seed) if negation_rows else []
    mix = shared + in_domain * in_domain_repeats + pages + behaviour + negation
    random.Random(seed).shuffle(mix)
    return mix


# 3-way NLI sources whose hypotheses are single short statements: negating one flips its label
# in a way that can be read off (below).
_NEGATION_SOURCES = {
    "snli.jsonl.gz": ("snli",),
    "mnli.jsonl.gz": ("mnli_matched",),
    "fever_challenge.jsonl.gz": ("fever_symmetric_v0.2", "fever2_adversarial"),
}
_NEGATED_AUXILIARY = re.compile(rf"\b({AUXILIARIES})(\s+not\b|n't\b)")
_ANY_NEGATION = re.compile(r"\b(not|no|never|nobody|nothing|none|neither|nor)\b|n't\b", re.I)


def without_negation(claim: str) -> str | None:
    """The claim with its one negated auxiliary made positive ("is not" → "is", "doesn't" →
    "does"), or None when it holds no such negation or any other."""
    matches = list(_NEGATED_AUXILIARY.finditer(claim))
    if len(matches) != 1 or len(_ANY_NEGATION.findall(claim)) != 1:
        return None
    m = matches[0]
    return claim[: m.start()] + m.group(1) + claim[m.end() :]


def negation_examples(train_dir: Path, rows: int, seed: int = 13) -> list[Example]:
    """Hypotheses of shared/train's 3-way NLI sets with their polarity flipped, labelled by
    what the flip does: an entailed statement negated is contradicted; a contradicted one that
    repeats most of the premise's words ("A man is sleeping" / "A man is running") negated is
    entailed ("A man is not running"); a neutral one stays neutral. Without them the checker
    learns the annotation artefact "a negated claim is a contradiction" (the negation challenge
    set's negated claims were all but never called supported; the stage it made is measured,
    not shipped: docs/CHECKER_MODEL.md). Balanced over the three labels,
    at most ``rows`` in all."""
    flipped = {"supported": "contradicted", "contradicted": "supported", "not_found": "not_found"}
    by_label: dict[str, list[Example]] = {label: [] for label in LABELS}
    for name, datasets in _NEGATION_SOURCES.items():
        if not (train_dir / name).exists():
            continue
        for row in _read(train_dir / name):
            claim, premise = str(row["claim"]).strip(), str(row["source_text"]).strip()
            if row["dataset"] not in datasets or not claim or len(claim.split()) > 25:
                continue
            label = str(row["label"])
            if label == "contradicted" and overlap(claim, premise) < 0.6:
                continue
            edited = without_negation(claim) if _ANY_NEGATION.search(claim) else negate(claim)
            if edited is None:
                continue
            by_label[flipped[label]].append(
                Example(edited, premise, flipped[label], False, f"negation:{row['dataset']}")
            )
    rng = random.Random(seed)
    share = min(rows // len(LABELS), *(len(v) for v in by_label.values()))
    return [e for v in by_label.values() for e in rng.sample(v, share)]
