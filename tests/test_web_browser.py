"""The web page in a real browser: Debian's Chromium driven by Playwright opens /, submits the
water example against loopback pages with the keyboard, and sees the labels and the highlighted
quote; in the "Whole answer" mode it checks an LLM answer and sees each statement's label and
markers; with a loopback Wayback Machine it sees a dead page judged on its archived copy and a
page that changed since it was cited. Screenshots go to test-output/browser/ (docs/img/ holds
copies: web-page.png is water-example.png, answer-mode.png is answer-mode.png,
changed-since-cited.png is changed-since-cited.png)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, sync_playwright

from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.demo.loopback import Page as SitePage
from citation_verifier.demo.site import BOILING_HTML, demo_routes
from citation_verifier.demo.walls import CLAIM as WALL_CLAIM
from citation_verifier.demo.walls import wall_routes
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from test_languages import RUSSIAN_ARTICLE

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


@contextmanager
def chromium(profile: Path, width: int, height: int) -> Iterator[BrowserContext]:
    """Headless Debian Chromium with a fresh profile and a ``width`` × ``height`` viewport."""
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": width, "height": height},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[BrowserContext]:
    """Headless Chromium with a fresh profile."""
    with chromium(tmp_path / "profile", 1000, 900) as context:
        yield context


def _submit_with_keyboard(page: Page, claim: str, urls: list[str]) -> None:
    # exact: the "One claim" tab panel is labelled by its tab, and the label match is by substring
    page.get_by_label("Claim", exact=True).fill(claim)
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
        assert "Language\nEnglish" in first.inner_text()  # what the judge had to read
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
        page.get_by_label("Claim", exact=True).fill(WATER_100)
        page.get_by_label("Cited URLs").fill("ftp://example.com/file")
        page.get_by_role("button", name="Verify").click()
        page.locator("#urls-problem").wait_for(timeout=10_000)
        assert page.locator("#results").is_hidden()


def test_the_page_shows_the_service_error_message(
    embedder: MiniLMEmbedder, browser: BrowserContext
) -> None:
    # A limit only the service knows (the page checks what it can: an http(s) URL each line).
    settings = Settings(allow_private_urls=True, service_max_urls=1)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        page.goto(service.url + "/")
        _submit_with_keyboard(page, WATER_50, ["https://a.example/1", "https://a.example/2"])
        alert = page.get_by_role("alert")
        alert.wait_for(timeout=10_000)
        assert "at most 1 URLs" in alert.inner_text()
        assert page.locator("#results").is_hidden()


# Set before the page's own scripts run (CDP, so the page's CSP does not apply to it).
RECORD_CSP_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


def _answer(site: LoopbackSite) -> str:
    """An LLM answer citing the demo pages: two supported statements, an uncited one, one its page
    does not settle, a marker that matches no source, and a contradicted one that also cites a
    dead link."""
    return (
        f"{WATER_100[:-1]} [1]. The Eiffel Tower is about 330 metres tall [2]. "
        "Sourdough is a bread. The Eiffel Tower is repainted every seven years [2]. "
        "The Moon is made of green cheese [4]. "
        f"{WATER_50[:-1]} [1][3].\n\n"
        "Sources:\n"
        f"[1] {site.url('/articles/water-boiling-point')}\n"
        f"[2] {site.url('/reports/eiffel-tower')}\n"
        f"[3] {site.url('/old-report')}\n"
    )


def _watch(page: Page) -> list[str]:
    """Console errors and uncaught exceptions of ``page``, as they happen."""
    problems: list[str] = []
    page.on(
        "console",
        lambda m: problems.append(f"{m.text} {m.location}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.add_init_script(RECORD_CSP_VIOLATIONS)
    return problems


def _tab_until(page: Page, selector: str, limit: int = 30) -> None:
    """Press Tab until the focused element matches ``selector`` (fails after ``limit``)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_the_answer_mode_shows_each_statement_with_its_label_and_marks(
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
    embedder: MiniLMEmbedder,
    browser: BrowserContext,
) -> None:
    site = serve(demo_routes())
    settings = Settings(allow_private_urls=True, fetch_timeout_s=5.0)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        problems = _watch(page)
        response = page.goto(service.url + "/")
        assert (
            response is not None
            and "script-src 'self'" in response.headers["content-security-policy"]
        )

        # The mode switch is a tablist: arrows move between the tabs and select them.
        claim_tab = page.get_by_role("tab", name="One claim")
        answer_tab = page.get_by_role("tab", name="Whole answer")
        assert claim_tab.get_attribute("aria-selected") == "true"
        assert page.get_by_role("tabpanel", name="Whole answer").count() == 0  # hidden
        claim_tab.focus()
        page.keyboard.press("ArrowRight")
        assert answer_tab.get_attribute("aria-selected") == "true"
        assert claim_tab.get_attribute("aria-selected") == "false"
        assert page.evaluate("document.activeElement.id") == "tab-answer"
        assert [claim_tab.get_attribute("tabindex"), answer_tab.get_attribute("tabindex")] == [
            "-1",
            "0",
        ]
        assert page.locator("#panel-claim").is_hidden()
        panel = page.get_by_role("tabpanel", name="Whole answer")
        assert panel.is_visible() and panel.get_attribute("aria-labelledby") == "tab-answer"
        page.keyboard.press("ArrowRight")  # wraps around to the first tab, and back
        assert page.locator("#panel-answer").is_hidden()
        page.keyboard.press("End")
        assert panel.is_visible()

        # Tab leaves the tablist for the panel's first field: paste the answer there.
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "answer"
        page.keyboard.insert_text(_answer(site))
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "answer-citations"
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "answer-cited-at"
        # Past the date's own fields (month, day, year, picker) the disabled comparison
        # checkbox is skipped: the next stop is the button.
        _tab_until(page, "#answer-submit, #answer-compare-archive", limit=6)
        assert page.evaluate("document.activeElement.id") == "answer-submit"
        page.keyboard.press("Enter")
        page.wait_for_selector("#answer-results:not([hidden])", timeout=60_000)
        # Focus moves to the result so keyboard and screen-reader users land on it.
        assert page.evaluate("document.activeElement.id") == "answer-results-heading"

        summary = page.locator("#answer-summary").inner_text()
        assert "Citation precision: 40%" in summary and "2/5 citations supported" in summary
        counts = page.locator("#answer-counts > li").all_inner_texts()
        assert "Citation recall: " in summary and "Precision (Liu et al.): " in summary
        assert counts == [
            "2 supported",
            "0 partly supported",
            "1 contradicted",
            "1 not found",
            "0 unreachable",
            "1 uncited",
            "1 unresolved",
        ]

        statements = page.locator("#statements > li")
        assert statements.count() == 6
        labels = [
            statements.nth(i).locator(".statement-head .badge").inner_text() for i in range(6)
        ]
        assert labels == [
            "supported",
            "supported",
            "uncited",
            "not found",
            "unresolved",
            "contradicted",
        ]
        texts = [statements.nth(i).locator(".statement-text").inner_text() for i in range(6)]
        assert texts[0].startswith(WATER_100[:-1]) and texts[2] == "Sourdough is a bread."
        assert texts[5].startswith(WATER_50[:-1])
        assert "cites no source" in statements.nth(2).inner_text()
        assert statements.nth(2).locator("a.marker").count() == 0

        # Each marker is a mark coloured by its own verdict, named with it in words.
        first, unsettled = statements.nth(0), statements.nth(3)
        unresolved, last = statements.nth(4), statements.nth(5)
        assert first.get_by_role("link", name="[1] supported").count() == 1
        assert first.locator("a.marker-supported mark").count() == 1
        assert unsettled.get_by_role("link", name="[2] not found").count() == 1
        assert unresolved.get_by_role("link", name="[4] unresolved").count() == 1
        assert "[4] matches no source in the answer" in unresolved.locator(".problems").inner_text()
        assert last.get_by_role("link", name="[1] contradicted").count() == 1
        assert last.get_by_role("link", name="[3] unreachable").count() == 1
        assert last.locator("summary").inner_text() == (
            "2 citations: 1 contradicted, 1 unreachable"
        )

        # Tab order: the markers, then the statement's citations (in a <details>), whose
        # cards hold the page's link and the evidence in its passage.
        _tab_until(page, "#statement-1 a.marker")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        link = page.locator(":focus")
        assert link.get_attribute("href") == site.url("/articles/water-boiling-point")
        assert link.get_attribute("target") == "_blank"
        assert {"noopener", "noreferrer"} <= set((link.get_attribute("rel") or "").split())
        card = page.locator("#statement-1-c1")
        assert card.locator(".badge").inner_text() == "supported"
        assert card.locator("mark.quote").inner_text() == WATER_100
        assert WATER_100 in card.locator("blockquote.passage").inner_text()

        # A marker leads to what it cites: Enter on [1] of the last statement opens its
        # citations and focuses the contradicting page's card.
        _tab_until(page, "#statement-6 a.marker")
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "statement-6-c1"
        contradicting = page.locator("#statement-6-c1")
        assert contradicting.is_visible()
        assert contradicting.locator("mark.quote").inner_text() == WATER_100
        assert page.locator("#statement-6-c2").locator(".badge").inner_text() == "unreachable"

        assert problems == []
        assert page.evaluate("window.__cspViolations") == []
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.evaluate("document.activeElement.blur()")  # no focus ring in the docs' picture
        page.screenshot(path=str(OUTPUT / "answer-mode.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(OUTPUT / "answer-mode-phone.png"), full_page=True)

        # The claim mode kept its own state, and the answer's result stays when switching back.
        page.set_viewport_size({"width": 1000, "height": 900})
        claim_tab.click()
        assert page.get_by_label("Claim", exact=True).is_visible()
        assert page.locator("#answer-results").is_hidden()
        answer_tab.click()
        assert page.locator("#answer-results").is_visible()


def test_the_answer_mode_shows_the_service_error_message(
    embedder: MiniLMEmbedder, browser: BrowserContext
) -> None:
    settings = Settings(allow_private_urls=True, service_max_answer_chars=40)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        problems = _watch(page)
        page.goto(service.url + "/")
        page.get_by_role("tab", name="Whole answer").click()
        submit = page.get_by_role("button", name="Check answer")
        submit.click()  # nothing entered: the page says so and does not call the service
        # The field takes the focus, marked, with the message beside it (read out with it).
        assert page.evaluate("document.activeElement.id") == "answer"
        assert page.locator("#answer").get_attribute("aria-invalid") == "true"
        assert page.locator("#answer-problem").inner_text() == "Enter the answer."
        alert = page.get_by_role("alert")

        page.get_by_label("Answer", exact=True).fill(WATER_100 * 2 + " [1]")
        page.get_by_label("Citations array (optional)").fill("https://example.com/water")
        submit.click()
        page.get_by_text("at most 40 characters").wait_for(timeout=10_000)
        assert "invalid request: answer" in alert.inner_text()
        assert page.locator("#answer-results").is_hidden()
        assert page.locator("#answer-status").inner_text() == ""
        assert submit.is_enabled()
        # The claim mode's status and error are its own.
        page.get_by_role("tab", name="One claim").click()
        assert page.get_by_role("alert").count() == 0
        # (a failed request is logged by the browser itself: "status of 422")
        assert all("422" in problem for problem in problems)


def _verdict(url: str, label: str, quote: str | None = None) -> dict[str, object]:
    return {
        "url": url,
        "label": label,
        "evidence_quote": quote,
        "confidence": 0.9,
        "final_url": url,
        "original_status": 200,
        "reason": None if quote else "no_evidence",
        "evidence_context": None,
        "judge": "test",
    }


def test_the_answer_mode_marks_each_marker_with_its_own_source_and_never_parses_html(
    embedder: MiniLMEmbedder, browser: BrowserContext
) -> None:
    """A crafted /check-answer response: each marker is shown with the verdicts of the URLs
    the response says it resolved to (and its problems), and answer text is only ever text."""
    water, survey = "https://a.example/water", "https://b.example/survey"
    crafted = {
        "statements": [
            {
                "text": "Both pages say so [1, 2].",
                "claim": "Both pages say so.",
                "overall": "supported",
                "citations": [
                    _verdict(water, "supported", "say so"),
                    _verdict(survey, "not_found"),
                ],
                "markers": [{"text": "[1, 2]", "urls": [water, survey], "problems": []}],
                "problems": [],
            },
            {
                "text": f"The [survey]({survey}) disagrees [1].",
                "claim": "The survey disagrees.",
                "overall": "contradicted",
                "citations": [
                    _verdict(survey, "supported", "x"),
                    _verdict(water, "contradicted", "y"),
                ],
                "markers": [
                    {"text": f"[survey]({survey})", "urls": [survey], "problems": []},
                    {"text": "[1]", "urls": [water], "problems": []},
                ],
                "problems": [],
            },
            {
                "text": 'Markup <img src=x onerror="window.__xss=1"> stays text [1, 9].',
                "claim": "Markup stays text.",
                "overall": "supported",
                "citations": [_verdict(water, "supported", "Markup")],
                "markers": [
                    {
                        "text": "[1, 9]",
                        "urls": [water],
                        "problems": ["[9] matches no source in the answer"],
                    }
                ],
                "problems": ["[9] matches no source in the answer"],
            },
        ],
        "citation_precision": None,
        "citations": 0,
        "supported_citations": 0,
        "supported": 2,
        "contradicted": 1,
        "not_found": 0,
        "unreachable": 0,
        "uncited": 0,
        "unresolved": 0,
        "unique_urls": 2,
        "credits": 0.0,
    }
    settings = Settings(allow_private_urls=True)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        problems = _watch(page)
        page.route("**/check-answer", lambda route: route.fulfill(json=crafted))
        page.goto(service.url + "/")
        page.get_by_role("tab", name="Whole answer").click()
        page.get_by_label("Answer", exact=True).fill("anything: the response is crafted")
        page.get_by_role("button", name="Check answer").click()
        page.wait_for_selector("#answer-results:not([hidden])", timeout=10_000)

        assert (
            page.locator("#answer-summary")
            .inner_text()
            .startswith("Citation precision: none (no citation could be checked)")
        )
        first, second, third = (page.locator(f"#statement-{n}") for n in (1, 2, 3))
        mixed = first.get_by_role("link", name="[1, 2] supported, not found", exact=True)
        assert mixed.get_attribute("class") == "marker marker-mixed"
        assert second.get_by_role("link", name=f"[survey]({survey}) supported").count() == 1
        assert second.get_by_role("link", name="[1] contradicted", exact=True).count() == 1
        assert third.get_by_role("link", name="[1, 9] supported, unresolved").count() == 1
        assert "<img src=x" in third.locator(".statement-text").inner_text()
        assert page.locator("#statements img").count() == 0
        assert page.evaluate("window.__xss") is None
        assert problems == []


# --- archived copies: a loopback Wayback Machine ---------------------------------------------

CAPTURED = "20210215120000"
"""When the fake archive captured both pages (15 Feb 2021, before they were cited)."""
CITED_ON = "2021-03-01"
NINETY_HTML = BOILING_HTML.replace("100 degrees", "90 degrees")


@pytest.fixture
def archived(
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
) -> Iterator[tuple[LoopbackSite, FakeArchive]]:
    """A site with a dead page (404) and a page that now says 90 degrees, and an archive whose
    captures of both, from before they were cited, say 100."""
    site = serve(
        {
            "/gone": SitePage("<html><body><h1>Not Found</h1></body></html>", status=404),
            "/now": SitePage(NINETY_HTML),
        }
    )
    with FakeArchive() as archive:
        archive.add(site.url("/gone"), CAPTURED, BOILING_HTML)
        archive.add(site.url("/now"), CAPTURED, BOILING_HTML)
        yield site, archive


def _archive_settings(archive: FakeArchive) -> Settings:
    return Settings(
        allow_private_urls=True,
        fetch_timeout_s=5.0,
        archive_url=archive.base_url,
        archive_fallback="dead",
        archive_private_urls=True,
    )


def _assert_capture_link(link: Locator, archive: FakeArchive, original: str) -> None:
    href = link.get_attribute("href") or ""
    assert href.startswith(archive.base_url + "/web/" + CAPTURED) and href.endswith(original)
    assert link.get_attribute("target") == "_blank"
    assert {"noopener", "noreferrer"} <= set((link.get_attribute("rel") or "").split())
    assert link.locator("time").get_attribute("datetime") == "2021-02-15T12:00:00.000Z"


def test_the_page_shows_a_dead_page_judged_on_its_archived_copy_and_a_changed_page(
    archived: tuple[LoopbackSite, FakeArchive],
    embedder: MiniLMEmbedder,
    browser: BrowserContext,
) -> None:
    site, archive = archived
    with BackgroundServer(create_app(_archive_settings(archive), embedder=embedder)) as service:
        page = browser.new_page()
        problems = _watch(page)
        page.goto(service.url + "/")
        panel = page.locator("#panel-claim")
        cited_on = panel.get_by_label("Cited on", exact=True)
        compare = panel.get_by_label("Compare with the archived copy from that date")
        hint = panel.locator("#compare-archive-help")
        # No date, no comparison: the checkbox is disabled and its hint says why.
        assert cited_on.get_attribute("type") == "date" and cited_on.input_value() == ""
        assert compare.is_disabled() and "“Cited on” date first" in hint.inner_text()
        assert compare.get_attribute("aria-describedby") == "compare-archive-help"

        # (a) The dead page is judged on its capture; the card says so, with the capture's link.
        _submit_with_keyboard(page, WATER_100, [site.url("/gone")])
        page.wait_for_selector("#results:not([hidden])", timeout=30_000)
        assert page.locator("#overall").inner_text() == "supported"
        card = page.locator("#citations > li").nth(0)
        assert card.locator(".facts .badge").inner_text() == "supported"
        note = card.locator(".note-archived")
        # (its icon is hidden from screen readers: the words carry it)
        assert note.inner_text().endswith(
            "Live page: http_404 — judged on the archived copy of 15 Feb 2021"
        )
        _assert_capture_link(
            note.get_by_role("link", name="archived copy of 15 Feb 2021"),
            archive,
            site.url("/gone"),
        )
        assert card.locator("mark.quote").inner_text() == WATER_100
        assert card.locator(".changed, .unchanged, .archive-lookup").count() == 0

        # (b) Cited on 1 March 2021 and compared: the live page now says otherwise.
        page.get_by_label("Cited URLs").fill(site.url("/now"))
        cited_on.fill(CITED_ON)
        assert compare.is_enabled() and "changed since it was cited" in hint.inner_text()
        compare.check()
        with page.expect_request("**/verify") as sent:
            page.get_by_role("button", name="Verify").click()
        assert sent.value.post_data_json == {
            "claim": WATER_100,
            "urls": [site.url("/now")],
            "cited_at": CITED_ON,
            "compare_archive": True,
        }
        changed = page.locator("#citations > li .changed")
        changed.wait_for(timeout=30_000)
        card = page.locator("#citations > li").nth(0)
        assert page.locator("#overall").inner_text() == "contradicted"
        assert card.locator(".facts .badge").inner_text() == "contradicted"
        assert card.locator(".note-archived").count() == 0  # the live page was judged
        assert changed.get_by_role("heading", name="Changed since cited").count() == 1
        assert "no longer says what it said when it was cited" in changed.inner_text()
        # The two verdicts side by side, each named in words.
        sides = changed.locator("dl.compare > div")
        assert sides.locator("dt").all_text_contents() == ["Now", "When cited"]
        now, then = sides.nth(0), sides.nth(1)
        assert now.locator(".badge").inner_text() == "contradicted"
        assert "90 degrees" in now.locator("blockquote").inner_text()
        assert then.locator(".badge").inner_text() == "supported"
        assert then.locator("blockquote").inner_text() == WATER_100
        _assert_capture_link(
            then.get_by_role("link", name="archived copy of 15 Feb 2021"),
            archive,
            site.url("/now"),
        )

        assert problems == []
        assert page.evaluate("window.__cspViolations") == []
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.evaluate("document.activeElement.blur()")  # no focus ring in the docs' picture
        page.screenshot(path=str(OUTPUT / "changed-since-cited.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(OUTPUT / "changed-since-cited-phone.png"), full_page=True)

        # Clearing the date disables (and unchecks) the comparison again.
        cited_on.fill("")
        assert compare.is_disabled() and not compare.is_checked()


def test_the_answer_mode_sends_the_citation_date_and_shows_archived_copies(
    archived: tuple[LoopbackSite, FakeArchive],
    embedder: MiniLMEmbedder,
    browser: BrowserContext,
) -> None:
    site, archive = archived
    answer = (
        f"{WATER_100[:-1]} [1][2].\n\nSources:\n[1] {site.url('/gone')}\n[2] {site.url('/now')}\n"
    )
    with BackgroundServer(create_app(_archive_settings(archive), embedder=embedder)) as service:
        page = browser.new_page()
        problems = _watch(page)
        page.goto(service.url + "/")
        page.get_by_role("tab", name="Whole answer").click()
        panel = page.locator("#panel-answer")
        compare = panel.get_by_label("Compare with the archived copy from that date")
        assert compare.is_disabled()
        page.get_by_label("Answer", exact=True).fill(answer)
        panel.get_by_label("Cited on", exact=True).fill(CITED_ON)
        compare.check()
        with page.expect_request("**/check-answer") as sent:
            page.get_by_role("button", name="Check answer").click()
        assert sent.value.post_data_json == {
            "answer": answer,
            "cited_at": CITED_ON,
            "compare_archive": True,
        }
        page.wait_for_selector("#answer-results:not([hidden])", timeout=60_000)

        statement = page.locator("#statement-1")
        assert statement.locator("summary").inner_text() == (
            "2 citations: 1 supported, 1 contradicted · 1 judged on an archived copy"
            " · 1 changed since cited"
        )
        statement.locator("summary").click()
        gone, now = page.locator("#statement-1-c1"), page.locator("#statement-1-c2")
        assert gone.locator(".facts .badge").inner_text() == "supported"
        assert "Live page: http_404" in gone.locator(".note-archived").inner_text()
        assert now.locator(".facts .badge").inner_text() == "contradicted"
        assert now.get_by_role("heading", name="Changed since cited").count() == 1
        assert now.locator(".changed dl.compare .badge").all_inner_texts() == [
            "contradicted",
            "supported",
        ]
        assert problems == []
        assert page.evaluate("window.__cspViolations") == []


def test_a_card_says_when_the_page_is_unchanged_or_the_archive_could_not_help(
    embedder: MiniLMEmbedder, browser: BrowserContext
) -> None:
    """Crafted /verify responses: an unchanged page and a failed archive lookup get a quiet
    line each, and archive text is only ever text."""
    url = "https://a.example/water"
    unchanged = {
        **_verdict(url, "supported", "boils"),
        "changed_since_cited": False,
        "archived_verdict": {
            "label": "supported",
            "evidence_quote": "boils",
            "confidence": 0.8,
            "reason": None,
            "archive_url": f"https://web.archive.org/web/{CAPTURED}/{url}",
            "archived_at": "2021-02-15T12:00:00Z",
        },
    }
    lookup = {
        **_verdict(url, "unreachable"),
        "reason": "http_404",
        "archive_lookup": "no capture <b>of</b> the page",
    }
    crafted = {"claim": "Water boils.", "overall": "supported", "citations": [unchanged, lookup]}
    settings = Settings(allow_private_urls=True)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        problems = _watch(page)
        page.route("**/verify", lambda route: route.fulfill(json=crafted))
        page.goto(service.url + "/")
        _submit_with_keyboard(page, "Water boils.", [url])
        page.wait_for_selector("#results:not([hidden])", timeout=10_000)
        first, second = (
            page.locator("#citations > li").nth(0),
            page.locator("#citations > li").nth(1),
        )
        assert first.locator(".unchanged").inner_text() == (
            "Unchanged since cited (archived copy of 15 Feb 2021)"
        )
        link = first.get_by_role("link", name="archived copy of 15 Feb 2021")
        assert link.get_attribute("href") == f"https://web.archive.org/web/{CAPTURED}/{url}"
        assert first.locator(".changed, .note-archived, .archive-lookup").count() == 0
        assert second.locator(".archive-lookup").inner_text() == (
            "Archive: no capture <b>of</b> the page"
        )
        assert second.locator(".archive-lookup b").count() == 0
        assert second.locator(".unchanged, .changed").count() == 0
        assert problems == []


def test_a_card_says_we_could_not_read_a_page_behind_a_wall_in_words(
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
    embedder: MiniLMEmbedder,
    browser: BrowserContext,
) -> None:
    site = serve(wall_routes())
    settings = Settings(allow_private_urls=True, fetch_timeout_s=5.0)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        problems = _watch(page)
        page.goto(service.url + "/")
        _submit_with_keyboard(page, WALL_CLAIM, [site.url("/geo"), site.url("/rate")])
        page.wait_for_selector("#results:not([hidden])", timeout=30_000)
        geo, rate = page.locator("#citations > li").nth(0), page.locator("#citations > li").nth(1)
        assert geo.locator(".note-wall").inner_text() == (
            "⊘Could not read: the page is not available in the region we fetch from"
        )
        assert "retry after 120 s" in rate.locator(".note-wall").inner_text()
        assert geo.locator(".facts .badge").inner_text() == "unreachable"
        assert problems == []


def test_a_card_shows_a_deciding_rule_as_a_rule_not_as_its_internal_name(
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
    embedder: MiniLMEmbedder,
    browser: BrowserContext,
) -> None:
    from test_cli import TOLL_PAGE

    site = serve({"/toll": SitePage(TOLL_PAGE)})
    settings = Settings(allow_private_urls=True, fetch_timeout_s=5.0, judge_provider="checker")
    claim = "A toll of 3.50 euros per car is charged in both directions."
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        page.goto(service.url + "/")
        _submit_with_keyboard(page, claim, [site.url("/toll")])
        page.wait_for_selector("#results:not([hidden])", timeout=30_000)
        card = page.locator("#citations > li").nth(0)
        assert card.locator(".badge").inner_text() == "not found"
        assert card.locator("p.detail").inner_text() == ("Decided by rule: exact check “certainty”")


def test_a_card_names_the_languages_and_why_a_pair_was_not_judged(
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
    embedder: MiniLMEmbedder,
    browser: BrowserContext,
) -> None:
    site = serve({"/voda": SitePage(RUSSIAN_ARTICLE)})
    settings = Settings(allow_private_urls=True, fetch_timeout_s=5.0, language_judge="none")
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        page.goto(service.url + "/")
        _submit_with_keyboard(page, "Луна сделана из сыра.", [site.url("/voda")])
        page.wait_for_selector("#results:not([hidden])", timeout=30_000)
        card = page.locator("#citations > li").nth(0)
        text = card.inner_text()
        assert card.locator(".badge").inner_text() == "unreachable"
        assert "unsupported_language" in text and "Language\nRussian" in text
        assert "no configured judge reads it" in text


def _marked(url: str, label: str, confidence: float) -> dict[str, object]:
    why = f"model unsure (confidence {confidence:.2f} < REVIEW_BELOW 0.7)"
    return {
        **_verdict(url, label, None if label == "not_found" else "quote"),
        "confidence": confidence,
        "needs_review": True,
        "review_reason": why,
    }


def test_cards_flag_a_verdict_that_needs_review_and_list_those_to_look_at_first(
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
    embedder: MiniLMEmbedder,
    browser: BrowserContext,
) -> None:
    """Crafted responses: each marked card says why, and "Look at these first" lists the marked
    verdicts in review_priority's order (a doubtful supported before a doubtful not found),
    linked to their cards; then a real /verify under REVIEW_BELOW=1.0."""
    from citation_verifier.judge.calibration import review_priority

    marked = [
        _marked("https://a.example/nf", "not_found", 0.4),
        {**_verdict("https://a.example/sure", "supported", "boils"), "confidence": 0.95},
        _marked("https://a.example/sup?x=<b>1</b>", "supported", 0.6),
        _marked("https://a.example/con", "contradicted", 0.5),
    ]
    expected = sorted(
        (c for c in marked if c.get("needs_review")),
        key=lambda c: -review_priority(str(c["label"]), float(str(c["confidence"]))),
    )
    assert [c["url"] for c in expected] == [marked[2]["url"], marked[3]["url"], marked[0]["url"]]
    crafted = {"claim": "Water boils.", "overall": "supported", "citations": marked}
    answer = {
        "statements": [
            {
                "text": "Water boils [1].",
                "claim": "Water boils.",
                "overall": "supported",
                "citations": [marked[1]],
                "markers": [{"text": "[1]", "urls": [marked[1]["url"]], "problems": []}],
                "problems": [],
            },
            {
                "text": "It is hot [2].",
                "claim": "It is hot.",
                "overall": "not_found",
                "citations": [marked[0]],
                "markers": [{"text": "[2]", "urls": [marked[0]["url"]], "problems": []}],
                "problems": [],
            },
        ],
        **dict.fromkeys(("citations", "supported_citations", "unique_urls"), 2),
        "citation_precision": 0.5,
        **dict.fromkeys(
            ("supported", "not_found", "contradicted", "unreachable", "uncited", "unresolved"), 0
        ),
    }
    site = serve({"/boil": SitePage(BOILING_HTML)})
    settings = Settings(allow_private_urls=True, fetch_timeout_s=5.0, review_below=1.0)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        page = browser.new_page()
        problems = _watch(page)
        page.route("**/verify", lambda route: route.fulfill(json=crafted))
        page.route("**/check-answer", lambda route: route.fulfill(json=answer))
        page.goto(service.url + "/")
        _submit_with_keyboard(page, "Water boils.", ["https://a.example/x"])
        page.wait_for_selector("#results:not([hidden])", timeout=10_000)

        cards = page.locator("#citations > li")
        assert cards.nth(0).locator(".note-review").inner_text() == (
            "⚑Needs review: model unsure (confidence 0.40 < REVIEW_BELOW 0.7)"
        )
        assert cards.nth(1).locator(".note-review").count() == 0
        assert "card-review" not in (cards.nth(1).get_attribute("class") or "")
        first = page.locator("#review-first")
        assert first.is_visible()
        assert first.get_by_role("heading").inner_text() == "Look at these first"
        items = first.locator("li")
        assert [items.nth(n).get_by_role("link").inner_text() for n in range(3)] == [
            c["url"] for c in expected
        ]
        assert items.nth(0).inner_text() == (
            "supported https://a.example/sup?x=<b>1</b> · confidence 0.60 · model unsure "
            "(confidence 0.60 < REVIEW_BELOW 0.7)"
        )
        assert first.locator("b").count() == 0  # the URL is text, never markup
        items.nth(0).get_by_role("link").click()  # to the card, which takes the focus
        assert page.evaluate("document.activeElement.id") == "citation-3"

        # Whole answer: the list names each verdict by its statement and opens its citations.
        page.get_by_role("tab", name="Whole answer").click()
        page.get_by_label("Answer", exact=True).fill("anything: the response is crafted")
        page.get_by_role("button", name="Check answer").click()
        page.wait_for_selector("#answer-results:not([hidden])", timeout=10_000)
        listed = page.locator("#answer-review-first li")
        assert listed.count() == 1
        link = listed.get_by_role("link")
        assert link.inner_text() == "Statement 2: https://a.example/nf"
        link.click()
        assert page.evaluate("document.activeElement.id") == "statement-2-c1"
        assert page.locator("#statement-2-c1 .note-review").is_visible()

        # A real verdict, judged under REVIEW_BELOW=1.0: its card says it needs review. One
        # verdict alone has no list (its card speaks for itself).
        page.unroute("**/verify")
        page.get_by_role("tab", name="One claim").click()
        page.get_by_label("Claim", exact=True).fill(WATER_50)
        page.get_by_label("Cited URLs").fill(site.url("/boil"))
        page.get_by_role("button", name="Verify").click()
        page.wait_for_selector("#overall.badge-contradicted", timeout=30_000)
        note = page.locator("#citations > li").nth(0).locator(".note-review").inner_text()
        assert note.startswith("⚑Needs review: ") and note.endswith("< REVIEW_BELOW 1)")
        assert page.locator("#review-first").is_hidden()
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUTPUT / "needs-review.png"), full_page=True)
        assert problems == []
