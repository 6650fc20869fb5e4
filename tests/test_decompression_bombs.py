"""Content-Encoding bombs: a small body that decodes to far more than MAX_BODY_BYTES is refused
as ``too_large`` while it is decoded, never decoded whole first (a 65 KB zstd body took the
process from 585 MB to 4.7 GB)."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import Callable, Mapping

import pytest
import zstandard

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.fetch.base import FetchFailed
from citation_verifier.fetch.body import decode_capped
from citation_verifier.fetch.direct import DirectFetcher
from citation_verifier.models import Reason
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
DECODED = 64 * 1024 * 1024  # what each bomb expands to
CAP = 1024 * 1024  # MAX_BODY_BYTES in these tests
ZEROS = b"\0" * DECODED
BOMBS = {
    "gzip": gzip.compress(ZEROS, compresslevel=9),
    "deflate": zlib.compress(ZEROS, 9),
    "zstd": zstandard.ZstdCompressor(level=3).compress(ZEROS),
}
del ZEROS
SMALL = b"<html><body><p>Water boils at 100 degrees Celsius at sea level.</p></body></html>"
SMALL_ENCODED = {
    "gzip": gzip.compress(SMALL),
    "deflate": zlib.compress(SMALL),
    "zstd": zstandard.ZstdCompressor().compress(SMALL),
    "gzip, zstd": zstandard.ZstdCompressor().compress(gzip.compress(SMALL)),
}


def _page(body: bytes, coding: str) -> Page:
    return Page(body, headers={"Content-Encoding": coding})


@pytest.mark.parametrize("coding", BOMBS)
async def test_a_content_encoding_bomb_is_too_large_without_being_decoded_whole(
    serve: Serve, coding: str
) -> None:
    assert len(BOMBS[coding]) < 100 * 1024  # small on the wire
    site = serve({"/bomb": _page(BOMBS[coding], coding)})
    settings = Settings(allow_private_urls=True, max_body_bytes=CAP, fetch_timeout_s=10)
    fetcher = DirectFetcher(settings)
    tracemalloc.start()
    try:
        with pytest.raises(FetchFailed) as failed:
            await fetcher.fetch(site.url("/bomb"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        await fetcher.aclose()
    assert failed.value.reason == Reason.TOO_LARGE
    assert peak < 8 * CAP, f"{peak / 2**20:.0f} MiB held while decoding"


@pytest.mark.parametrize("coding", SMALL_ENCODED)
async def test_an_encoded_page_within_the_cap_is_decoded(serve: Serve, coding: str) -> None:
    site = serve({"/page": _page(SMALL_ENCODED[coding], coding)})
    fetcher = DirectFetcher(Settings(allow_private_urls=True, max_body_bytes=CAP))
    try:
        page = await fetcher.fetch(site.url("/page"))
    finally:
        await fetcher.aclose()
    assert page.body == SMALL


@pytest.mark.parametrize(
    ("body", "coding"), [(b"not gzip at all", "gzip"), (b"\x28\xb5\x2f\xfd junk", "zstd")]
)
def test_a_corrupt_encoded_body_is_a_connection_error(body: bytes, coding: str) -> None:
    with pytest.raises(FetchFailed) as failed:
        decode_capped(body, coding, CAP)
    assert failed.value.reason == Reason.CONNECTION_ERROR


def test_a_coding_we_did_not_ask_for_is_refused() -> None:
    with pytest.raises(FetchFailed) as failed:
        decode_capped(b"\x1b\x00", "br", CAP)
    assert failed.value.reason == Reason.CONNECTION_ERROR and "'br'" in failed.value.detail
