"""Reading a response body within a size cap that holds for the decoded bytes too.

httpx decodes ``Content-Encoding`` a whole network read at a time, so a 65 KB zstd or gzip
body can become gigabytes before any cap counts them (a decompression bomb). Here the raw
bytes are read within the cap, and each content coding is undone by a decoder that is asked
for at most the cap plus one byte: the cap is enforced while decoding, never after.
"""

from __future__ import annotations

import io
import zlib

import httpx

from citation_verifier.fetch.base import FetchFailed
from citation_verifier.models import Reason

ACCEPT_ENCODING = "gzip, deflate, zstd"
"""The codings we can undo within the cap; nothing else is asked for."""
# RFC 9659: HTTP zstd decoders need not support windows above 8 MB; a larger one is a memory
# bomb of its own.
_ZSTD_MAX_WINDOW = 8 * 1024 * 1024
_READ = 64 * 1024


def too_large(limit: int) -> FetchFailed:
    """The failure of a body over ``limit`` bytes (raw or decoded)."""
    return FetchFailed(Reason.TOO_LARGE, f"body exceeds {limit} bytes")


def _inflate(data: bytes, wbits: int, limit: int) -> bytes:
    decoder = zlib.decompressobj(wbits)
    out: list[bytes] = []
    size = 0
    while data:
        chunk = decoder.decompress(data, limit + 1 - size)
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        out.append(chunk)
        if decoder.eof:
            break
        data = decoder.unconsumed_tail
    return b"".join(out)


def _deflate(data: bytes, limit: int) -> bytes:
    # "deflate" is zlib-wrapped by the standard and raw in some servers: try both, as httpx does.
    try:
        return _inflate(data, zlib.MAX_WBITS, limit)
    except zlib.error:
        return _inflate(data, -zlib.MAX_WBITS, limit)


def _zstd(data: bytes, limit: int) -> bytes:
    import zstandard

    decoder = zstandard.ZstdDecompressor(max_window_size=_ZSTD_MAX_WINDOW)
    out: list[bytes] = []
    size = 0
    try:
        with decoder.stream_reader(io.BytesIO(data), read_across_frames=True) as reader:
            while chunk := reader.read(min(_READ, limit + 1 - size)):
                size += len(chunk)
                if size > limit:
                    raise too_large(limit)
                out.append(chunk)
    except zstandard.ZstdError as exc:
        raise _corrupt("zstd", exc) from None
    return b"".join(out)


def _corrupt(coding: str, exc: Exception) -> FetchFailed:
    return FetchFailed(Reason.CONNECTION_ERROR, f"the {coding} body cannot be decoded: {exc}")


def decode_capped(body: bytes, content_encoding: str | None, limit: int) -> bytes:
    """``body`` with its content codings undone (last applied, first undone), never more than
    ``limit`` bytes at any step; FetchFailed ``too_large`` beyond it, ``connection_error`` for
    a coding that is corrupt or that we did not ask for."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    for coding in reversed(codings):
        try:
            if coding in ("gzip", "x-gzip"):
                body = _inflate(body, zlib.MAX_WBITS | 16, limit)
            elif coding == "deflate":
                body = _deflate(body, limit)
            elif coding == "zstd":
                body = _zstd(body, limit)
            elif coding != "identity":
                raise FetchFailed(
                    Reason.CONNECTION_ERROR, f"content encoding {coding!r} was not asked for"
                )
        except zlib.error as exc:
            raise _corrupt(coding, exc) from None
    return body


async def read_capped(response: httpx.Response, limit: int) -> bytes:
    """The decoded body of a streamed ``response``, at most ``limit`` bytes raw and decoded."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise FetchFailed(Reason.TOO_LARGE, f"body of {declared} bytes exceeds {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_raw():  # as sent: httpx decodes nothing here
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return decode_capped(b"".join(chunks), response.headers.get("content-encoding"), limit)
