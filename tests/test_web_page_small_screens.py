"""The web page and the HTML batch report on small and short screens, in a real browser: an
error after an empty submit is scrolled into view and focused, long URLs wrap between their
parts (after "/", "?", "&"), the report's URL column keeps a readable width."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, sync_playwright

from citation_verifier.batch.checkpoint import ResultRow
from citation_verifier.batch.html_report import html_report
from citation_verifier.batch.summary import summarize
from citation_verifier.models import Label, UrlVerdict
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from test_web_browser import CHROMIUM, CHROMIUM_ARGS, chromium

LONG_URL = (
    "https://www.example-research-institute.org/publications/2021/annual-report/"
    "climate-and-sea-level?section=coastal-flooding&format=full&lang=en"
)

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Chromium is not installed: run `make browser`"
)


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[BrowserContext]:
    """Headless Chromium the size of a small phone (375 × 560)."""
    with chromium(tmp_path / "profile", 375, 560) as context:
        yield context


@pytest.fixture
def service(embedder: MiniLMEmbedder) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_app(Settings(), embedder=embedder)) as server:
        yield server


IN_VIEW = """(node) => {
  const box = node.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0;
}"""


@pytest.mark.parametrize(("tab", "submit"), [(None, "#submit"), ("#tab-answer", "#answer-submit")])
def test_an_empty_submit_scrolls_to_its_error_and_focuses_it(
    phone: BrowserContext, service: BackgroundServer, tab: str | None, submit: str
) -> None:
    page = phone.new_page()
    page.goto(service.url + "/")
    if tab:
        page.click(tab)
    page.locator(submit).scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, 0)")  # as after reading the page from its top
    page.locator(submit).dispatch_event("click")
    alert = page.locator(".error:not([hidden])")
    alert.wait_for(timeout=10_000)
    assert alert.inner_text().startswith("Enter")
    assert page.evaluate("document.activeElement.classList.contains('error')")
    assert alert.evaluate(IN_VIEW)


def test_a_long_url_wraps_after_slashes_question_marks_and_ampersands(
    phone: BrowserContext, service: BackgroundServer
) -> None:
    verdict = {
        "url": LONG_URL,
        "label": "supported",
        "evidence_quote": None,
        "confidence": 0.9,
        "final_url": LONG_URL,
        "original_status": 200,
        "reason": "no_evidence",
        "evidence_context": None,
        "judge": "test",
    }
    crafted = {"claim": "Seas rise.", "overall": "supported", "citations": [verdict]}
    page = phone.new_page()
    page.route("**/verify", lambda route: route.fulfill(json=crafted))
    page.goto(service.url + "/")
    page.get_by_label("Claim", exact=True).fill("Seas rise.")
    page.locator("#urls").fill(LONG_URL)
    page.locator("#submit").dispatch_event("click")
    page.wait_for_selector("#results:not([hidden])", timeout=10_000)
    link = page.locator("#citations .card-title a")
    assert link.inner_text().replace("\n", "") == LONG_URL
    assert link.locator("wbr").count() == LONG_URL.count("/") + LONG_URL.count("?") + (
        LONG_URL.count("&")
    )
    # Each line of the wrapped link ends after a "/", "?", "&" or the hyphen of a name.
    lines = link.evaluate(LINE_ENDS)
    assert len(lines) > 1
    assert all(line[-1] in "/?&-" for line in lines[:-1]), lines  # never mid-word
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


# The text of each rendered line of a node: characters grouped by their box's top.
LINE_ENDS = """(node) => {
  const lines = [];
  let top = null;
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode;
    for (let i = 0; i < text.length; i++) {
      const range = document.createRange();
      range.setStart(text, i);
      range.setEnd(text, i + 1);
      const rect = range.getBoundingClientRect();
      if (top === null || Math.abs(rect.top - top) > 2) { lines.push(""); top = rect.top; }
      lines[lines.length - 1] += text.data[i];
    }
  }
  return lines;
}"""


def test_the_html_report_gives_the_url_column_a_readable_width(tmp_path: Path) -> None:
    long_text = "A long claim about the sea level and what the report says of it. " * 6
    row = ResultRow(
        id="r1",
        index=0,
        claim=long_text,
        verdict=UrlVerdict(
            url=LONG_URL, label=Label.SUPPORTED, confidence=0.9, evidence_quote=long_text
        ),
    )
    report = tmp_path / "report.html"
    report.write_text(html_report([row], summarize([row], invalid_lines=0)), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            page.goto(report.as_uri())
            cell = page.locator("td.url").first
            assert cell.evaluate("(td) => td.getBoundingClientRect().width") >= 200
            lines = cell.evaluate(LINE_ENDS)
            assert all(line[-1] in "/?&-" for line in lines[:-1]), lines  # never mid-word
        finally:
            browser.close()
