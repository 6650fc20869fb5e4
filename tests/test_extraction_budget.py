"""Page text extraction stays within its budget: a PDF whose pages share one large content
stream stops at EXTRACT_TIMEOUT_S and PDF_MAX_PAGES, extraction runs in a bounded pool of its
own (six such PDFs no longer make another user's page time out waiting for DNS), and a long
page embeds at most MAX_PASSAGES_EMBEDDED passages."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping

from batch_helpers import CountingEmbedder
from citation_verifier.demo.hostile import heavy_pdf
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.extract import pdf_to_text
from citation_verifier.fetch.direct import DirectFetcher
from citation_verifier.fetch.policy import Document, PagePolicy
from citation_verifier.models import Label, VerifyRequest
from citation_verifier.passages import split_passages
from citation_verifier.retrieve import MiniLMEmbedder, top_passages
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."
HEAVY = Page(heavy_pdf(pages=200), content_type="application/pdf")
TINY = Page(f"<html><body><article><p>{CLAIM}</p></article></body></html>")


def _settings(**overrides: object) -> Settings:
    values: dict[str, object] = {
        "allow_private_urls": True,
        "fetch_timeout_s": 5.0,
        "extract_timeout_s": 1.0,
        **overrides,
    }
    return Settings(**values)  # type: ignore[arg-type]


async def test_a_heavy_pdf_is_read_only_until_extract_timeout(serve: Serve) -> None:
    site = serve({"/heavy.pdf": HEAVY})
    settings = _settings()
    fetcher = DirectFetcher(settings)
    started = time.monotonic()
    try:
        loaded = await PagePolicy(fetcher, settings).load(site.url("/heavy.pdf"))
    finally:
        await fetcher.aclose()
    elapsed = time.monotonic() - started
    assert isinstance(loaded, Document) and "Water boils" in loaded.text  # the pages read
    assert elapsed < 4, f"{elapsed:.1f} s for a 1 s extraction budget"


def test_pdf_pages_past_pdf_max_pages_are_not_read() -> None:
    pdf = heavy_pdf(pages=5, stream_bytes=200)
    every = pdf_to_text(pdf)
    first_two = pdf_to_text(pdf, max_pages=2)
    assert every.count("\n\n") == 4 and first_two.count("\n\n") == 1


async def test_heavy_pdfs_do_not_starve_another_users_page(
    serve: Serve, embedder: MiniLMEmbedder
) -> None:
    heavy = {f"/heavy-{n}.pdf": HEAVY for n in range(6)}
    site = serve({**heavy, "/tiny": TINY})
    settings = _settings(fetch_cache_ttl_s=0)
    async with Verifier(settings, embedder=embedder) as verifier:
        attack = asyncio.create_task(
            verifier.verify(VerifyRequest(claim=CLAIM, urls=[site.url(p) for p in heavy]))
        )
        await asyncio.sleep(0.5)  # the PDFs are being extracted
        other = await verifier.verify(VerifyRequest(claim=CLAIM, urls=[site.url("/tiny")]))
        await attack
    # Starved, its host name waited behind the extractions past the fetch deadline: timeout.
    assert other.citations[0].label == Label.SUPPORTED, other.citations[0].detail


def test_a_long_page_embeds_at_most_max_passages_embedded(embedder: MiniLMEmbedder) -> None:
    filler = "\n\n".join(
        f"Paragraph {n} is about rivers, hills and town number {n}." for n in range(3000)
    )
    passages = split_passages(f"{filler}\n\n{'word ' * 150}\n\n{CLAIM}", 20)
    assert len(passages) > 1000
    counting = CountingEmbedder(embedder)
    best = top_passages(CLAIM, passages, counting, k=3, max_embedded=64)
    assert len(counting.texts) == 1 + 64  # the claim and the narrowed passages
    assert CLAIM in best[0].text
