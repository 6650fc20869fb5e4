"""A rendered page's own requests are bounded: in time (FETCH_TIMEOUT_S for a whole exchange,
however slowly it trickles), in number (RENDER_MAX_REQUESTS), and cancelled with their page,
so no proxy connection outlives the page (30 slow fetch() calls each used to stay open)."""

from __future__ import annotations

import gzip
import threading
import time
import tracemalloc
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.fetch.base import FetchFailed
from citation_verifier.fetch.browser import BrowserRenderer, browser_available
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
ARTICLE = "<article><p>Water boils at 100 degrees Celsius at sea level.</p></article>"


class Trickle:
    """Answers with one byte every 0.2 s for 30 s; counts the answers still being sent."""

    def __init__(self) -> None:
        self.open = 0
        self._lock = threading.Lock()

    def __call__(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.open += 1
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
            pass  # the renderer let go: what the tests want
        finally:
            with self._lock:
                self.open -= 1


def _fetching(path: str, count: int) -> Page:
    script = f"for (let i = 0; i < {count}; i++) fetch('{path}?n=' + i).catch(() => null);"
    return Page(f"<!doctype html><html><body>{ARTICLE}<script>{script}</script></body></html>")


@pytest.fixture(autouse=True)
def _chromium_installed() -> None:
    if not browser_available(Settings()):
        pytest.fail("Chromium or Playwright is missing: run `make browser install-test`")


def _settings(**overrides: object) -> Settings:
    values: dict[str, object] = {
        "allow_private_urls": True,
        "render_idle_timeout_s": 1.0,
        "render_timeout_s": 15.0,
        "fetch_timeout_s": 10.0,
        **overrides,
    }
    return Settings(**values)  # type: ignore[arg-type]


async def test_slow_subrequests_are_cancelled_with_their_page(serve: Serve) -> None:
    trickle = Trickle()
    site = serve({"/page": _fetching("/trickle", 30), "/trickle": trickle})
    renderer = BrowserRenderer(_settings())
    try:
        page = await renderer.render(site.url("/page"))
        assert b"Water boils" in page.body
        deadline = time.monotonic() + 3
        while trickle.open and time.monotonic() < deadline:
            time.sleep(0.1)
        assert trickle.open == 0, f"{trickle.open} answers still being read after the page"
    finally:
        await renderer.aclose()


async def test_a_page_makes_at_most_render_max_requests(serve: Serve) -> None:
    site = serve(
        {"/page": _fetching("/count", 40), "/count": Page("ok", content_type="text/plain")}
    )
    renderer = BrowserRenderer(_settings(render_max_requests=5))
    try:
        await renderer.render(site.url("/page"))
    finally:
        await renderer.aclose()
    # Five requests in all: the document, then at most four of the forty fetch() calls (fewer
    # if the browser asked for something else, a favicon, first).
    assert site.hits["/page"] == 1 and 1 <= site.hits.get("/count", 0) <= 4


async def test_a_trickling_document_ends_at_fetch_timeout_not_the_render_deadline(
    serve: Serve,
) -> None:
    site = serve({"/slow": Trickle()})
    renderer = BrowserRenderer(_settings(fetch_timeout_s=2.0))
    started = time.monotonic()
    try:
        with pytest.raises(FetchFailed):
            await renderer.render(site.url("/slow"))
    finally:
        await renderer.aclose()
    assert time.monotonic() - started < 8  # the render deadline is 15 s


async def test_a_bomb_a_page_fetches_is_refused_while_decoding(serve: Serve) -> None:
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)
    site = serve(
        {
            "/page": _fetching("/bomb", 1),
            "/bomb": Page(bomb, content_type="text/plain", headers={"Content-Encoding": "gzip"}),
        }
    )
    renderer = BrowserRenderer(_settings(max_body_bytes=1024 * 1024))
    tracemalloc.start()
    try:
        page = await renderer.render(site.url("/page"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        await renderer.aclose()
    assert site.hits["/bomb"] == 1 and b"Water boils" in page.body
    assert peak < 16 * 1024 * 1024, f"{peak / 2**20:.0f} MiB held while rendering"
