"""A loopback fake of the Crawlbase Crawling API and Storage API, and a fixture origin site.

It behaves like the documented API (crawlbase.com/docs): token check (401), ``format=md`` with
``md_readability`` (our own extractor plays Crawlbase's converter), ``format=html``,
``original_status`` passed through for 404/410, ``cb_status`` or ``pc_status`` headers, the final
``url`` after redirects, ``rid`` and ``storage_url`` on ``store=true``, JavaScript rendering for
the JS token or ``javascript=true``, and ``/storage?rid=``. Canned answers (HTTP 520 with an
empty body and no headers, ``cb_status`` 525, 429 with ``Retry-After``, 500, slow answers) are
scripted per origin path. It keeps its own bill by the documented rules, independent of ours.
"""

from __future__ import annotations

import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlsplit

from pydantic import SecretStr

from citation_verifier import extract
from citation_verifier.demo.loopback import LoopbackSite, Page, Route, redirect
from citation_verifier.demo.site import make_pdf
from citation_verifier.settings import Settings

NORMAL_TOKEN = "nrmTOKEN-7f3a9c1e5b"
JS_TOKEN = "jsTOKEN-2d8e4f6a0c"

_RENDER_SCRIPT = re.compile(r'<script type="text/x-fake-render">(.*?)</script>', re.S)
_BILLED_ORIGIN = {200, 201, 204, 301, 302, 404, 410}


@dataclass(frozen=True)
class Canned:
    """A scripted API answer: status, headers, body, delay. ``headers=None`` sends none."""

    status: int = 200
    headers: Mapping[str, str] | None = None
    body: bytes = b""
    delay_s: float = 0.0


@dataclass
class Call:
    """One request the fake received."""

    endpoint: str
    raw_query: str
    params: dict[str, str]

    @property
    def kind(self) -> str:
        """normal or js, as the fake understood the token."""
        return "js" if self.params.get("token") == JS_TOKEN else "normal"


@dataclass
class _Origin:
    final_url: str
    status: int
    content_type: str
    body: bytes


