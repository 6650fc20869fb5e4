"""A verdict reused from the verdict cache reports no LLM calls, tokens or cost of its own."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.models import Label
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.reuse.verdicts import VerdictCache
from citation_verifier.verifier import Verifier
from fake_llm import Verdict
from llm_setup import llm_settings, make_fake

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
QUOTE = "Water boils at 100 degrees Celsius at sea level."


async def test_reused_verdict_is_not_billed_twice(serve: Serve, embedder: MiniLMEmbedder) -> None:
    site = serve({"/boil": Page(BOILING_HTML)})
    with make_fake("openai", default=lambda _body: Verdict("supported", QUOTE)) as fake:
        settings = llm_settings("openai", fake)
        async with Verifier(settings, embedder=embedder, verdict_cache=VerdictCache()) as verifier:
            first = await verifier.verify_url(QUOTE, site.url("/boil"))
            second = await verifier.verify_url(QUOTE, site.url("/boil"))
        assert len(fake.requests) == 1
    assert first.label == second.label == Label.SUPPORTED
    assert first.judge_calls == 1 and first.judge_input_tokens > 0
    assert (second.judge_calls, second.judge_input_tokens, second.judge_output_tokens) == (0, 0, 0)
    assert second.judge_cost_usd == 0.0
