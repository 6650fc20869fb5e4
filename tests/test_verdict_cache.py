"""VerdictCache and its use by the Verifier: a repeated (claim, page text, judge settings)
triple reuses the verdict; a different claim, text or setting does not."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.models import Label, UrlVerdict, VerifyRequest
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.reuse.pages import PageCache
from citation_verifier.reuse.verdicts import (
    VerdictCache,
    judge_fingerprint,
    verdict_key,
)
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."


async def test_the_same_claim_on_the_same_text_is_judged_once(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    # Two URLs (a mirror) with identical text: one judgement, each verdict keeps its own URL.
    site = serve({"/a": Page(BOILING_HTML), "/mirror/a": Page(BOILING_HTML)})
    cache = VerdictCache()
    async with build_verifier(settings, embedder=embedder, verdict_cache=cache) as verifier:
        result = await verifier.verify(
            VerifyRequest(claim=CLAIM, urls=[site.url("/a"), site.url("/mirror/a")])
        )
        again = await verifier.verify(VerifyRequest(claim=CLAIM, urls=[site.url("/a")]))
    assert [c.label for c in result.citations] == [Label.SUPPORTED, Label.SUPPORTED]
    assert [c.url for c in result.citations] == [site.url("/a"), site.url("/mirror/a")]
    assert result.citations[1].final_url == site.url("/mirror/a")
    # The same verdict, recorded again in the audit trail under its own id.
    assert again.citations[0].audit_id != result.citations[0].audit_id
    assert again.citations[0].model_copy(update={"audit_id": None}) == (
        result.citations[0].model_copy(update={"audit_id": None})
    )
    assert (cache.misses, cache.hits) == (1, 2)


async def test_a_different_claim_is_judged_again(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/a": Page(BOILING_HTML)})
    cache = VerdictCache()
    async with Verifier(
        settings, embedder=embedder, verdict_cache=cache, page_cache=PageCache(60)
    ) as verifier:
        supported = await verifier.verify(VerifyRequest(claim=CLAIM, urls=[site.url("/a")]))
        contradicted = await verifier.verify(
            VerifyRequest(
                claim="Water boils at 50 degrees Celsius at sea level.", urls=[site.url("/a")]
            )
        )
    assert supported.overall == Label.SUPPORTED
    assert contradicted.overall == Label.CONTRADICTED
    assert cache.misses == 2 and cache.hits == 0
    assert site.hits["/a"] == 1  # the page itself came from the page cache


def test_the_key_depends_on_claim_text_and_judge_settings() -> None:
    base = judge_fingerprint("local", Settings())
    other = judge_fingerprint("local", Settings(top_k=5))
    assert verdict_key("c", "text", base) == verdict_key("c", "text", base)
    assert verdict_key("c", "text", base) != verdict_key("c", "text", other)
    assert verdict_key("c", "text", base) != verdict_key("c", "text2", base)
    assert verdict_key("ab", "c", base) != verdict_key("a", "bc", base)
    assert judge_fingerprint("local", Settings()) != judge_fingerprint("openai:gpt", Settings())


async def test_concurrent_identical_triples_run_once_and_failures_are_not_kept() -> None:
    cache = VerdictCache(max_entries=1)
    calls = 0

    async def compute() -> UrlVerdict:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.05)
        return UrlVerdict(url="http://x/", label=Label.NOT_FOUND, confidence=0.5)

    async def failing() -> UrlVerdict:
        raise RuntimeError("judge down")

    results = await asyncio.gather(*(cache.get_or_compute("k", compute) for _ in range(5)))
    assert calls == 1 and len({r.label for r in results}) == 1
    with pytest.raises(RuntimeError):
        await cache.get_or_compute("bad", failing)
    assert len(cache) == 1  # "bad" not stored; max_entries bounds the rest
