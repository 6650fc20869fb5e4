"""An Embedder wrapper that remembers vectors by text, so a page cited by many claims has its
passages (and the judge its sentences) embedded once per batch or answer, not once per claim."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from citation_verifier.retrieve import Embedder, Vectors


class CachingEmbedder:
    """Least-recently-used cache of ``capacity`` vectors in front of ``inner``. Thread-safe:
    retrieval and the judge call it from worker threads."""

    def __init__(self, inner: Embedder, capacity: int = 20_000) -> None:
        self._inner = inner
        self._capacity = capacity
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def clear(self) -> None:
        """Forget every vector (the counters stay)."""
        with self._lock:
            self._vectors.clear()

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors of ``texts``; only texts not in the cache reach the inner embedder."""
        if not texts:
            return self._inner.embed(texts)
        with self._lock:
            found = {t: self._vectors[t] for t in texts if t in self._vectors}
            for text in found:
                self._vectors.move_to_end(text)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        computed = dict(zip(missing, self._inner.embed(missing), strict=True)) if missing else {}
        with self._lock:
            self.hits += len(texts) - len(missing)
            self.misses += len(missing)
            for text, vector in computed.items():
                self._vectors[text] = vector
                self._vectors.move_to_end(text)
            while len(self._vectors) > self._capacity:
                self._vectors.popitem(last=False)
        vectors = {**found, **computed}
        return np.stack([vectors[t] for t in texts]).astype(np.float32, copy=False)
