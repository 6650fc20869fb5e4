"""Headless Chromium rendering for pages that need JavaScript, behind the SSRF guard.

Playwright drives Debian's Chromium (``BROWSER_EXECUTABLE``, default ``/usr/bin/chromium``). One
browser process is shared and started on the first render; each page gets a fresh context (no
cookies, storage or cache survive it) and at most ``BROWSER_PAGES`` pages render at once.

The browser never talks to the network itself. Every request a page makes is intercepted and
answered by this module: the host is resolved and checked by :func:`resolve_allowed` and our own
HTTP client connects to the checked address, exactly like the direct fetcher. Playwright does not
intercept the hops of a redirect, so redirects are never handed to the browser: a navigation
that redirects is answered with a zero-delay refresh to the target (a new, intercepted
navigation, so the page still ends on the right URL) and a subresource redirect is followed here,
hop by hop. As a fail-closed backstop Chromium is started with a proxy that does not exist, so
any request that escaped interception (a future Playwright change, an API we did not think of)
fails instead of reaching the network; WebSockets and WebRTC are switched off, downloads refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import importlib
import importlib.util
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpx

from citation_verifier import extract
from citation_verifier.fetch.base import FetchedPage, FetchFailed
from citation_verifier.fetch.body import ACCEPT_ENCODING, read_capped
from citation_verifier.fetch.browser_priority import lower_browser_priority
from citation_verifier.fetch.ssrf import pinned_request, resolve_allowed
from citation_verifier.models import Reason
from citation_verifier.settings import Settings

if TYPE_CHECKING:
    from playwright.async_api import (
        Browser,
        BrowserContext,
        Page,
        Playwright,
        Route,
        WebSocketRoute,
    )

    from citation_verifier.fetch.consent import ConsentRefusal

# Connection-level headers: they describe one hop, and our client sets its own.
_HOP_HEADERS = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "upgrade",
        "content-length",
        "accept-encoding",
        "content-encoding",
        "trailer",
    }
)
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Nothing listens on the discard port of loopback; loopback is not bypassed (``<-loopback>``).
_DEAD_PROXY = "http://127.0.0.1:9"
CHROMIUM_ARGS = (
    "--no-sandbox",  # runs as root in containers; the page is confined by the guard instead
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--dns-prefetch-disable",
    f"--proxy-server={_DEAD_PROXY}",
    "--proxy-bypass-list=<-loopback>",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
# Runs in the page's world, whose globals the page may replace: typeof and a string's own length
# cannot be, so only a number comes back (a page's made-up innerText could be anything else).
_TEXT_LENGTH = (
    "() => { const t = document.body ? document.body.innerText : ''; "
    "return typeof t === 'string' ? t.length : 0; }"
)
# How long autoconsent may take to find a consent dialog, and then to refuse it.
_CONSENT_DETECT_S = 2.0
_CONSENT_FINISH_S = 5.0
# Closing a page's context after its deadline; past this the browser is closed instead.
CLOSE_GRACE_S = 3.0
# Calls a page may make to Playwright's binding function, and their size, per document.
_BINDING_CALLS = 256
_BINDING_CHARS = 64 * 1024
# No peer connections: WebRTC is a way around request interception. And Playwright's binding
# function, which every page script can call (Playwright's WebSocket routing talks through it),
# passes only small calls, a few hundred per document: a page that called it with 200 MB
# payloads kept Playwright's driver, which serves every render, busy for seconds each
# (issue #48), and a 30 MB WebSocket URL reached the service.
_INIT_SCRIPT = f"""delete window.RTCPeerConnection; delete window.webkitRTCPeerConnection;
(() => {{
  "use strict";
  const binding = globalThis.__playwright__binding__;
  if (typeof binding !== "function") return;
  let calls = 0;
  globalThis.__playwright__binding__ = (payload) => {{
    if (typeof payload !== "string" || payload.length > {_BINDING_CHARS}) return;
    if (calls >= {_BINDING_CALLS}) return;
    calls += 1;
    binding(payload);
  }};
}})();"""


def browser_install_hint(settings: Settings) -> str:
    """What installs the headless browser here: the ``browser`` extra (Playwright), else
    Chromium at ``BROWSER_EXECUTABLE``."""
    if importlib.util.find_spec("playwright") is None:
        how = "pip install 'citation-verifier[browser]', and Chromium (make browser)"
    else:
        how = (
            f"Chromium at BROWSER_EXECUTABLE ({settings.browser_executable}): make browser, or "
            "apt install chromium"
        )
    return f"{how} (citation-verifier doctor)"


def browser_available(settings: Settings) -> bool:
    """Whether rendering can run here: Playwright installed and the Chromium binary executable."""
    executable = settings.browser_executable
    return (
        importlib.util.find_spec("playwright") is not None
        and executable.is_file()
        and os.access(executable, os.X_OK)
    )


def refresh_page(target: str) -> bytes:
    """A document that navigates to ``target`` at once: how a redirected navigation continues
    as a new, intercepted navigation."""
    quoted = html.escape(target, quote=True)
    return (
        f'<!doctype html><html><head><meta http-equiv="refresh" content="0;url={quoted}">'
        "</head><body></body></html>"
    ).encode()


@dataclass
class _PageState:
    """What the interception saw while one page rendered, and the requests it still forwards."""

    budget: int
    """Bytes the page may still load."""
    requests_left: int
    """Requests the page may still make."""
    deadline: float
    """Loop time by which every request of the page is answered or abandoned."""
    slots: asyncio.Semaphore
    """Requests of the page forwarded at once."""
    forwarding: set[asyncio.Task[None]] = field(default_factory=set)
    """Requests being forwarded now: cancelled when the page is done."""
    closed: bool = False
    status: int | None = None
    """Origin status of the last main-frame document."""
    redirects: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers of the last main-frame document."""
    refused_navigation: FetchFailed | None = None
    over_budget: bool = False


