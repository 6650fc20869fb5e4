import numpy as np
import pytest

from batch_helpers import CountingEmbedder
from citation_verifier.passages import Passage, split_passages
from citation_verifier.retrieve import (
    MiniLMEmbedder,
    fuse_rankings,
    lexical_scores,
    rank,
    top_passages,
)
from citation_verifier.settings import Retrieval, Settings


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
    assert rank([0.5, 1.0, 0.5, 1.0]) == [1, 3, 0, 2]


def test_embedding_retrieval_is_the_default() -> None:
    assert Settings().retrieval == "embedding"


def test_bm25_weighs_rare_claim_terms_above_common_ones() -> None:
    texts = [
        "The museum opened in 1998 in the city centre.",
        "The city has a museum, a park and a museum shop.",
        "Rainfall in the city is highest in November.",
    ]
    scores = lexical_scores("The museum opened in 1998.", texts)
    assert scores[0] > scores[1] > scores[2] == 0.0
    assert lexical_scores("", texts) == [0.0, 0.0, 0.0]


def test_bm25_counts_numbers_and_stems_words() -> None:
    scores = lexical_scores(
        "Boiling water reaches 100 degrees.",
        ["Water boils at 100 degrees.", "Water freezes at 0 degrees."],
    )
    assert scores[0] > scores[1] > 0


def test_reciprocal_rank_fusion_favours_items_both_rankings_place_high() -> None:
    # Item 2 is second in both; items 0 and 1 are first in one and last in the other.
    assert fuse_rankings([0, 2, 3, 1], [1, 2, 3, 0])[0] == 2
    assert fuse_rankings([0, 1, 2], [0, 1, 2]) == [0, 1, 2]


def _page() -> list[Passage]:
    return split_passages(
        "\n\n".join(
            [
                "The stock market fell sharply on Monday.",
                "Cats sleep for most of the day.",
                "Water boils at 100 degrees Celsius at sea level.",
                "Football is popular in Brazil.",
                "The boiling point of water drops at high altitude.",
            ]
        ),
        max_words=12,
    )


@pytest.mark.parametrize("retrieval", ["embedding", "hybrid", "lexical"])
def test_every_retrieval_finds_the_passage_that_states_the_claim(
    embedder: MiniLMEmbedder, retrieval: Retrieval
) -> None:
    passages = _page()
    best = top_passages(
        "Water boils at 100 degrees Celsius.", passages, embedder, k=2, retrieval=retrieval
    )
    assert best[0] is passages[2] and len(best) == 2


def test_lexical_retrieval_never_embeds(embedder: MiniLMEmbedder) -> None:
    counting = CountingEmbedder(embedder)
    top_passages("Water boils at 100 degrees.", _page(), counting, k=3, retrieval="lexical")
    assert counting.texts == []


def test_hybrid_embeds_only_when_there_is_something_to_choose(embedder: MiniLMEmbedder) -> None:
    counting = CountingEmbedder(embedder)
    passages = _page()
    everything = top_passages("Water boils.", passages, counting, k=5, retrieval="hybrid")
    assert counting.texts == [] and {id(p) for p in everything} == {id(p) for p in passages}
    top_passages("Water boils.", passages, counting, k=2, retrieval="hybrid")
    assert len(counting.texts) == 1 + len(passages)


def test_hybrid_finds_a_paraphrase_bm25_alone_misses(embedder: MiniLMEmbedder) -> None:
    texts = [
        "Our cardiologists care for people after a myocardial infarction.",
        "The clinic car park is free for every visitor.",
        "The clinic opens at 9 in the morning on weekdays.",
    ]
    passages = [Passage(text, 0, len(text), i) for i, text in enumerate(texts)]
    claim = "The clinic treats heart attacks."
    lexical = top_passages(claim, passages, embedder, k=1, retrieval="lexical")
    hybrid = top_passages(claim, passages, embedder, k=2, retrieval="hybrid")
    assert lexical[0] is not passages[0]
    assert passages[0] in hybrid


def test_embedder_loads_nothing_until_first_use() -> None:
    fresh = MiniLMEmbedder()
    assert fresh._session is None
    fresh.embed(["x"])
    assert fresh._session is not None


def test_a_passage_that_states_the_claim_verbatim_comes_first(embedder: MiniLMEmbedder) -> None:
    filler = " ".join(
        f"Unrelated sentence number {i} about the weather and trains." for i in range(30)
    )
    pages = [
        Passage("Water boils at 100 degrees Celsius at sea level, as every cook knows.", 0, 1, 0),
        Passage(
            filler + " The harbour bridge opened to traffic in 1932 after four years.", 2, 3, 1
        ),
    ]
    claim = "The harbour bridge opened to traffic in 1932."
    assert top_passages(claim, pages, embedder, 1)[0].index == 1
