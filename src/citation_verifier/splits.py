"""Fixed hash splits of the labelled dev data: which rows a shipped model may train on.

Every row of a dataset falls, by a hash of its source text, into ``train``, ``tune`` or
``test``. Rows sharing a source document share a part, so a claim is never tested against a page
the model saw in training. Only datasets whose licence allows training weights we ship have a
``train`` part; the others are split into ``tune`` (thresholds) and ``test`` alone. Published
figures come from ``test`` rows: never trained on, never tuned on.
"""

from __future__ import annotations

import hashlib
from typing import Literal

Split = Literal["train", "tune", "test"]
SPLITS: tuple[Split, ...] = ("train", "tune", "test")

LICENSED_FOR_TRAINING = frozenset({"wice", "expertqa", "factcheckgpt", "checkcovid"})
"""Dev sets whose licences (ODC-BY, MIT, Apache-2.0, MIT) allow training weights that ship."""

_TRAIN_BELOW = 40
_TUNE_BELOW = 55
_UNLICENSED_TUNE_BELOW = 25


def bucket(dataset: str, source_text: str) -> int:
    """A stable number in [0, 100) for a row's source document."""
    digest = hashlib.sha256(f"{dataset}\x00{source_text.strip()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 100


def split_of(dataset: str, source_text: str) -> Split:
    """The part of ``dataset`` a row with this source text belongs to: 40 % train, 15 % tune and
    45 % test for the licensed sets; 25 % tune and 75 % test for the others."""
    b = bucket(dataset, source_text)
    if dataset in LICENSED_FOR_TRAINING:
        return "train" if b < _TRAIN_BELOW else "tune" if b < _TUNE_BELOW else "test"
    return "tune" if b < _UNLICENSED_TUNE_BELOW else "test"