class BrowserRenderer:
    """Renders pages in a shared headless Chromium. Call :meth:`aclose` to shut it down."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._slots = asyncio.Semaphore(settings.browser_pages)
        self._start_lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._client = httpx.AsyncClient(
            follow_redirects=False,
            trust_env=False,
            timeout=httpx.Timeout(settings.fetch_timeout_s, connect=settings.connect_timeout_s),
            headers={"Accept-Encoding": ACCEPT_ENCODING},
        )
        self._closing: set[asyncio.Task[None]] = set()
        self.launches = 0
        """How many times a browser process was started (tests assert static pages start none)."""

    async def _guard(self, host: str, port: int) -> str:
        """The fetcher's SSRF rule, applied to a request the page makes."""
        return await resolve_allowed(
            host,
            port,
            allow_private=self._settings.allow_private_urls,
            allowlist=self._settings.private_allowlist,
        )

    async def aclose(self) -> None:
        """Close the browser, the Playwright driver and the HTTP client (each within
        :data:`CLOSE_GRACE_S`: a stuck browser does not hold up a shutdown)."""
        if self._closing:  # pages of cancelled renders, closing within their own bound
            await asyncio.wait(list(self._closing))
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None:
                await _closed_in_time(browser)  # if not, stopping its driver kills it
        finally:
            if playwright is not None:
                await _stopped_in_time(playwright)
            await self._client.aclose()

    async def start(self) -> None:
        """Start the browser now rather than on the first render (a service can pay the launch
        cost before its first request)."""
        await self._started()

    async def _started(self) -> Browser:
        async with self._start_lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            # Playwright's first import takes the better part of a second: not on the loop.
            await asyncio.to_thread(importlib.import_module, "playwright.async_api")
            from playwright.async_api import Error as PlaywrightError
            from playwright.async_api import async_playwright

            try:
                if self._playwright is None:
                    self._playwright = await async_playwright().start()
                self._browser = await self._playwright.chromium.launch(
                    executable_path=str(self._settings.browser_executable),
                    headless=True,
                    args=list(CHROMIUM_ARGS),
                    timeout=self._settings.render_timeout_s * 1000,
                )
            except (PlaywrightError, OSError) as exc:
                raise FetchFailed(
                    Reason.JS_REQUIRED, f"the browser could not start: {_first_line(exc)}"
                ) from None
            self.launches += 1
            await asyncio.to_thread(lower_browser_priority)
            return self._browser

    async def render(self, url: str, *, refuse_consent: bool = False) -> FetchedPage:
        """Load ``url`` in a fresh browser context, let its JavaScript run (network idle, bounded),
        and return the resulting DOM as an HTML page with the URL the browser ended on. With
        ``refuse_consent`` a cookie-consent dialog is refused first (fetch/consent.py).

        The page gets ``RENDER_TIMEOUT_S``; closing its context afterwards gets
        :data:`CLOSE_GRACE_S` more, and a context that will not close by then takes the browser
        with it (the next render starts a new one), so an answer never waits on a stuck page."""
        from citation_verifier.fetch.consent import ConsentRefusal, consent_rules_available

        browser = await self._started()
        async with self._slots:
            started = time.monotonic()
            settings = self._settings
            state = _PageState(
                budget=settings.render_max_bytes,
                requests_left=settings.render_max_requests,
                deadline=asyncio.get_running_loop().time() + settings.render_timeout_s,
                slots=asyncio.Semaphore(settings.render_request_concurrency),
            )
            refusal = ConsentRefusal() if refuse_consent and consent_rules_available() else None
            opened: list[BrowserContext] = []
            try:
                async with asyncio.timeout(settings.render_timeout_s):
                    page = await self._render(browser, url, state, refusal, opened)
            except TimeoutError:
                raise FetchFailed(
                    Reason.JS_REQUIRED,
                    f"rendering did not finish within {settings.render_timeout_s:g} s",
                ) from None
            finally:
                # Shielded: a render cancelled from outside (its request ended) still closes its
                # page, in the background, within the same bound.
                closing = asyncio.create_task(self._close_page(browser, state, refusal, opened))
                self._closing.add(closing)
                closing.add_done_callback(self._closing.discard)
                await asyncio.shield(closing)
            page.extra["render_s"] = round(time.monotonic() - started, 3)
            if refusal is not None:
                page.extra["consent_messages"] = refusal.reports
                page.extra["consent_chars"] = refusal.report_chars
            return page

    async def _close_page(
        self,
        browser: Browser,
        state: _PageState,
        refusal: ConsentRefusal | None,
        opened: list[BrowserContext],
    ) -> None:
        """The page is done, read or not: end its refusal, cancel its requests and close its
        context, within :data:`CLOSE_GRACE_S`; past that, close the browser instead."""
        if refusal is not None:
            refusal.close()
        try:
            async with asyncio.timeout(CLOSE_GRACE_S):
                await _stop_forwarding(state)
                for context in opened:
                    await _close_quietly(context)
        except TimeoutError:
            await self._discard(browser)

    async def _discard(self, browser: Browser) -> None:
        """Give up on ``browser`` (a context of it would not close): the next render launches a
        new one. This one is closed; when even that hangs, its driver is stopped, which kills
        it. Renders still running in it fail (``js_required``)."""
        async with self._start_lock:
            if self._browser is browser:
                self._browser = None
            if await _closed_in_time(browser):
                return
            # Every browser of this driver dies with it; the next render starts both anew.
            playwright, self._playwright, self._browser = self._playwright, None, None
        if playwright is not None:
            await _stopped_in_time(playwright)

    async def _render(
        self,
        browser: Browser,
        url: str,
        state: _PageState,
        refusal: ConsentRefusal | None,
        opened: list[BrowserContext],
    ) -> FetchedPage:
        from playwright.async_api import Error as PlaywrightError

        context = await browser.new_context(
            accept_downloads=False,
            service_workers="block",  # their requests would bypass interception
            user_agent=self._settings.user_agent,
        )
        opened.append(context)
        try:
            if refusal is not None:
                # First: the refusal keeps Playwright's binding function to itself, unbounded
                # by what _INIT_SCRIPT allows the page.
                await refusal.install(context)
            await context.add_init_script(_INIT_SCRIPT)
            await context.route_web_socket("**/*", _refuse_websocket)
            await context.route("**/*", lambda route: self._answer(route, state))
            page = await context.new_page()
            await asyncio.to_thread(lower_browser_priority)  # the new renderer's threads
            try:
                await page.goto(url, wait_until="domcontentloaded")
            except PlaywrightError as exc:
                if state.refused_navigation is not None:
                    raise state.refused_navigation from None
                if "Download is starting" in str(exc):
                    raise FetchFailed(
                        Reason.UNSUPPORTED_CONTENT_TYPE,
                        "the page is a download, and downloads are refused",
                    ) from None
                if "interrupted by another navigation" not in str(exc):
                    raise FetchFailed(
                        Reason.JS_REQUIRED,
                        f"the browser could not load the page: {_first_line(exc)}",
                    ) from None
            await self._settle(context)
            if refusal is not None:
                # Bounded: a dialog is found within seconds or not at all; refusing may load
                # the article (a reload, a fetch), which the second settle waits for.
                await refusal.wait(_CONSENT_DETECT_S, _CONSENT_FINISH_S)
                if refusal.refused:
                    await self._settle(context)
            if state.refused_navigation is not None:
                raise state.refused_navigation
            if state.over_budget:
                raise FetchFailed(
                    Reason.TOO_LARGE,
                    f"the page loaded more than {self._settings.render_max_bytes} bytes",
                )
            body = (await page.content()).encode("utf-8")
            final_url = page.url
        except PlaywrightError as exc:
            raise FetchFailed(Reason.JS_REQUIRED, f"rendering failed: {_first_line(exc)}") from None
        if len(body) > self._settings.max_body_bytes:
            raise FetchFailed(
                Reason.TOO_LARGE,
                f"rendered page of {len(body)} bytes exceeds {self._settings.max_body_bytes} bytes",
            )
        return FetchedPage(
            requested_url=url,
            final_url=final_url,
            status=state.status or 200,
            content_type="text/html",
            charset="utf-8",
            body=body,
            redirects=tuple(state.redirects),
            rendered=True,
            headers=state.headers,
        )

    async def _settle(self, context: BrowserContext) -> None:
        """Wait for network idle, then for the text to stop changing (both bounded); repeat
        while client-side navigations keep coming, so a JavaScript or refresh redirect is
        followed to the page it lands on."""
        from playwright.async_api import Error as PlaywrightError

        page = context.pages[0]
        idle_ms = self._settings.render_idle_timeout_s * 1000
        for _ in range(self._settings.max_redirects + 1):
            before = page.url
            # A page that never goes idle (polling, streaming): read what is there.
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_load_state("networkidle", timeout=idle_ms)
            # A navigation scheduled during load (refresh, location.replace) commits shortly
            # after; give it one tick of the event loop before deciding the page is done.
            await asyncio.sleep(0.05)
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_load_state("domcontentloaded", timeout=idle_ms)
            if page.url == before:
                await self._text_settled(page)
                if page.url == before:
                    return

    async def _text_settled(self, page: Page) -> None:
        """Network idle is not enough on a busy machine: a timer may start the request that
        brings the text after the network went quiet. Poll the text length until it holds
        still with enough text, or holds still for a second, or the idle bound passes."""
        from playwright.async_api import Error as PlaywrightError

        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + self._settings.render_idle_timeout_s
        last = -1
        while loop.time() < deadline:
            try:
                found = await page.evaluate(_TEXT_LENGTH)
            except PlaywrightError:
                return  # the document is being replaced: the caller looks again
            length = found if isinstance(found, int) else 0
            enough = length >= self._settings.readability_min_chars
            if length == last and (enough or loop.time() - started >= 1.0):
                return
            last = length
            await asyncio.sleep(0.25)

    async def _answer(self, route: Route, state: _PageState) -> None:
        """Answer one intercepted request: refused once the page is done or has made
        ``RENDER_MAX_REQUESTS`` requests, else forwarded in a task of the page's own, which
        ends by the page's deadline and is cancelled when the page is done. Never raises."""
        if state.closed or state.requests_left <= 0:
            await _abort_quietly(route)
            return
        state.requests_left -= 1
        task = asyncio.create_task(self._forward(route, state))
        state.forwarding.add(task)
        task.add_done_callback(state.forwarding.discard)
        await asyncio.wait([task])

    async def _forward(self, route: Route, state: _PageState) -> None:
        """Forward one request in a slot of the page's concurrency, ended by FETCH_TIMEOUT_S
        (a whole exchange, however slowly its bytes trickle) or the page's deadline."""
        async with state.slots:
            loop = asyncio.get_running_loop()
            deadline = min(state.deadline, loop.time() + self._settings.fetch_timeout_s)
            try:
                async with asyncio.timeout_at(deadline):
                    await self._fulfil(route, state)
            except TimeoutError:
                await _abort_quietly(route)

    async def _fulfil(self, route: Route, state: _PageState) -> None:
        """Answer one intercepted request ourselves, behind the SSRF guard; never raises."""
        from playwright.async_api import Error as PlaywrightError

        request = route.request
        main_frame = request.is_navigation_request() and request.frame.parent_frame is None
        try:
            if urlsplit(request.url).scheme not in ("http", "https"):
                await route.abort("blockedbyclient")
                return
            headers = {
                k: v for k, v in (await request.all_headers()).items() if k not in _HOP_HEADERS
            }
            url, method, content = request.url, request.method, request.post_data_buffer
            for _ in range(self._settings.max_redirects + 1):
                status, response_headers, body = await self._exchange(
                    url, method, headers, content, state
                )
                location = response_headers.get("location")
                if status not in _REDIRECT_STATUSES or not location:
                    break
                target = urljoin(url, location.strip())
                if request.is_navigation_request():
                    # Hand the next hop back to the browser as a new intercepted navigation.
                    if main_frame:
                        state.redirects.append(url)
                        if len(state.redirects) > self._settings.max_redirects:
                            state.refused_navigation = FetchFailed(
                                Reason.TOO_MANY_REDIRECTS,
                                f"more than {self._settings.max_redirects} redirects",
                                final_url=url,
                            )
                            await _abort_quietly(route)
                            return
                    await route.fulfill(
                        status=200, content_type="text/html", body=refresh_page(target)
                    )
                    return
                url = target
                if status == 303 or (status in (301, 302) and method == "POST"):
                    method, content = "GET", None
            else:
                await route.abort("blockedbyclient")
                return
            response_headers = _with_charset(response_headers, body)
            if main_frame:
                state.status = status
                state.headers = response_headers
            await route.fulfill(status=status, headers=response_headers, body=body)
        except FetchFailed as failure:
            if main_frame and failure.reason in (Reason.FORBIDDEN_ADDRESS, Reason.DNS_ERROR):
                state.refused_navigation = FetchFailed(
                    failure.reason, failure.detail, final_url=request.url
                )
            await _abort_quietly(route)
        except (httpx.HTTPError, OSError, PlaywrightError):
            await _abort_quietly(route)
        except Exception:  # a request we cannot forward (odd headers): fail it, never hang it
            await _abort_quietly(route)

    async def _exchange(
        self,
        url: str,
        method: str,
        headers: dict[str, str],
        content: bytes | None,
        state: _PageState,
    ) -> tuple[int, dict[str, str], bytes]:
        """One HTTP exchange with the checked address, body capped by the page's budget."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchFailed(Reason.INVALID_REDIRECT, f"not an http(s) URL: {url!r}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        address = await self._guard(parts.hostname, port)
        pinned, host_header, extensions = pinned_request(url, address)
        request = self._client.build_request(
            method, pinned, headers={**headers, **host_header}, content=content
        )
        request.extensions.update(extensions)
        response = await self._client.send(request, stream=True)
        limit = min(state.budget, self._settings.max_body_bytes)
        try:
            body = await read_capped(response, limit)
        except FetchFailed as failure:
            if failure.reason == Reason.TOO_LARGE and limit == state.budget:
                state.over_budget = True  # the page's own budget ran out, not this response's
            raise
        finally:
            await response.aclose()
        state.budget -= len(body)
        merged: dict[str, str] = {}
        for name, value in response.headers.multi_items():
            name = name.lower()
            if name in _HOP_HEADERS:
                continue
            # Playwright splits a joined Set-Cookie on newlines; other headers join with commas.
            joiner = "\n" if name == "set-cookie" else ", "
            merged[name] = f"{merged[name]}{joiner}{value}" if name in merged else value
        return response.status_code, merged, body


def _with_charset(headers: dict[str, str], body: bytes) -> dict[str, str]:
    """``headers`` naming the charset of a text body that declares none (no charset, BOM or
    ``<meta charset>``), as the direct reader sniffs it: Chromium would read such a page as
    windows-1252, and a UTF-8 Chinese page became Latin mojibake, its language "Catalan"."""
    content_type = headers.get("content-type", "")
    if (
        not content_type.lower().startswith("text/")
        or "charset=" in content_type.lower()
        or extract.declared_encoding(body, None) is not None
    ):
        return headers
    return {**headers, "content-type": f"{content_type}; charset={extract.sniffed_encoding(body)}"}


async def _refuse_websocket(ws: WebSocketRoute) -> None:
    """WebSockets would bypass request interception: never connect them to a server."""
    await ws.close(code=1008, reason="WebSockets are not allowed while rendering")


async def _stop_forwarding(state: _PageState) -> None:
    """The page is done: refuse its further requests and cancel the ones in flight, so no
    connection outlives the page (they would hold the shared client's pool)."""
    state.closed = True
    tasks = list(state.forwarding)
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks)


async def _abort_quietly(route: Route) -> None:
    from playwright.async_api import Error as PlaywrightError

    with contextlib.suppress(PlaywrightError):  # the page or context may already be gone
        await route.abort("blockedbyclient")


async def _closed_in_time(browser: Browser) -> bool:
    """Close ``browser``; False when it did not close within :data:`CLOSE_GRACE_S`."""
    from playwright.async_api import Error as PlaywrightError

    try:
        async with asyncio.timeout(CLOSE_GRACE_S):
            with contextlib.suppress(PlaywrightError):  # already gone
                await browser.close()
    except TimeoutError:
        return False
    return True


async def _stopped_in_time(playwright: Playwright) -> None:
    """Stop the Playwright driver (its browsers die with it), waiting at most
    :data:`CLOSE_GRACE_S`."""
    from playwright.async_api import Error as PlaywrightError

    with contextlib.suppress(TimeoutError, PlaywrightError, OSError):
        async with asyncio.timeout(CLOSE_GRACE_S):
            await playwright.stop()


async def _close_quietly(context: BrowserContext) -> None:
    from playwright.async_api import Error as PlaywrightError

    with contextlib.suppress(PlaywrightError):  # the browser died; the next render restarts it
        await context.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
