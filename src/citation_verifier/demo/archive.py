"""A loopback fake of the Internet Archive's Wayback Machine, speaking its wire format.

``/wayback/available?url=&timestamp=`` answers the availability API's JSON (the capture
closest in time, ``{"archived_snapshots": {}}`` when there is none); ``/web/<ts>id_/<url>``
replays a capture as recorded, ``/web/<ts>/<url>`` as the human-facing page (toolbar inserted,
links rewritten into the archive); a timestamp that is not a capture redirects (302) to the
nearest one, and a capture replays with its recorded status. Like the real archive, URLs are
matched without their scheme or a leading ``www.``. Tests script failures with
:meth:`FakeArchive.fail_next` and :attr:`FakeArchive.delay_s`, and count
:attr:`FakeArchive.requests`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from urllib.parse import parse_qsl, urlsplit

from citation_verifier.demo.loopback import LoopbackSite

_WEB_PATH = re.compile(r"^/web/(\d{1,14})([a-z]{2}_)?/(.+)$", re.S)
_BODY_TAG = re.compile(rb"<body\b[^>]*>", re.I)
_LINK = re.compile(rb"""\b(href|src|action)=(["'])((?:https?:)?//[^"']*|/[^/"'][^"']*|/)\2""", re.I)
_PAD = "00000101000000"
"""Completes a timestamp prefix (``2013`` → 2013-01-01 00:00:00)."""


@dataclass(frozen=True)
class _Capture:
    original: str
    timestamp: str
    body: bytes
    status: int
    content_type: str

    @property
    def at(self) -> datetime:
        return _moment(self.timestamp)


@dataclass(frozen=True)
class _Reply:
    status: int
    body: bytes = b""
    content_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


def _moment(stamp: str) -> datetime:
    return datetime.strptime(stamp + _PAD[len(stamp) :], "%Y%m%d%H%M%S").replace(tzinfo=UTC)


def _key(url: str) -> str:
    """How the archive matches URLs: no scheme, lower-case host without ``www.``."""
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = f":{parts.port}" if parts.port else ""
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{port}{parts.path or '/'}{query}"


class FakeArchive:
    """The fake Wayback Machine on a :class:`LoopbackSite`; :attr:`base_url` is ARCHIVE_URL."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._captures: dict[str, list[_Capture]] = {}
        self._failures: list[_Reply] = []
        self.delay_s = 0.0
        """Seconds every answer waits (a slow archive)."""
        self.requests: list[str] = []
        """Every request received: path with query, in order."""
        self.site = LoopbackSite({"/wayback/available": self._available}, fallback=self._web)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: where ARCHIVE_URL points."""
        return self.site.base_url

    def add(
        self,
        original_url: str,
        timestamp: str,
        body: str | bytes,
        status: int = 200,
        content_type: str = "text/html; charset=utf-8",
    ) -> FakeArchive:
        """Record a capture of ``original_url`` at ``timestamp`` (14 digits, UTC)."""
        if not re.fullmatch(r"\d{14}", timestamp):
            raise ValueError(f"a capture timestamp has 14 digits, got {timestamp!r}")
        data = body.encode("utf-8") if isinstance(body, str) else body
        capture = _Capture(original_url, timestamp, data, status, content_type)
        with self._lock:
            captures = self._captures.setdefault(_key(original_url), [])
            captures.append(capture)
            captures.sort(key=lambda c: c.timestamp)
        return self

    def fail_next(
        self,
        status: int,
        retry_after: str | None = None,
        times: int = 1,
        *,
        body: str | bytes = b"",
    ) -> None:
        """Answer the next ``times`` requests (any path) with ``status`` instead, with a
        ``Retry-After`` header when given; ``body`` scripts e.g. invalid JSON under a 200."""
        headers = () if retry_after is None else (("Retry-After", retry_after),)
        data = body.encode("utf-8") if isinstance(body, str) else body
        reply = _Reply(status, data, "text/html; charset=utf-8" if data else None, headers)
        with self._lock:
            self._failures.extend([reply] * times)

    def reset(self) -> FakeArchive:
        """Forget captures, scripted failures, the delay and the request log (reuse one
        server across tests)."""
        with self._lock:
            self._captures.clear()
            self._failures.clear()
            self.requests.clear()
            self.delay_s = 0.0
        return self

    def start(self) -> FakeArchive:
        """Start serving in a daemon thread."""
        self.site.start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        self.site.stop()

    def __enter__(self) -> FakeArchive:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _scripted(self, handler: BaseHTTPRequestHandler) -> _Reply | None:
        """Log the request; the scripted failure to answer it with, if any."""
        with self._lock:
            self.requests.append(handler.path)
            delay = self.delay_s
            failure = self._failures.pop(0) if self._failures else None
        if delay:
            time.sleep(delay)
        return failure

    def _closest(self, original: str, stamp: str | None) -> _Capture | None:
        with self._lock:
            captures = list(self._captures.get(_key(original), ()))
        if not captures:
            return None
        try:
            target = _moment(stamp) if stamp else None
        except ValueError:
            target = None  # not a date: the archive then answers the latest capture
        if target is None:
            return captures[-1]
        # Ties go to the earlier capture (captures are sorted by time).
        return min(captures, key=lambda c: abs((c.at - target).total_seconds()))

    def _available(self, handler: BaseHTTPRequestHandler) -> None:
        failure = self._scripted(handler)
        if failure is not None:
            _reply(handler, failure)
            return
        params = dict(parse_qsl(urlsplit(handler.path).query, keep_blank_values=True))
        url = params.get("url", "")
        stamp = params.get("timestamp") or None
        if stamp is not None and not re.fullmatch(r"\d{1,14}", stamp):
            stamp = None
        answer: dict[str, object] = {"url": url}
        if stamp is not None:
            answer["timestamp"] = stamp
        capture = self._closest(url, stamp) if url else None
        snapshots: dict[str, object] = {}
        if capture is not None:
            snapshots["closest"] = {
                "status": str(capture.status),
                "available": True,
                "url": f"{self.base_url}/web/{capture.timestamp}/{capture.original}",
                "timestamp": capture.timestamp,
            }
        answer["archived_snapshots"] = snapshots
        _reply(handler, _Reply(200, json.dumps(answer).encode(), "application/json"))

    def _web(self, handler: BaseHTTPRequestHandler) -> None:
        failure = self._scripted(handler)
        if failure is not None:
            _reply(handler, failure)
            return
        match = _WEB_PATH.match(handler.path)
        if match is None:
            _reply(handler, _not_found("Not Found"))
            return
        stamp, modifier, original = match.groups()
        # Proxies collapse the ``//`` of the embedded URL; the archive accepts either.
        original = re.sub(r"^(https?):/(?!/)", r"\1://", original)
        capture = self._closest(original, stamp)
        if capture is None:
            _reply(handler, _not_found("The Wayback Machine has not archived that URL."))
            return
        if stamp != capture.timestamp:
            location = f"{self.base_url}/web/{capture.timestamp}{modifier or ''}/{capture.original}"
            _reply(handler, _Reply(302, headers=(("Location", location),)))
            return
        body = capture.body
        if modifier != "id_" and capture.content_type.lower().startswith("text/html"):
            body = self._toolbar(capture)
        memento = ("Memento-Datetime", format_datetime(capture.at, usegmt=True))
        _reply(handler, _Reply(capture.status, body, capture.content_type, (memento,)))

    def _toolbar(self, capture: _Capture) -> bytes:
        """The human-facing replay: links into the archive, the toolbar after ``<body>``."""
        prefix = f"/web/{capture.timestamp}/".encode()
        parts = urlsplit(capture.original)
        origin = f"{parts.scheme or 'http'}://{parts.netloc}".encode()

        def rewrite(link: re.Match[bytes]) -> bytes:
            attr, quote, target = link.groups()
            if target.startswith(b"//"):
                target = (parts.scheme or "http").encode() + b":" + target
            elif target.startswith(b"/"):
                target = origin + target
            return attr + b"=" + quote + prefix + target + quote

        html = _LINK.sub(rewrite, capture.body)
        replay = f"{self.base_url}/web/{capture.timestamp}/{capture.original}"
        toolbar = (
            "\n<!-- BEGIN WAYBACK TOOLBAR INSERT -->\n"
            f'<div id="wm-ipp-base" lang="en">The Wayback Machine - {replay}</div>\n'
            "<!-- END WAYBACK TOOLBAR INSERT -->\n"
        ).encode()
        body_tag = _BODY_TAG.search(html)
        if body_tag is None:
            return toolbar + html
        return html[: body_tag.end()] + toolbar + html[body_tag.end() :]


def _not_found(message: str) -> _Reply:
    body = f"<html><body><p>{message}</p></body></html>".encode()
    return _Reply(404, body, "text/html; charset=utf-8")


def _reply(handler: BaseHTTPRequestHandler, reply: _Reply) -> None:
    try:
        handler.send_response(reply.status)
        if reply.content_type:
            handler.send_header("Content-Type", reply.content_type)
        for name, value in reply.headers:
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(reply.body)))
        handler.end_headers()
        handler.wfile.write(reply.body)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up (timeouts): expected in tests
