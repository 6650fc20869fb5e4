"""A small real HTTP server on 127.0.0.1 serving a fixed set of pages.

Used by the demo site, the test suite, benchmarks and ``eval --via-http``: pages are served
over real sockets, so the fetcher runs exactly as it does against the web.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Page:
    """One response: status, body, headers and an optional delay before answering."""

    body: bytes | str = b""
    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Seconds to wait before sending the response."""


def redirect(location: str, status: int = 301) -> Page:
    """A redirect response to ``location``."""
    return Page(status=status, content_type=None, headers={"Location": location})


Handler = Callable[[BaseHTTPRequestHandler], None]
Route = Page | Handler


class LoopbackSite:
    """Serves ``routes`` (path → Page or handler) on 127.0.0.1 at a free port, in a thread.

    Unknown paths answer 404, or ``fallback`` when given (fakes whose paths embed data, such
    as the Wayback Machine's ``/web/<timestamp>/<url>``). Use as a context manager, or call
    :meth:`start`/:meth:`stop`.
    """

    def __init__(
        self,
        routes: Mapping[str, Route],
        host: str = "127.0.0.1",
        *,
        fallback: Route | None = None,
    ) -> None:
        self.routes: dict[str, Route] = dict(routes)
        self.fallback = fallback
        self.hits: dict[str, int] = {}
        self._hits_lock = threading.Lock()
        site = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                with site._hits_lock:
                    site.hits[path] = site.hits.get(path, 0) + 1
                route = site.routes.get(path, site.fallback)
                if route is None:
                    _send(self, Page("<html><body><h1>Not Found</h1></body></html>", status=404))
                elif isinstance(route, Page):
                    _send(self, route)
                else:
                    route(self)

            def do_POST(self) -> None:
                # Same routing as GET: fake APIs (LLM providers) are handler callables that
                # read the request body themselves.
                self.do_GET()

        self._server = ThreadingHTTPServer((host, 0), _Handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, without a trailing slash."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def url(self, path: str) -> str:
        """Absolute URL of ``path`` on this site."""
        return self.base_url + path

    def start(self) -> LoopbackSite:
        """Start serving in a daemon thread."""
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackSite:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _send(handler: BaseHTTPRequestHandler, page: Page) -> None:
    if page.delay_s:
        time.sleep(page.delay_s)
    body = page.body.encode("utf-8") if isinstance(page.body, str) else page.body
    try:
        handler.send_response(page.status)
        if page.content_type:
            handler.send_header("Content-Type", page.content_type)
        for name, value in page.headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up (timeouts, size caps): expected in tests
