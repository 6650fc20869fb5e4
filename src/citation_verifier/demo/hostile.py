"""Hostile pages, as an attacker would serve them: for the tests and ``bench/hostile_pages.py``.

Each is small on the wire and expensive to read: a PDF whose pages share one large content
stream, a body that decompresses to far more than it weighs, an answer that used to parse in
quadratic time, a page firing slow requests from JavaScript.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import zstandard

from citation_verifier.demo.loopback import Page


def heavy_pdf(pages: int = 500, stream_bytes: int = 4 * 1024 * 1024) -> bytes:
    """A PDF of ``pages`` pages that all draw one Flate-compressed content stream of about
    ``stream_bytes`` bytes: a few tens of KB that make a text extractor parse
    ``pages * stream_bytes`` bytes of drawing commands."""
    line = b"BT /F1 9 Tf 72 720 Td (Water boils at 100 degrees Celsius.) Tj ET\n"
    content = zlib.compress(line * (stream_bytes // len(line)), 9)
    kids = b" ".join(f"{5 + i} 0 R".encode() for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count " + str(pages).encode() + b" >>",
        b"<< /Length "
        + str(len(content)).encode()
        + b" /Filter /FlateDecode >>\nstream\n"
        + content
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>"
    )
    objects.extend(page for _ in range(pages))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def zstd_bomb(decoded_bytes: int = 4 * 1024**3) -> bytes:
    """A zstd body that decodes to ``decoded_bytes`` zero bytes (4 GiB: about 130 KB)."""
    compressor = zstandard.ZstdCompressor(level=3)
    chunk = b"\0" * (16 * 1024 * 1024)
    writer = compressor.compressobj()
    parts = [writer.compress(chunk) for _ in range(decoded_bytes // len(chunk))]
    return b"".join([*parts, writer.flush()])


def gzip_bomb(decoded_bytes: int = 1024**3) -> bytes:
    """A gzip body that decodes to ``decoded_bytes`` zero bytes (1 GiB: about 1 MB)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    chunk = b"\0" * (16 * 1024 * 1024)
    parts = [compressor.compress(chunk) for _ in range(decoded_bytes // len(chunk))]
    return b"".join([*parts, compressor.flush()])


def quadratic_answer(chars: int = 20_000) -> str:
    """The answer that took the old parser quadratic time: ``[`` and a long unclosed text."""
    return "[" + "a" * (chars - 1)


def trickle(handler: BaseHTTPRequestHandler) -> None:
    """A route that answers one byte every 0.2 s for 30 s (a request that never finishes in
    time); stops when the client lets go."""
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Content-Length", "150")
        handler.end_headers()
        for _ in range(150):
            handler.wfile.write(b"x")
            handler.wfile.flush()
            time.sleep(0.2)
    except (BrokenPipeError, ConnectionResetError):
        pass


def slow_fetches_page(count: int = 30) -> str:
    """A JavaScript-only page whose script fires ``count`` requests to ``/trickle``."""
    script = (
        f"for (let i = 0; i < {count}; i++) fetch('/trickle?n=' + i).catch(() => null);"
        "document.getElementById('root').innerHTML = '<article><p>' + "
        "'Water boils at 100 degrees Celsius at sea level. '.repeat(8) + '</p></article>';"
    )
    return (
        "<!doctype html><html><head><title>App</title></head><body>"
        "<noscript>You need to enable JavaScript to run this app.</noscript>"
        f'<div id="root"></div><script>{script}</script></body></html>'
    )


def hostile_routes() -> dict[str, Page | Callable[[BaseHTTPRequestHandler], None]]:
    """Every hostile page of the attack pass, by path (bodies built once, a few seconds)."""
    water = "Water boils at 100 degrees Celsius at sea level."
    return {
        "/zstd-bomb": Page(zstd_bomb(), headers={"Content-Encoding": "zstd"}),
        "/gzip-bomb": Page(gzip_bomb(), headers={"Content-Encoding": "gzip"}),
        **{f"/heavy-{n}.pdf": Page(heavy_pdf(), content_type="application/pdf") for n in range(6)},
        "/tiny": Page(f"<html><body><article><p>{water}</p></article></body></html>"),
        "/big.txt": Page(
            "\n\n".join(f"Line {n}: rivers, hills and towns, number {n}." for n in range(100_000)),
            content_type="text/plain; charset=utf-8",
        ),
        "/slow-fetches": Page(slow_fetches_page()),
        "/trickle": trickle,
        "/bad-location": Page(
            status=302, content_type=None, headers={"Location": "http:127.0.0.1"}
        ),
        "/controls": Page(
            f"<html><body><article><p>{water}&#1;\x1b[2J</p></article></body></html>"
        ),
    }