def _fetch_origin(url: str) -> _Origin | None:
    """Crawl ``url`` like a crawler: follow redirects, keep any status and body."""
    request = urllib.request.Request(url, headers={"User-Agent": "fake-crawlbase"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return _Origin(
                response.geturl(),
                response.status,
                response.headers.get_content_type(),
                response.read(),
            )
    except urllib.error.HTTPError as error:
        return _Origin(
            error.geturl(), error.code, error.headers.get_content_type(), error.read() or b""
        )
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _render(html: str) -> str:
    """What a browser would show: the script's markup inserted into the page."""
    return _RENDER_SCRIPT.sub(lambda m: m.group(1), html)


@dataclass
class FakeCrawlbase:
    """The fake API on a :class:`LoopbackSite`. ``status_header`` picks ``cb_status`` or the
    older ``pc_status``."""

    status_header: str = "cb_status"
    calls: list[Call] = field(default_factory=list)
    scripts: dict[str, list[Canned]] = field(default_factory=dict)
    stored: dict[str, bytes] = field(default_factory=dict)
    charged: float = 0.0
    in_flight: int = 0
    max_in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.site = LoopbackSite({"/": self._crawl, "/storage": self._storage})

    @property
    def base_url(self) -> str:
        """Where ``CRAWLBASE_API_URL`` points."""
        return self.site.base_url

    def script(self, path: str, *answers: Canned) -> None:
        """Answer the next requests for origin ``path`` with ``answers``, in order."""
        self.scripts.setdefault(path, []).extend(answers)

    def reset(self) -> FakeCrawlbase:
        """Forget calls, scripts, stored pages and the bill (reuse one server across tests)."""
        with self._lock:
            self.calls.clear()
            self.scripts.clear()
            self.stored.clear()
            self.charged = 0.0
            self.in_flight = self.max_in_flight = 0
        return self

    def crawl_calls(self) -> list[Call]:
        """The Crawling API requests received, in order."""
        return [c for c in self.calls if c.endpoint == "/"]

    def _record(self, handler: BaseHTTPRequestHandler, endpoint: str) -> Call:
        raw = urlsplit(handler.path).query
        call = Call(endpoint, raw, dict(parse_qsl(raw, keep_blank_values=True)))
        with self._lock:
            self.calls.append(call)
        return call

    def _charge(
        self, call: Call, status: int, cb: int | None, origin: int | None, stored: bool
    ) -> None:
        """The documented bill: 1 (normal) or 2 (JS) for an answered crawl, +0.5 if stored."""
        if status != 200 or (cb is not None and cb not in (200, 404, 410)):
            return
        if origin is not None and origin not in _BILLED_ORIGIN:
            return
        cost = 2.0 if call.kind == "js" or call.params.get("javascript") == "true" else 1.0
        cost += 0.5 if stored else 0.0
        with self._lock:
            self.charged += cost

    def _crawl(self, handler: BaseHTTPRequestHandler) -> None:
        call = self._record(handler, "/")
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self._answer_crawl(handler, call)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _answer_crawl(self, handler: BaseHTTPRequestHandler, call: Call) -> None:
        params = call.params
        if params.get("token") not in (NORMAL_TOKEN, JS_TOKEN):
            _send(handler, Canned(401, {"Content-Type": "application/json"}, b'{"error":1}'))
            return
        target = params.get("url", "")
        if not target.startswith(("http://", "https://")):
            _send(handler, Canned(422, {}, b'{"error":"invalid url"}'))
            return
        path = urlsplit(target).path or "/"
        with self._lock:
            queue = self.scripts.get(path)
            canned = queue.pop(0) if queue else None
        # The bill is written before the answer, so a client holding the answer sees it.
        if canned is not None:
            headers = canned.headers or {}
            cb_header = headers.get("cb_status") or headers.get("pc_status")
            origin_header = headers.get("original_status")
            self._charge(
                call,
                canned.status,
                int(cb_header) if cb_header else None,
                int(origin_header) if origin_header else None,
                "rid" in headers,
            )
            _send(handler, canned)
            return
        origin_page = _fetch_origin(target)
        if origin_page is None:
            _send(handler, Canned(520))
            return
        body = origin_page.body
        content_type = origin_page.content_type
        js = call.kind == "js" or params.get("javascript") == "true"
        if content_type == "text/html":
            html = extract.decode_body(body, None)
            if js:
                html = _render(html)
            if params.get("format") == "md":
                readable = params.get("md_readability") == "true"
                text = (
                    extract.html_to_markdown(html, origin_page.final_url)
                    if readable
                    else extract.html_to_full_text(html)
                )
                body, content_type = text.encode(), "text/markdown"
            else:
                body = html.encode()
        status = origin_page.status
        cb = status if status >= 400 else 200
        headers = {
            "Content-Type": f"{content_type}; charset=utf-8",
            "original_status": str(status),
            self.status_header: str(cb),
            "url": origin_page.final_url,
        }
        if params.get("store") == "true" and cb in (200, 404, 410):  # only answered crawls
            with self._lock:
                rid = f"rid{len(self.stored) + 1:04d}"
                self.stored[rid] = body
            headers["rid"] = rid
            headers["storage_url"] = f"{self.base_url}/storage?token={params['token']}&rid={rid}"
        self._charge(call, 200, cb, status, "rid" in headers)
        _send(handler, Canned(200, headers, body))

    def _storage(self, handler: BaseHTTPRequestHandler) -> None:
        call = self._record(handler, "/storage")
        if call.params.get("token") not in (NORMAL_TOKEN, JS_TOKEN):
            _send(handler, Canned(401, {}, b'{"error":"invalid token"}'))
            return
        rid = call.params.get("rid", "")
        if rid not in self.stored:
            _send(handler, Canned(404, {}, b'{"error":"not found"}'))
            return
        _send(handler, Canned(200, {"rid": rid, "Content-Type": "text/plain"}, self.stored[rid]))

    def __enter__(self) -> FakeCrawlbase:
        self.site.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.site.stop()


def _send(handler: BaseHTTPRequestHandler, canned: Canned) -> None:
    if canned.delay_s:
        time.sleep(canned.delay_s)
    try:
        handler.send_response(canned.status)
        for name, value in (canned.headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(canned.body)))
        handler.end_headers()
        handler.wfile.write(canned.body)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up (timeouts): expected in tests


# --- the fixture origin site --------------------------------------------------------------

_NAV = '<nav><a href="/">Home</a> | <a href="/articles">Articles</a></nav>'
_FOOTER = "<footer><p>© 2026 Example Science Weekly.</p></footer>"

BOILING = f"""<!doctype html><html><head><title>The boiling point of water</title></head>
<body>{_NAV}<main><article><h1>The boiling point of water</h1>
<p>Water boils at 100 degrees Celsius at sea level. This is the standard boiling point, measured
at a pressure of one standard atmosphere (101.325 kilopascals).</p>
<p>At higher altitudes the air pressure is lower, so water boils at a lower temperature. In Denver,
about 1,600 metres above sea level, water boils at roughly 95 degrees Celsius.</p>
</article></main>{_FOOTER}</body></html>"""

# Readability keeps only the short article; the fact box (an aside) holds the evidence.
SIDEBAR = """<!doctype html><html><head><title>Ocean facts</title></head><body>
<article><h1>Oceans</h1><p>Our oceans page, updated weekly.</p></article>
<aside class="fact-box"><p>Fact one: the Pacific Ocean is the largest and deepest ocean on
Earth, covering about 165 million square kilometres of the planet's surface.</p>
<p>Fact two: the Atlantic Ocean is the second largest ocean and separates the Americas from
Europe and Africa.</p><p>Fact three: the Arctic Ocean is the smallest and shallowest of the
five oceans and is mostly covered by sea ice.</p></aside></body></html>"""

_SPA_ARTICLE = """<main><article><h1>Mount Everest</h1>
<p>Mount Everest is 8,849 metres tall according to the 2020 survey carried out jointly by China
and Nepal. It is the highest mountain on Earth above sea level.</p>
<p>The summit lies on the border between Nepal and the Tibet Autonomous Region of China, in the
Mahalangur Himal sub-range of the Himalayas.</p></article></main>"""

SPA = f"""<!doctype html><html><head><title>Everest</title></head><body><div id="root"></div>
<script type="text/x-fake-render">{_SPA_ARTICLE}</script></body></html>"""

THIN = """<!doctype html><html><head><title>Note</title></head><body>
<p>Short note: see the printed edition.</p></body></html>"""

SOFT_404 = f"""<!doctype html><html><head><title>Page not found</title></head><body>{_NAV}
<main><h1>Sorry, this page no longer exists</h1><p>The page you are looking for may have been
moved or deleted.</p></main>{_FOOTER}</body></html>"""

PDF = make_pdf(
    [
        "Annual Report on Glaciers",
        "",
        "Mount Everest is 8,849 metres tall according to the 2020 survey.",
        "The survey was carried out jointly by China and Nepal.",
    ]
)

HOME = f"""<!doctype html><html><head><title>Example Science Weekly</title></head><body>{_NAV}
<main><h1>Example Science Weekly</h1><p>Welcome. Browse our latest articles on physics,
chemistry and everyday science. New stories every week from our editors.</p></main>
{_FOOTER}</body></html>"""


def origin_routes() -> dict[str, Route]:
    """Path → page of the fixture origin site."""
    return {
        "/": Page(HOME),
        "/articles/boiling": Page(BOILING),
        "/articles/oceans": Page(SIDEBAR),
        "/app/everest": Page(SPA),
        "/notes/thin": Page(THIN),
        "/old/report": redirect("/"),
        "/moved/boiling": redirect("/articles/boiling"),
        "/missing": Page(SOFT_404),
        "/removed": Page("<html><body><h1>Gone</h1></body></html>", status=410),
        "/report.pdf": Page(PDF, content_type="application/pdf"),
        "/error": Page("<html><body>oops</body></html>", status=503),
    }


def origin_site() -> LoopbackSite:
    """The fixture origin site (not started)."""
    return LoopbackSite(origin_routes())


def cb_settings(fake: FakeCrawlbase, *, js: bool = True, **overrides: object) -> Settings:
    """Settings pointing the Crawlbase backend at ``fake``, with fast retries."""
    values: dict[str, object] = {
        "fetcher": "crawlbase",
        "crawlbase_token": SecretStr(NORMAL_TOKEN),
        "crawlbase_js_token": SecretStr(JS_TOKEN) if js else None,
        "crawlbase_api_url": fake.base_url,
        "crawlbase_backoff_s": 0.01,
        "crawlbase_timeout_s": 5.0,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]
