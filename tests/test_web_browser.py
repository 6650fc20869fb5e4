"""The web page in a real browser: Debian's Chromium driven by Playwright opens /, submits the
water example against loopback pages with the keyboard, and sees the labels and the highlighted
quote. Screenshots go to test-output/browser/."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, sync_playwright

from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.demo.site import demo_routes
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings

CHROMIUM = Path("/usr/bin/chromium")
OUTPUT = Path(__file__).resolve().parent.parent / "test-output" / "browser"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WATER_50 = "Water boils at 50 degrees Celsius at sea level."
WATER_100 = "Water boils at 100 degrees Celsius at sea level."

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Chromium is not installed: run `make browser`"
)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[BrowserContext]:
    """Headless Chromium with a fresh profile."""
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1000, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


def _submit_with_keyboard(page: Page, claim: str, urls: list[str]) -> None:
    page.get_by_label("Claim").fill(claim)
    page.keyboard.press("Tab")  # the URL box follows the claim in tab order
    page.keyboard.type("\n".join(urls))
    page.get_by_role("button", name="Verify").focus()
    page.keyboard.press("Enter")


def test_the_page_shows_labels_and_the_highlighted_quote_for_the_water_example(
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
    embedder: MiniLMEmbedder,
    browser: BrowserContext,
) -> None:
    site = serve(demo_routes())
    settings = Settings(allow_private_urls=True, fetch_timeout_s=5.0)
    urls = [site.url("/articles/water-boiling-point"), site.url("/old-report")]
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(service.url + "/")
        _submit_with_keyboard(page, WATER_50, urls)
        page.wait_for_selector("#results:not([hidden])", timeout=30_000)

        assert page.locator("#overall").inner_text() == "contradicted"
        cards = page.locator("#citations > li")
        assert cards.count() == 2
        first, second = cards.nth(0), cards.nth(1)
        assert first.locator(".badge").inner_text() == "contradicted"
        assert first.locator("mark.quote").inner_text() == WATER_100
        assert "Judge" in first.inner_text()  # which judge decided, on every judged citation
        passage = first.locator("blockquote.passage").inner_text()
        assert WATER_100 in passage and len(passage) > len(WATER_100)
        assert second.locator(".badge").inner_text() == "unreachable"
        assert "http_404" in second.inner_text() and "404" in second.inner_text()
        # Focus moves to the result so keyboard and screen-reader users land on it.
        assert page.evaluate("document.activeElement.id") == "results-heading"
        # Everything the page loaded came from the service itself (no CDN).
        assert requested and all(url.startswith(service.url) for url in requested)

        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUTPUT / "water-example.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(OUTPUT / "water-example-phone.png"), full_page=True)
        # A later error replaces these results: they answered another request.
        page.set_viewport_size({"width": 1000, "height": 900})
        page.get_by_label("Claim").fill(WATER_100)
        page.get_by_label("Cited URLs").fill("ftp://example.com/file")
        page.get_by_role("button", name="Verify").click()
        page.get_by_role("alert").wait_for(timeout=10_000)
        assert page.locator("#results").is_hidden()


def test_the_page_shows_the_service_error_message(
    embedder: MiniLMEmbedder, browser: BrowserContext
) -> None:
    settings = Settings(allow_private_urls=True)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        page.goto(service.url + "/")
        _submit_with_keyboard(page, WATER_50, ["ftp://example.com/file"])
        alert = page.get_by_role("alert")
        alert.wait_for(timeout=10_000)
        assert "not an http(s) URL" in alert.inner_text()
        assert page.locator("#results").is_hidden()
