import numpy as np

from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder, rank_by_similarity, top_passages


def test_embeddings_are_unit_vectors_of_dimension_384(embedder: MiniLMEmbedder) -> None:
    vectors = embedder.embed(["Water boils at 100 degrees.", "Stocks fell today."])
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_related_sentences_are_closer_than_unrelated(embedder: MiniLMEmbedder) -> None:
    a, b, c = embedder.embed(
        [
            "Water boils at 100 °C at sea level.",
            "At sea level water boils at 100 degrees.",
            "The central bank raised interest rates.",
        ]
    )
    assert float(a @ b) > 0.8 > 0.3 > float(a @ c)


def test_top_passages_keeps_the_k_most_similar_best_first(embedder: MiniLMEmbedder) -> None:
    text = "\n\n".join(
        [
            "The stock market fell sharply on Monday.",
            "Cats sleep for most of the day.",
            "Water boils at 100 degrees Celsius at sea level.",
            "Football is popular in Brazil.",
            "Boiling points drop at high altitude because air pressure is lower.",
        ]
    )
    passages = split_passages(text, max_words=12)
    best = top_passages("At what temperature does water boil?", passages, embedder, k=2)
    assert [p.text for p in best] == [passages[2].text, passages[4].text]


def test_no_passages_or_k_below_one_gives_nothing(embedder: MiniLMEmbedder) -> None:
    assert top_passages("claim", [], embedder, k=3) == []
    assert top_passages("claim", split_passages("some text"), embedder, k=0) == []


def test_ties_keep_document_order() -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    candidates = np.array([[0.5, 0.5], [1.0, 0.0], [0.5, 0.5], [1.0, 0.0]], dtype=np.float32)
    assert rank_by_similarity(query, candidates, ["a", "b", "c", "d"], k=3) == ["b", "d", "a"]


def test_embedder_loads_nothing_until_first_use() -> None:
    fresh = MiniLMEmbedder()
    assert fresh._session is None
    fresh.embed(["x"])
    assert fresh._session is not None
