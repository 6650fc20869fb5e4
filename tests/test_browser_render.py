"""Headless Chromium rendering: real browser, real loopback pages, the real pipeline."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route, redirect
from citation_verifier.fetch.base import FetchedPage, FetchFailed
from citation_verifier.fetch.browser import BrowserRenderer, browser_available
from citation_verifier.fetch.direct import DirectFetcher
from citation_verifier.fetch.reading import js_signals
from citation_verifier.models import Label, Reason, UrlVerdict, VerifyRequest
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

Serve = Callable[[Mapping[str, Route]], LoopbackSite]

CLAIM = "Water boils at 100 degrees Celsius at sea level."
ARTICLE = [
    "Water boils at 100 degrees Celsius at sea level.",
    "This is the standard boiling point, measured at a pressure of one standard atmosphere.",
    "At higher altitudes the air pressure is lower, so water boils at a lower temperature. In "
    "Denver, about 1,600 metres above sea level, water boils at roughly 95 degrees Celsius.",
]


def spa_shell(script: str, title: str = "App") -> str:
    """A create-react-app style shell: an empty root, a noscript notice, one inline script."""
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        "<noscript>You need to enable JavaScript to run this app.</noscript>"
        f'<div id="root"></div><script>{script}</script></body></html>'
    )


# The text arrives only after JavaScript runs and a delayed XHR to the same server answers.
SPA = spa_shell(
    """setTimeout(function () {
  fetch('/api/article').then(function (r) { return r.json(); }).then(function (data) {
    var main = document.createElement('article');
    main.innerHTML = '<h1>' + data.title + '</h1>' +
      data.paragraphs.map(function (p) { return '<p>' + p + '</p>'; }).join('');
    document.getElementById('root').appendChild(main);
  });
}, 150);"""
)
API = Page(
    json.dumps({"title": "The boiling point of water", "paragraphs": ARTICLE}),
    content_type="application/json",
    delay_s=0.3,
)
STATIC = (
    "<!doctype html><html><head><title>Boiling</title></head><body><article>"
    + "".join(f"<p>{p}</p>" for p in ARTICLE)
    + "</article></body></html>"
)
HOME = (
    "<!doctype html><html><head><title>Home</title></head><body><main><h1>Example Weekly</h1>"
    "<p>Welcome to Example Weekly. Browse our latest articles on physics, chemistry and "
    "everyday science; new stories every week from our editors and contributors.</p></main>"
    "</body></html>"
)


def root_text(page: FetchedPage) -> str:
    """Text of the shell's ``<div id="root">`` after rendering (not the script source)."""
    found = re.search(r'<div id="root">(.*?)</div>', page.body.decode())
    return found.group(1) if found else ""


@pytest.fixture(scope="module", autouse=True)
def _chromium_installed() -> None:
    if not browser_available(Settings()):
        pytest.fail("Chromium or Playwright is missing: run `make browser install-test`")


async def run_claim(
    settings: Settings, embedder: MiniLMEmbedder, url: str, claim: str = CLAIM
) -> tuple[DirectFetcher, UrlVerdict]:
    """Verify ``claim`` against ``url`` through the real pipeline; the fetcher is returned so a
    test can see whether it started a browser."""
    fetcher = DirectFetcher(settings)
    async with Verifier(settings, fetcher=fetcher, embedder=embedder) as verifier:
        result = await verifier.verify(VerifyRequest(claim=claim, urls=[url]))
    return fetcher, result.citations[0]


LYING_TEXT = spa_shell(
    """Object.defineProperty(HTMLElement.prototype, 'innerText', {
  get: function () { return {length: '9'.repeat(1000)}; }
});
setTimeout(function () {
  fetch('/api/article').then(function (r) { return r.json(); }).then(function (data) {
    var main = document.createElement('article');
    main.innerHTML = '<h1>' + data.title + '</h1>' +
      data.paragraphs.map(function (p) { return '<p>' + p + '</p>'; }).join('');
    document.getElementById('root').appendChild(main);
  });
}, 150);"""
)


