"""The whole pipeline against loopback pages, with the real embedder and judge."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route, redirect
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.judge.base import Judgement
from citation_verifier.models import Label, Reason, VerifyRequest
from citation_verifier.passages import Passage
from citation_verifier.retrieve import MiniLMEmbedder, Vectors
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
ROUTES: dict[str, Route] = {
    "/boil": Page(BOILING_HTML),
    "/old": Page("gone", status=404),
    "/moved": redirect("/"),
    "/": Page("<html><body><p>Home</p></body></html>"),
}


class RecordingJudge:
    """A Judge that records its calls and invents a quote: the guard must reject it."""

    name = "test/recording"

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        self.calls.append((claim, len(passages)))
        return Judgement(Label.SUPPORTED, "a sentence that is not on the page", 0.99)


async def test_supported_claim_with_dead_second_link(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(ROUTES)
    async with Verifier(settings, embedder=embedder) as verifier:
        result = await verifier.verify(
            VerifyRequest(
                claim="Water boils at 100 degrees Celsius at sea level.",
                urls=[site.url("/boil"), site.url("/old")],
            )
        )
    assert result.overall == Label.SUPPORTED
    first, second = result.citations
    assert first.label == Label.SUPPORTED
    assert first.evidence_quote == "Water boils at 100 degrees Celsius at sea level."
    assert (first.original_status, first.final_url) == (200, site.url("/boil"))
    assert (second.label, second.reason, second.original_status) == (
        Label.UNREACHABLE,
        "http_404",
        404,
    )


async def test_contradicted_claim_quotes_the_page(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(ROUTES)
    async with Verifier(settings, embedder=embedder) as verifier:
        result = await verifier.verify(
            VerifyRequest(
                claim="Water boils at 50 degrees Celsius at sea level.", urls=[site.url("/boil")]
            )
        )
    assert result.overall == Label.CONTRADICTED
    assert result.citations[0].evidence_quote == "Water boils at 100 degrees Celsius at sea level."


async def test_judge_is_never_called_for_settled_pages(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(ROUTES)
    judge = RecordingJudge()
    async with Verifier(settings, embedder=embedder, judge=judge) as verifier:
        result = await verifier.verify(
            VerifyRequest(
                claim="c", urls=[site.url("/old"), site.url("/moved"), "http://x.invalid/"]
            )
        )
    assert judge.calls == []
    assert [c.reason for c in result.citations] == [
        "http_404",
        Reason.REDIRECTED_TO_HOMEPAGE,
        Reason.DNS_ERROR,
    ]
    assert result.overall == Label.NOT_FOUND


async def test_invented_quote_is_downgraded_by_the_guard(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(ROUTES)
    judge = RecordingJudge()
    async with Verifier(settings, embedder=embedder, judge=judge) as verifier:
        result = await verifier.verify(
            VerifyRequest(claim="Water boils.", urls=[site.url("/boil")])
        )
    assert judge.calls == [("Water boils.", 1)]
    verdict = result.citations[0]
    assert (verdict.label, verdict.reason) == (Label.NOT_FOUND, Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE)
    # The judge was sure of its own label: the guard's is the doubtful one, for a person to see.
    assert verdict.confidence < 0.5 and verdict.needs_review
    assert verdict.review_reason is not None
    assert verdict.review_reason.startswith("rule and model disagree")


async def test_only_top_k_passages_reach_the_judge(serve: Serve, embedder: MiniLMEmbedder) -> None:
    paragraphs = "".join(
        f"<p>Paragraph {i} says something different about topic {i}.</p>" for i in range(30)
    )
    site = serve({"/long": Page(f"<html><body><article>{paragraphs}</article></body></html>")})
    judge = RecordingJudge()
    tight = Settings(allow_private_urls=True, passage_max_words=8, top_k=3)
    async with Verifier(tight, embedder=embedder, judge=judge) as verifier:
        await verifier.verify(VerifyRequest(claim="topic 7", urls=[site.url("/long")]))
    assert judge.calls == [("topic 7", 3)]


class RefusingEmbedder:
    """An embedder that must not be called."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        raise AssertionError("lexical retrieval embedded a text")


async def test_lexical_retrieval_setting_judges_a_page_without_embedding(
    serve: Serve, settings: Settings
) -> None:
    site = serve(ROUTES)
    lexical = settings.model_copy(update={"retrieval": "lexical", "judge_provider": "checker"})
    async with Verifier(lexical, embedder=RefusingEmbedder()) as verifier:
        verdict = await verifier.verify_url(
            "Water boils at 100 degrees Celsius at sea level.", site.url("/boil")
        )
    assert verdict.label == Label.SUPPORTED
    assert verdict.evidence_quote is not None and "100 degrees" in verdict.evidence_quote


async def test_warm_up_judges_a_made_up_pair_with_the_embedded_checker_only(
    settings: Settings, embedder: MiniLMEmbedder
) -> None:
    for provider, judged in (("checker", 1), ("openai", 0), ("lexical", 0)):
        judge = RecordingJudge()
        chosen = settings.model_copy(update={"judge_provider": provider})
        async with Verifier(chosen, embedder=embedder, judge=judge) as verifier:
            await verifier.warm_up()
            assert len(judge.calls) == judged, provider  # an API judge is never sent the pair


class FailingJudge:
    name = "test/failing"

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        raise RuntimeError("the model file is missing")


async def test_a_failed_warm_up_is_logged_and_the_verifier_still_serves(
    settings: Settings, embedder: MiniLMEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    chosen = settings.model_copy(update={"judge_provider": "checker"})
    async with Verifier(chosen, embedder=embedder, judge=FailingJudge()) as verifier:
        await verifier.warm_up()
    assert "warm-up failed (RuntimeError): the model file is missing" in caplog.text
