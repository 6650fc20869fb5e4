"""The trained claim checker's model: a MiniLM cross-encoder on ONNX Runtime (no torch).

It reads a (claim, text) pair and gives the probabilities of supported, contradicted and
not_found. The weights ship in ``citation_verifier/data/checker/`` (trained by ``training/``,
described in docs/CHECKER_MODEL.md); ``CHECKER_MODEL_PATH`` points at another ONNX file of the
same shape. The tokenizer is all-MiniLM-L6-v2's, shipped beside the embedder's weights.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from citation_verifier.errors import ModelUnavailableError
from citation_verifier.retrieve import MINILM_TOKENIZER, cpu_session, run_and_release

Probabilities = npt.NDArray[np.float32]
"""One row per text: P(supported), P(contradicted), P(not_found)."""

DATA = Path(__file__).resolve().parent.parent / "data"
SHIPPED_MODEL = DATA / "checker" / "checker.onnx"
SHIPPED_CARD = DATA / "checker" / "checker.json"
_BATCH = 16
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class PairScorer(Protocol):
    """Scores texts against a claim."""

    def probabilities(self, claim: str, texts: Sequence[str]) -> Probabilities:
        """An (n, 3) array for ``n`` texts; (0, 3) for none."""
        ...


@dataclass(frozen=True)
class ModelCard:
    """What ``checker.json`` records about the shipped weights."""

    labels: tuple[str, ...]
    max_tokens: int
    sha256: str
    size: int
    calibration: tuple[float, float] = (1.0, 0.0)
    """Platt scaling (a, b) of the support score, fitted on dev data: P = σ(a·logit(s) + b)."""


def shipped_card() -> ModelCard:
    """The shipped model's record (labels, input length, checksum)."""
    raw = json.loads(SHIPPED_CARD.read_text(encoding="utf-8"))
    a, b = raw.get("calibration", (1.0, 0.0))
    return ModelCard(
        tuple(raw["labels"]),
        int(raw["max_tokens"]),
        raw["sha256"],
        int(raw["size"]),
        (float(a), float(b)),
    )


def calibrated(support: float, calibration: tuple[float, float]) -> float:
    """The support score mapped to a calibrated probability of support (Platt scaling)."""
    a, b = calibration
    s = min(max(support, 1e-6), 1 - 1e-6)
    return float(1.0 / (1.0 + np.exp(-(a * np.log(s / (1 - s)) + b))))


def verify_file(path: Path, card: ModelCard) -> None:
    """Refuse a model file whose size or SHA-256 differs from its card."""
    if not path.is_file():
        raise ModelUnavailableError(f"checker model missing: {path}")
    if path.stat().st_size != card.size:
        raise ModelUnavailableError(
            f"checker model {path} has {path.stat().st_size} bytes, expected {card.size}"
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != card.sha256:
        raise ModelUnavailableError(
            f"checker model {path} has SHA-256 {digest}, expected the card's"
        )


class CheckerModel:
    """The cross-encoder on ONNX Runtime. Loaded at the first call, once; the session is shared
    by threads (ONNX Runtime sessions are safe for concurrent ``run`` calls)."""

    def __init__(self, path: Path | None = None, *, threads: int = 0) -> None:
        self._path = path
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None

    @cached_property
    def card(self) -> ModelCard:
        """The shipped model's card, read once (its input length also applies to another file)."""
        return shipped_card()

    @property
    def calibration(self) -> tuple[float, float]:
        """The shipped card's calibration; none (identity) for another model file."""
        return self.card.calibration if self._path is None else (1.0, 0.0)

    @property
    def name(self) -> str:
        """Recorded with verdicts: the shipped model by its checksum, another by its file name
        (so eval checkpoints and audit records tell models apart)."""
        if self._path is not None:
            return self._path.stem
        return f"minilm-l6-checker-{self.card.sha256[:8]}"

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                from tokenizers import Tokenizer

                path = self._path or SHIPPED_MODEL
                if self._path is None:
                    verify_file(path, self.card)
                elif not path.is_file():
                    raise ModelUnavailableError(f"CHECKER_MODEL_PATH {path} is not a file")
                tokenizer = Tokenizer.from_file(str(MINILM_TOKENIZER))
                tokenizer.enable_truncation(
                    max_length=self.card.max_tokens, strategy="longest_first"
                )
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                try:
                    session = cpu_session(path, self._threads)
                except Exception as error:  # ONNX Runtime raises its own types for bad files
                    raise ModelUnavailableError(
                        f"CHECKER_MODEL_PATH {path} is not a model ONNX Runtime can load: "
                        f"{type(error).__name__}"
                    ) from None
                inputs = {i.name for i in session.get_inputs()}
                outputs = {o.name for o in session.get_outputs()}
                if inputs != set(_INPUTS) or "logits" not in outputs:
                    raise ModelUnavailableError(
                        f"checker model {path} takes {sorted(inputs)} and gives {sorted(outputs)}; "
                        f"expected {list(_INPUTS)} and logits"
                    )
                self._session = session
                self._tokenizer = tokenizer
        return self._session, self._tokenizer

    def probabilities(self, claim: str, texts: Sequence[str]) -> Probabilities:
        """P(supported), P(contradicted), P(not_found) of ``claim`` against each text."""
        if not texts:
            return np.zeros((0, 3), dtype=np.float32)
        session, tokenizer = self._load()
        out: list[Probabilities] = []
        for start in range(0, len(texts), _BATCH):
            batch = [(claim, text) for text in texts[start : start + _BATCH]]
            encodings = tokenizer.encode_batch(batch)
            feeds = {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
            }
            logits = run_and_release(session, ["logits"], feeds)[0].astype(np.float64)
            logits -= logits.max(axis=1, keepdims=True)
            exp = np.exp(logits)
            out.append((exp / exp.sum(axis=1, keepdims=True)).astype(np.float32))
        return np.vstack(out)