async def test_a_page_that_fakes_its_text_length_is_still_read(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    # The wait for the text to settle asks the page's own world, whose innerText it replaced.
    site = serve({"/article": Page(LYING_TEXT), "/api/article": API})
    _, verdict = await run_claim(settings, embedder, site.url("/article"))
    assert verdict.rendered is True
    assert verdict.label == Label.SUPPORTED, verdict.detail


async def test_spa_text_after_js_and_delayed_xhr_is_supported_with_rendered_quote(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/article": Page(SPA), "/api/article": API})
    fetcher, verdict = await run_claim(settings, embedder, site.url("/article"))
    assert verdict.label == Label.SUPPORTED
    assert verdict.evidence_quote == CLAIM
    assert verdict.rendered is True
    assert verdict.final_url == site.url("/article")
    assert site.hits["/api/article"] == 1
    assert fetcher.renderer is not None and fetcher.renderer.launches == 1


async def test_spa_with_render_js_never_is_js_required_not_a_judgement(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/article": Page(SPA), "/api/article": API})
    never = settings.model_copy(update={"render_js": "never"})
    fetcher, verdict = await run_claim(never, embedder, site.url("/article"))
    assert verdict.label == Label.UNREACHABLE  # never read: not a verdict on the shell
    assert verdict.reason == Reason.JS_REQUIRED
    assert "RENDER_JS=never" in (verdict.detail or "")
    assert verdict.rendered is False
    assert fetcher.renderer is None and "/api/article" not in site.hits


async def test_spa_without_a_browser_could_not_be_read_and_says_what_installs_one(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/article": Page(SPA), "/api/article": API})
    missing = settings.model_copy(update={"browser_executable": Path("/nonexistent/chromium")})
    fetcher, verdict = await run_claim(missing, embedder, site.url("/article"))
    assert not fetcher.can_render
    assert (verdict.label, verdict.reason) == (Label.UNREACHABLE, Reason.JS_REQUIRED)
    assert verdict.confidence == 1.0 and verdict.evidence_quote is None
    assert verdict.could_not_read == (
        "could not read: the page needs JavaScript to show its text and nothing here ran it"
    )
    assert verdict.detail is not None
    assert "no browser is installed here: Chromium at BROWSER_EXECUTABLE" in verdict.detail
    assert (
        "/nonexistent/chromium" in verdict.detail and "citation-verifier doctor" in verdict.detail
    )


async def test_spa_without_playwright_names_the_browser_extra(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "playwright", None)  # the wheel without its [browser] extra
    site = serve({"/article": Page(SPA), "/api/article": API})
    _, verdict = await run_claim(settings, embedder, site.url("/article"))
    assert (verdict.label, verdict.reason) == (Label.UNREACHABLE, Reason.JS_REQUIRED)
    assert "pip install 'citation-verifier[browser]'" in (verdict.detail or "")


async def test_short_static_page_without_scripts_is_judged_when_rendering_is_off(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    short = f"<html><body><p>{ARTICLE[0]}</p></body></html>"
    site = serve({"/note": Page(short)})
    never = settings.model_copy(update={"render_js": "never"})
    _, verdict = await run_claim(never, embedder, site.url("/note"))
    assert verdict.label == Label.SUPPORTED
    assert verdict.reason is None


async def test_static_page_does_not_start_the_browser(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/static": Page(STATIC)})
    fetcher, verdict = await run_claim(settings, embedder, site.url("/static"))
    assert fetcher.can_render  # a browser was available and still not used
    assert fetcher.renderer is None
    assert verdict.label == Label.SUPPORTED
    assert verdict.rendered is False


async def test_render_js_always_renders_a_static_page(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/static": Page(STATIC)})
    always = settings.model_copy(update={"render_js": "always"})
    _, verdict = await run_claim(always, embedder, site.url("/static"))
    assert verdict.label == Label.SUPPORTED
    assert verdict.rendered is True


async def test_js_client_side_redirect_to_root_is_a_homepage_redirect(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/news/boiling": Page(spa_shell("location.replace('/');")), "/": Page(HOME)})
    _, verdict = await run_claim(settings, embedder, site.url("/news/boiling"))
    assert verdict.label == Label.NOT_FOUND
    assert verdict.reason == Reason.REDIRECTED_TO_HOMEPAGE
    assert verdict.final_url == site.url("/")
    assert verdict.rendered is True


async def test_server_redirect_during_rendering_ends_on_its_target(
    serve: Serve, settings: Settings
) -> None:
    site = serve({"/old": redirect("/new", 302), "/new": Page(STATIC)})
    renderer = BrowserRenderer(settings)
    try:
        page = await renderer.render(site.url("/old"))
    finally:
        await renderer.aclose()
    assert page.final_url == site.url("/new")
    assert page.redirects == (site.url("/old"),)
    assert ARTICLE[0].encode() in page.body


async def test_js_rendered_soft_404_is_unreachable(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    script = (
        "document.getElementById('root').innerHTML = '<h1>Oops</h1><p>Sorry, the page you are "
        "looking for could not be found.</p>';"
    )
    site = serve({"/report": Page(spa_shell(script))})
    _, verdict = await run_claim(settings, embedder, site.url("/report"))
    assert verdict.label == Label.UNREACHABLE
    assert verdict.reason == Reason.SOFT_404
    assert verdict.rendered is True


def _exfiltrating_page(target: str) -> Page:
    """A page that tries to read ``target`` (another origin) and print it into the DOM."""
    script = f"""
fetch('{target}').then(function (r) {{ return r.text(); }})
  .then(function (t) {{ document.getElementById('root').textContent = 'LEAKED ' + t; }})
  .catch(function () {{ document.getElementById('root').textContent = 'request failed'; }});
"""
    return Page(spa_shell(script))


async def test_page_cannot_reach_a_forbidden_address_when_the_guard_is_on(
    serve: Serve, settings: Settings
) -> None:
    # The guard is on; only the page's own address (127.0.0.1) is allow-listed, so the page
    # loads and the internal service on 127.0.0.2 is a forbidden address like any private one.
    with LoopbackSite(
        {"/secret": Page("internal-token", content_type="text/plain")}, host="127.0.0.2"
    ) as secret:
        await _render_exfiltration(serve, settings, secret)


async def _render_exfiltration(serve: Serve, settings: Settings, secret: LoopbackSite) -> None:
    page_site = serve(
        {"/app": _exfiltrating_page(secret.url("/secret")), "/hop": redirect(secret.url("/secret"))}
    )
    guarded = Settings(
        allow_private_urls=False,
        private_allowlist=["127.0.0.1/32"],
        fetch_timeout_s=settings.fetch_timeout_s,
    )
    renderer = BrowserRenderer(guarded)
    try:
        page = await renderer.render(page_site.url("/app"))
        assert root_text(page) == "request failed"
        # A same-origin request that the server redirects to the forbidden address is refused.
        page_site.routes["/app"] = _exfiltrating_page("/hop")
        page = await renderer.render(page_site.url("/app"))
        assert root_text(page) == "request failed"
    finally:
        await renderer.aclose()
    assert "/secret" not in secret.hits
    assert page_site.hits["/hop"] == 1


async def test_same_page_reaches_the_address_when_private_urls_are_allowed(
    serve: Serve, settings: Settings
) -> None:
    secret = serve({"/secret": Page("internal-token", content_type="text/plain")})
    page_site = serve({"/app": _exfiltrating_page(secret.url("/secret"))})
    renderer = BrowserRenderer(settings)  # allow_private_urls=True: the guard lets it through
    try:
        page = await renderer.render(page_site.url("/app"))
    finally:
        await renderer.aclose()
    assert root_text(page) == "LEAKED internal-token"


async def test_navigation_to_a_forbidden_address_is_refused(
    serve: Serve, settings: Settings
) -> None:
    site = serve({"/app": Page(STATIC)})
    guarded = settings.model_copy(update={"allow_private_urls": False})
    renderer = BrowserRenderer(guarded)
    try:
        with pytest.raises(FetchFailed) as refused:
            await renderer.render(site.url("/app"))
    finally:
        await renderer.aclose()
    assert refused.value.reason == Reason.FORBIDDEN_ADDRESS
    assert "/app" not in site.hits


async def test_websockets_never_connect(serve: Serve, settings: Settings) -> None:
    other = serve({"/ws": Page("no")})
    ws_url = other.base_url.replace("http://", "ws://") + "/ws"
    script = f"""var ws = new WebSocket('{ws_url}');
ws.onopen = function () {{ document.getElementById('root').textContent = 'OPEN'; }};
ws.onclose = function () {{ document.getElementById('root').textContent = 'CLOSED'; }};"""
    site = serve({"/app": Page(spa_shell(script))})
    renderer = BrowserRenderer(settings)
    try:
        page = await renderer.render(site.url("/app"))
    finally:
        await renderer.aclose()
    assert root_text(page) == "CLOSED"
    assert "/ws" not in other.hits


def _never_answers(handler: BaseHTTPRequestHandler) -> None:
    time.sleep(8)  # a long poll that outlives the render; the server thread is a daemon


async def test_page_that_never_finishes_loading_is_read_after_the_idle_bound(
    serve: Serve, settings: Settings
) -> None:
    script = f"document.getElementById('root').innerHTML = '<p>{ARTICLE[0]}</p>';fetch('/poll');"
    site = serve({"/live": Page(spa_shell(script)), "/poll": _never_answers})
    # The long poll answers after 8 s; the idle bound (1 s), not the poll, must end the wait.
    bounded = settings.model_copy(update={"render_idle_timeout_s": 1.0, "render_timeout_s": 20.0})
    renderer = BrowserRenderer(bounded)
    try:
        await renderer.start()  # the browser launch is not the measure
        started = time.monotonic()
        page = await renderer.render(site.url("/live"))
        elapsed = time.monotonic() - started
    finally:
        await renderer.aclose()
    assert ARTICLE[0].encode() in page.body
    assert elapsed < 6.0


async def test_document_that_never_arrives_ends_within_the_render_deadline(
    serve: Serve, settings: Settings
) -> None:
    site = serve({"/slow": _never_answers})
    bounded = settings.model_copy(update={"render_timeout_s": 2.0})
    renderer = BrowserRenderer(bounded)
    try:
        await renderer.start()  # the browser launch is not part of the render deadline
        started = time.monotonic()
        with pytest.raises(FetchFailed) as failed:
            await renderer.render(site.url("/slow"))
        elapsed = time.monotonic() - started
    finally:
        await renderer.aclose()
    assert failed.value.reason == Reason.JS_REQUIRED
    assert "within 2 s" in failed.value.detail
    assert elapsed < 4.0


async def test_page_loading_more_than_the_byte_budget_is_too_large(
    serve: Serve, settings: Settings
) -> None:
    big = Page("/*" + "x" * 50_000 + "*/", content_type="application/javascript")
    page = Page(spa_shell("").replace("</body>", '<script src="/big.js"></script></body>'))
    site = serve({"/app": page, "/big.js": big})
    small = settings.model_copy(update={"render_max_bytes": 20_000})
    renderer = BrowserRenderer(small)
    try:
        with pytest.raises(FetchFailed) as failed:
            await renderer.render(site.url("/app"))
    finally:
        await renderer.aclose()
    assert failed.value.reason == Reason.TOO_LARGE


async def test_no_storage_survives_between_pages(serve: Serve, settings: Settings) -> None:
    writer = "localStorage.setItem('k', 'persisted'); document.cookie = 'c=persisted; path=/';"
    reader = (
        "document.getElementById('root').textContent = 'storage=' + "
        "(localStorage.getItem('k') || 'none') + ' cookie=' + (document.cookie || 'none');"
    )
    site = serve({"/write": Page(spa_shell(writer)), "/read": Page(spa_shell(reader))})
    renderer = BrowserRenderer(settings)
    try:
        await renderer.render(site.url("/write"))
        page = await renderer.render(site.url("/read"))
    finally:
        await renderer.aclose()
    assert root_text(page) == "storage=none cookie=none"


async def test_a_page_that_declares_no_charset_is_rendered_in_the_one_it_is_written_in(
    serve: Serve, settings: Settings
) -> None:
    text = "新建的长江大桥于今年五月正式通车,全长1670米。"
    undeclared = f"<!doctype html><html><body><p>{text}</p></body></html>"
    site = serve({"/zh": Page(undeclared.encode(), content_type="text/html")})
    renderer = BrowserRenderer(settings)
    try:
        page = await renderer.render(site.url("/zh"))
    finally:
        await renderer.aclose()
    assert text in page.body.decode("utf-8")


async def test_page_that_is_a_download_is_refused(serve: Serve, settings: Settings) -> None:
    attachment = Page(
        b"binary",
        content_type="application/octet-stream",
        headers={"Content-Disposition": 'attachment; filename="x.bin"'},
    )
    site = serve({"/file.bin": attachment})
    renderer = BrowserRenderer(settings)
    try:
        with pytest.raises(FetchFailed) as refused:
            await renderer.render(site.url("/file.bin"))
    finally:
        await renderer.aclose()
    assert refused.value.reason == Reason.UNSUPPORTED_CONTENT_TYPE


async def test_download_started_by_a_script_leaves_the_page_in_place(
    serve: Serve, settings: Settings
) -> None:
    attachment = Page(
        b"%PDF-1.4 secret",
        content_type="application/octet-stream",
        headers={"Content-Disposition": 'attachment; filename="x.bin"'},
    )
    script = (
        "var a = document.createElement('a'); a.href = '/file.bin'; a.download = 'x.bin';"
        "document.body.appendChild(a); a.click();"
        "document.getElementById('root').textContent = 'clicked';"
    )
    site = serve({"/app": Page(spa_shell(script)), "/file.bin": attachment})
    renderer = BrowserRenderer(settings)
    try:
        page = await renderer.render(site.url("/app"))
    finally:
        await renderer.aclose()
    assert root_text(page) == "clicked"
    assert page.final_url == site.url("/app")


async def test_page_pool_bounds_concurrent_pages(serve: Serve, settings: Settings) -> None:
    # Each page's XHR waits for a second page's: the pool of 2 lets two pages meet at the
    # barrier; a third concurrent page would raise the peak above 2.
    barrier = threading.Barrier(2, timeout=15)
    active = 0
    peak = 0
    lock = threading.Lock()

    def api(handler: BaseHTTPRequestHandler) -> None:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        try:
            barrier.wait()
            time.sleep(0.2)
        finally:
            with lock:
                active -= 1
        body = b"{}"
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    site = serve({"/app": Page(spa_shell("fetch('/api');")), "/api": api})
    pooled = settings.model_copy(update={"browser_pages": 2, "fetch_timeout_s": 20.0})
    renderer = BrowserRenderer(pooled)
    try:
        await asyncio.gather(*(renderer.render(site.url("/app")) for _ in range(4)))
    finally:
        await renderer.aclose()
    assert site.hits["/api"] == 4
    assert peak == 2
    assert renderer.launches == 1  # one browser process shared by every page


def _html_page(body: str) -> FetchedPage:
    return FetchedPage("http://e.test/", "http://e.test/", 200, "text/html", body.encode())


def test_noscript_enable_javascript_notice_is_a_js_signal() -> None:
    notice = "<noscript><p>Please <b>enable JavaScript</b> to view this site.</p></noscript>"
    assert js_signals(_html_page(f"<html><body>{notice}</body></html>")) == (False, True)
    cra = spa_shell("")
    assert js_signals(_html_page(cra)) == (True, True)


def test_noscript_tracking_pixel_is_not_a_js_notice() -> None:
    pixel = '<noscript><img src="/pixel.gif" alt=""></noscript><script>track()</script>'
    assert js_signals(_html_page(f"<html><body>{pixel}</body></html>")) == (True, False)
    assert js_signals(_html_page("<html><body><p>plain</p></body></html>")) == (False, False)


NAV_SHELL = (
    "<!doctype html><html><head><title>Shop</title></head><body><nav><ul>"
    + "".join(
        f'<li><a href="/c/{i}">Category number {i} of our wonderful catalogue</a></li>'
        for i in range(8)
    )
    + "</ul></nav><noscript>This site requires JavaScript. Please enable JavaScript in your "
    'browser.</noscript><div id="root"></div></body></html>'
)


async def test_nav_only_page_with_noscript_notice_is_rendered(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/p": Page(NAV_SHELL)})
    fetcher, verdict = await run_claim(settings, embedder, site.url("/p"))
    assert fetcher.renderer is not None and fetcher.renderer.launches == 1
    assert verdict.rendered is True
    never = settings.model_copy(update={"render_js": "never"})
    _, verdict = await run_claim(never, embedder, site.url("/p"))
    assert verdict.reason == Reason.JS_REQUIRED


async def test_navigation_redirect_loop_ends_as_too_many_redirects(
    serve: Serve, settings: Settings
) -> None:
    site = serve({"/a": redirect("/b", 302), "/b": redirect("/a", 302)})
    looping = settings.model_copy(update={"max_redirects": 3})
    renderer = BrowserRenderer(looping)
    try:
        with pytest.raises(FetchFailed) as failed:
            await renderer.render(site.url("/a"))
    finally:
        await renderer.aclose()
    assert failed.value.reason == Reason.TOO_MANY_REDIRECTS
    assert site.hits["/a"] + site.hits["/b"] == 4


def cli_verify_json(url: str, render_js: str) -> dict[str, object]:
    """``citation-verifier verify --json`` in a real process, as a user runs it."""
    env = {**os.environ, "ALLOW_PRIVATE_URLS": "true", "RENDER_JS": render_js}
    done = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "verify", "--json", CLAIM, url],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    citation: dict[str, object] = json.loads(done.stdout)["citations"][0]
    return citation


def test_cli_verify_on_spa_is_supported_and_js_required_with_render_js_never(
    serve: Serve,
) -> None:
    site = serve({"/article": Page(SPA), "/api/article": API})
    rendered = cli_verify_json(site.url("/article"), "auto")
    assert (rendered["label"], rendered["evidence_quote"], rendered["rendered"]) == (
        "supported",
        CLAIM,
        True,
    )
    shell = cli_verify_json(site.url("/article"), "never")
    assert (shell["label"], shell["reason"], shell["rendered"]) == (
        "unreachable",
        "js_required",
        False,
    )


async def test_text_written_by_a_timer_after_the_network_went_quiet_is_read(
    serve: Serve, settings: Settings
) -> None:
    # No request at all after load: network idle comes after 500 ms, the text at 900 ms.
    script = "setTimeout(function () { document.getElementById('root').textContent = 'late text'; }, 900);"
    site = serve({"/late": Page(spa_shell(script))})
    renderer = BrowserRenderer(settings)
    try:
        page = await renderer.render(site.url("/late"))
    finally:
        await renderer.aclose()
    assert root_text(page) == "late text"


async def test_the_browser_runs_at_a_lower_cpu_priority_than_the_service(
    serve: Serve, settings: Settings
) -> None:
    """Four renderers on two cores left the service's /health waiting up to 1.1 s; Chromium
    and the Playwright driver now yield the CPU to it (renderers inherit the niceness)."""
    from citation_verifier.fetch.browser_priority import BROWSER_NICENESS, descendants

    site = serve({"/article": Page(STATIC)})
    renderer = BrowserRenderer(settings)
    try:
        page = await renderer.render(site.url("/article"))
        started = descendants(os.getpid())
        niceness = {}
        for pid in started:
            try:
                name = Path(f"/proc/{pid}/comm").read_text().strip()
                niceness[f"{name}:{pid}"] = os.getpriority(os.PRIO_PROCESS, pid)
            except OSError:
                continue
    finally:
        await renderer.aclose()
    assert ARTICLE[0].encode() in page.body
    browser = {name: nice for name, nice in niceness.items() if "chrom" in name.lower()}
    assert browser, niceness
    # Each process's main thread (what top shows). Chromium sets its background helpers to
    # niceness 5 itself, and as root may give a thread it starts later a niceness of its own.
    assert max(browser.values()) == BROWSER_NICENESS, browser
    assert min(browser.values()) > os.getpriority(os.PRIO_PROCESS, 0) == 0, browser
