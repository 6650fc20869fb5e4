"""The web page and the HTML batch report on small and short screens, in a real browser: a
field left empty (or a URL list that is not http(s) URLs) is marked invalid, with its message
right below it, and takes the focus; the URL box keeps each URL on its own line; long URLs in
the results wrap between their parts (after "/", "?", "&"); the report's URL column keeps a
readable width."""

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


# Where a field's message sits and how it is tied to the field: the first id its
# aria-describedby names is the message's, and the message is right below the field.
FIELD_PROBLEM = """(field) => {
  const note = document.getElementById(field.getAttribute("aria-describedby").split(" ")[0]);
  const box = field.getBoundingClientRect();
  const under = note.getBoundingClientRect();
  return {
    text: note.hidden ? null : note.textContent,
    gap: under.top - box.bottom,
    border: getComputedStyle(field).borderTopColor,
    focused: document.activeElement === field,
  };
}"""
CONTRADICTED_RED = "rgb(164, 14, 38)"  # --contradicted: the page's colour for a problem


@pytest.mark.parametrize(
    ("tab", "submit", "field", "message"),
    [
        (None, "#submit", "#claim", "Enter the claim."),
        ("#tab-answer", "#answer-submit", "#answer", "Enter the answer."),
    ],
)
def test_an_empty_submit_marks_the_field_with_its_message_beside_it_and_focuses_it(
    phone: BrowserContext,
    service: BackgroundServer,
    tab: str | None,
    submit: str,
    field: str,
    message: str,
) -> None:
    page = phone.new_page()
    page.goto(service.url + "/")
    if tab:
        page.click(tab)
    page.locator(submit).scroll_into_view_if_needed()  # as after reading down to the button
    page.locator(submit).dispatch_event("click")
    box = page.locator(field)
    assert box.get_attribute("aria-invalid") == "true"
    seen = box.evaluate(FIELD_PROBLEM)
    assert seen["text"] == message and seen["focused"], seen
    assert 0 <= seen["gap"] < 16, seen  # right below the field, not under the button
    assert seen["border"] == CONTRADICTED_RED, seen
    assert box.evaluate(IN_VIEW)
    assert page.locator(".error:not([hidden])").count() == 0  # no second message elsewhere
    # Typing into the field takes the mark away.
    page.keyboard.type("Water boils.")
    assert box.get_attribute("aria-invalid") is None
    assert page.locator(".field-error:not([hidden])").count() == 0


def test_an_empty_or_not_http_url_list_marks_the_url_box_and_sends_nothing(
    phone: BrowserContext, service: BackgroundServer
) -> None:
    page = phone.new_page()
    sent: list[str] = []
    page.on(
        "request", lambda request: sent.append(request.url) if "/verify" in request.url else None
    )
    page.goto(service.url + "/")
    page.get_by_label("Claim", exact=True).fill("Seas rise.")
    urls = page.locator("#urls")
    for typed, message in [
        ("", "Enter at least one URL."),
        (
            "https://a.example/sea\nexample.com/sea",
            "“example.com/sea” is not an http(s) URL. Enter one URL per line, each starting "
            "with http:// or https://.",
        ),
    ]:
        urls.fill(typed)
        page.locator("#submit").dispatch_event("click")
        assert urls.get_attribute("aria-invalid") == "true"
        seen = urls.evaluate(FIELD_PROBLEM)
        assert seen["text"] == message and seen["focused"], seen
        assert 0 <= seen["gap"] < 16 and seen["border"] == CONTRADICTED_RED, seen
        # The claim, fine, is not marked; its help is still read with it.
        assert page.locator("#claim").get_attribute("aria-invalid") is None
        assert page.locator("#claim").get_attribute("aria-describedby") == "claim-help"
    assert sent == []
    assert urls.get_attribute("aria-describedby") == "urls-problem urls-help"


def test_the_url_box_keeps_each_url_on_its_own_line_at_375_px(
    phone: BrowserContext, service: BackgroundServer
) -> None:
    page = phone.new_page()
    page.goto(service.url + "/")
    urls = page.locator("#urls")
    short = ["https://a.example/"] * 6
    urls.fill("\n".join(short))
    height_of_six_lines = urls.evaluate("(box) => box.scrollHeight")
    long = [LONG_URL, "https://en.wikipedia.org/wiki/Boiling_point_of_water_at_altitude", *short]
    urls.fill("\n".join(long[:6]))
    # A URL is never broken over two lines (it broke inside a word, or at a hyphen, which
    # reads as another URL): the box scrolls sideways instead, the page does not.
    assert urls.evaluate("(box) => box.scrollHeight") == height_of_six_lines
    assert urls.evaluate("(box) => box.scrollWidth > box.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator("#claim").focus()  # leaving the box shows each URL's start again
    assert urls.evaluate("(box) => box.scrollLeft") == 0


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
