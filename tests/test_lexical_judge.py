from citation_verifier.judge.lexical import LexicalJudge
from citation_verifier.judge.sentences import split_sentences
from citation_verifier.models import Label
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings

PAGE = split_passages(
    "Water boils at 100 degrees Celsius at sea level. At altitude it boils lower.\n\n"
    "The Eiffel Tower is not made of wood. It was completed in 1889 in Paris."
)


def judge(embedder: MiniLMEmbedder) -> LexicalJudge:
    s = Settings()
    return LexicalJudge(
        embedder,
        support_threshold=s.lexical_judge_support_threshold,
        relevance_threshold=s.lexical_judge_relevance_threshold,
    )


async def test_stated_claim_is_supported_with_verbatim_sentence(embedder: MiniLMEmbedder) -> None:
    result = await judge(embedder).judge("Water boils at 100 degrees Celsius at sea level.", PAGE)
    assert result.label == Label.SUPPORTED
    assert result.evidence_quote == "Water boils at 100 degrees Celsius at sea level."
    assert 0.5 < result.confidence <= 1.0


async def test_different_number_is_contradicted(embedder: MiniLMEmbedder) -> None:
    result = await judge(embedder).judge("Water boils at 50 degrees Celsius at sea level.", PAGE)
    assert result.label == Label.CONTRADICTED
    assert result.evidence_quote == "Water boils at 100 degrees Celsius at sea level."


async def test_negated_statement_is_contradicted(embedder: MiniLMEmbedder) -> None:
    result = await judge(embedder).judge("The Eiffel Tower is made of wood.", PAGE)
    assert result.label == Label.CONTRADICTED
    assert result.evidence_quote == "The Eiffel Tower is not made of wood."


async def test_unmentioned_claim_is_not_found(embedder: MiniLMEmbedder) -> None:
    result = await judge(embedder).judge("Bananas are rich in potassium.", PAGE)
    assert (result.label, result.evidence_quote) == (Label.NOT_FOUND, None)


async def test_partially_covered_claim_is_not_found(embedder: MiniLMEmbedder) -> None:
    claim = "The Eiffel Tower was completed in 1889 by Gustave Eiffel's company for the World Fair."
    assert (await judge(embedder).judge(claim, PAGE)).label == Label.NOT_FOUND


async def test_no_passages_is_not_found(embedder: MiniLMEmbedder) -> None:
    assert (await judge(embedder).judge("anything", [])).label == Label.NOT_FOUND


def test_sentences_are_verbatim_slices_of_passages() -> None:
    sentences = split_sentences(PAGE)
    assert sentences[:2] == [
        "Water boils at 100 degrees Celsius at sea level.",
        "At altitude it boils lower.",
    ]
    assert all(any(s in p.text for p in PAGE) for s in sentences)
