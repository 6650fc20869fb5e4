"""The caching embedder: same vectors as the model, each text embedded once."""

from __future__ import annotations

import numpy as np

from batch_helpers import CountingEmbedder
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.reuse.embeddings import CachingEmbedder


def test_cached_vectors_equal_the_models_and_repeats_are_not_embedded_again(
    embedder: MiniLMEmbedder,
) -> None:
    counting = CountingEmbedder(embedder)
    cache = CachingEmbedder(counting, capacity=100)
    first = cache.embed(["claim one", "passage A", "passage B"])
    second = cache.embed(["claim two", "passage A", "passage B", "passage A"])
    assert np.allclose(first, embedder.embed(["claim one", "passage A", "passage B"]), atol=1e-6)
    assert np.allclose(second[1:3], first[1:3])
    assert np.allclose(second[3], first[1])
    assert counting.texts == ["claim one", "passage A", "passage B", "claim two"]
    assert cache.embed([]).shape == (0, 384)


def test_least_recently_used_texts_are_evicted_beyond_capacity(embedder: MiniLMEmbedder) -> None:
    counting = CountingEmbedder(embedder)
    cache = CachingEmbedder(counting, capacity=2)
    cache.embed(["a"])
    cache.embed(["b"])
    cache.embed(["a"])  # a is now the most recent
    cache.embed(["c"])  # evicts b
    cache.embed(["a", "b"])
    assert counting.texts == ["a", "b", "c", "b"]
