"""A rendered page has no way into the service (issue #48). The consent refusal's channel belongs
to the refusal code alone: a consent wall whose own script abuses it (huge ``eval`` requests and
platform names, floods of Playwright's binding, a forged opt-in) cannot reach the service, stall
its event loop or grow its memory; the wall is still refused within the render deadline, and
the next page renders. Playwright's own binding function, which every page can call, passes
only small calls. Real loopback pages, Debian's Chromium."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from citation_verifier.demo.hostile import ConsentChannelAbuse
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.fetch.base import FetchedPage
from citation_verifier.fetch.browser import BrowserRenderer, browser_available
from citation_verifier.fetch.consent import consent_rules_available
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]

RENDER_TIMEOUT_S = 12.0
# Closing the page's browser context comes after the deadline, bounded (fetch/browser.py).
SLACK_S = 3.0
LOOP_LAG_S = 0.5
RSS_GROWTH_MB = 100.0
SPA = (
    "<!doctype html><html><head><title>App</title></head><body>"
    "<noscript>You need to enable JavaScript to run this app.</noscript><div id='root'></div>"
    "<script>setTimeout(function () { document.getElementById('root').innerHTML = "
    "'<article><p>' + 'Water boils at 100 degrees Celsius at sea level. '.repeat(8) + "
    "'</p></article>'; }, 100);</script></body></html>"
)


@pytest.fixture(autouse=True)
def _browser_and_rules() -> None:
    if not browser_available(Settings()) or not consent_rules_available():
        pytest.fail("Chromium, Playwright or autoconsent is missing: run `make browser`")


def _status_mb(field: str) -> float:
    found = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M)
    return int(found.group(1)) / 1024 if found else 0.0


class _Watch:
    """While a render runs: how much the service process grew at its peak (the kernel's
    high-water mark, reset first: a sampling thread would miss a peak while a large decode
    holds the GIL) and the event loop's worst lag (a task that asks to wake every 20 ms)."""

    def __init__(self) -> None:
        self.worst_lag = 0.0
        self.growth_mb = 0.0

    async def _tick(self) -> None:
        while True:
            asked = time.monotonic()
            await asyncio.sleep(0.02)
            self.worst_lag = max(self.worst_lag, time.monotonic() - asked - 0.02)

    async def during(self, work: asyncio.Future[FetchedPage]) -> tuple[FetchedPage, float]:
        """Await ``work``; its result and how long it took."""
        Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
        start = _status_mb("VmRSS")
        ticker = asyncio.create_task(self._tick())
        started = time.monotonic()
        try:
            return await work, time.monotonic() - started
        finally:
            ticker.cancel()
            self.growth_mb = _status_mb("VmHWM") - start


@pytest.fixture
def abuse(serve: Serve) -> Iterator[tuple[ConsentChannelAbuse, LoopbackSite]]:
    wall = ConsentChannelAbuse(eval_mb=30, name_mb=20)
    yield wall, serve({"/news/boiling": wall, "/found": wall.report, "/app": Page(SPA)})


def test_a_page_cannot_use_the_consent_channel_and_the_refusal_still_answers_in_time(
    abuse: tuple[ConsentChannelAbuse, LoopbackSite],
) -> None:
    wall, site = abuse
    settings = Settings(allow_private_urls=True, render_timeout_s=RENDER_TIMEOUT_S)
    watch = _Watch()

    async def run() -> tuple[FetchedPage, float, FetchedPage]:
        renderer = BrowserRenderer(settings)
        try:
            await renderer.start()  # the launch is not the page's time
            refused = renderer.render(site.url("/news/boiling"), refuse_consent=True)
            page, seconds = await watch.during(asyncio.ensure_future(refused))
            ordinary = await renderer.render(site.url("/app"))
            return page, seconds, ordinary
        finally:
            await renderer.aclose()

    page, seconds, ordinary = asyncio.run(run())

    assert seconds < RENDER_TIMEOUT_S + SLACK_S, f"answered in {seconds:.1f} s"
    assert watch.worst_lag < LOOP_LAG_S, f"the event loop stalled {watch.worst_lag:.2f} s"
    assert watch.growth_mb < RSS_GROWTH_MB, f"the service grew by {watch.growth_mb:.0f} MB"
    # The refusal still refused, and nothing else: the forged opt-in never reached it.
    assert set(wall.choices) == {"no"}
    assert b"Water boils at 100" in page.body
    # The page saw nothing of the channel: neither function, nor the binding's name (what it
    # may see is Playwright's binding for WebSocket routing, held to small calls).
    assert wall.found, "the page's script did not run"
    found = json.loads(wall.found[0])
    assert (found["send"], found["receive"]) == ("undefined", "undefined")
    assert all(name.startswith("__pw") for name in found["names"]), found["names"]
    # What reached the service from the page: a few small reports of the refusal.
    assert 0 < int(str(page.extra["consent_messages"])) <= 16
    assert int(str(page.extra["consent_chars"])) < 4096
    # Another user's JavaScript page renders right after, in the same browser.
    assert b"Water boils at 100 degrees Celsius" in ordinary.body


# Three 30 MB WebSocket URLs through Playwright's WebSocket routing (they reached the service,
# which grew by 180 MB), and three 30 MB calls of Playwright's binding function itself. The
# service answers a WebSocket it was told of by closing it, through __pwWebSocketDispatch: the
# page hooks that to learn which of its forged WebSockets reached the service.
FLOOD = """var dispatch = window.__pwWebSocketDispatch;
window.__pwWebSocketDispatch = function (request) {
  fetch('/answered?id=' + encodeURIComponent(request.id)).catch(function () {});
  if (dispatch) return dispatch(request);
};
var big = 'ws://127.0.0.1/' + 'y'.repeat(30 * 1024 * 1024);
for (var i = 0; i < 3; i++) {
  try { window.__pwWebSocketBinding({type: 'onCreate', id: 'x' + i, url: big, protocols: []}); }
  catch (e) {}
  try {
    window.__playwright__binding__(JSON.stringify({name: 'n' + i, seq: 1, serializedArgs: [big]}));
  } catch (e) {}
}"""
ARTICLE = (
    "<article><p>" + "Water boils at 100 degrees Celsius at sea level. " * 8 + "</p></article>"
)


def test_a_page_cannot_flood_the_service_through_playwrights_binding(serve: Serve) -> None:
    answered: list[str] = []

    def record(handler: BaseHTTPRequestHandler) -> None:
        answered.extend(parse_qs(urlsplit(handler.path).query).get("id", []))
        handler.send_response(204)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    page_html = f"<!doctype html><html><body>{ARTICLE}<script>{FLOOD}</script></body></html>"
    site = serve({"/flood": Page(page_html), "/answered": record})
    watch = _Watch()

    async def run() -> tuple[FetchedPage, float]:
        renderer = BrowserRenderer(Settings(allow_private_urls=True, render_timeout_s=10.0))
        try:
            await renderer.start()
            return await watch.during(asyncio.ensure_future(renderer.render(site.url("/flood"))))
        finally:
            await renderer.aclose()

    page, seconds = asyncio.run(run())

    assert answered == [], "the service answered WebSockets the page made up"
    assert b"Water boils at 100 degrees Celsius" in page.body
    assert watch.growth_mb < RSS_GROWTH_MB, f"the service grew by {watch.growth_mb:.0f} MB"
    assert watch.worst_lag < LOOP_LAG_S, f"the event loop stalled {watch.worst_lag:.2f} s"
    assert seconds < 10.0
