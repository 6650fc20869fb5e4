"""Pure ASGI middleware of the service: request limits (body size, API key) and the access
log / request metrics. Pure ASGI (not BaseHTTPMiddleware) so the stage-timing context variable
set here is the one the endpoint and its tasks see."""

from __future__ import annotations

import hmac
import json
import logging
import re
import time
import uuid
from collections.abc import Collection
from typing import Any

from pydantic import SecretStr
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citation_verifier.service.metrics import ServiceMetrics
from citation_verifier.service.stages import StageTimes, current_stage_times

access_log = logging.getLogger("citation_verifier.access")

KNOWN_ROUTES = frozenset(
    {
        "/",
        "/health",
        "/ready",
        "/verify",
        "/check-answer",
        "/promptfoo",
        "/metrics",
        "/openapi.json",
    }
)


def route_label(path: str) -> str:
    """A bounded metric label for ``path`` (unknown paths share one label)."""
    if path in KNOWN_ROUTES:
        return path
    return "/static" if path.startswith("/static/") else "other"


async def send_json(
    send: Send, status: int, body: dict[str, Any], headers: Collection[tuple[bytes, bytes]] = ()
) -> None:
    """Answer with a JSON body from inside middleware."""
    payload = json.dumps(body).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def bearer_matches(authorization: str | None, key: SecretStr) -> bool:
    """Whether ``authorization`` is ``Bearer <key>``; compared in constant time. An empty
    token never matches, whatever the key (settings refuse a blank key; this is the backstop)."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or not key.get_secret_value().strip():
        return False
    return hmac.compare_digest(
        token.strip().encode("utf-8"), key.get_secret_value().encode("utf-8")
    )


class BodyTooLarge(HTTPException):
    """The request body went past the configured cap while it was being read. An
    HTTPException, so the framework answers it as 413 rather than as a parse error."""

    def __init__(self, max_body_bytes: int) -> None:
        super().__init__(413, f"request body larger than {max_body_bytes} bytes")


class RequestLimits:
    """Refuses, before any parsing: bodies over ``max_body_bytes`` (413) and, when an API key is
    configured, protected paths without ``Authorization: Bearer <key>`` (401)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        api_key: SecretStr | None,
        protected_paths: Collection[str],
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.api_key = api_key
        self.protected_paths = frozenset(protected_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if (
            self.api_key is not None
            and scope["path"] in self.protected_paths
            and not bearer_matches(_header(scope, b"authorization"), self.api_key)
        ):
            await send_json(
                send,
                401,
                {"detail": "missing or wrong API key: send 'Authorization: Bearer <key>'"},
                [(b"www-authenticate", b"Bearer")],
            )
            return
        too_large = {"detail": f"request body larger than {self.max_body_bytes} bytes"}
        length = _header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body_bytes):
            await send_json(send, 413, too_large)
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise BodyTooLarge(self.max_body_bytes)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await send_json(send, 413, too_large)


# An incoming X-Request-ID (a proxy's or the client's) is kept when it is safe to log and echo.
_REQUEST_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")


def _incoming_request_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"x-request-id" and _REQUEST_ID.fullmatch(value.strip()):
            return str(value.strip().decode("ascii"))
    return None


class AccessLog:
    """One structured log line and the request metrics per HTTP request; sets the request's
    :class:`StageTimes` so the pipeline's timed seams report into this request's line."""

    def __init__(self, app: ASGIApp, *, metrics: ServiceMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming_request_id(scope) or uuid.uuid4().hex[:16]
        times = StageTimes()
        token = current_stage_times.set(times)
        status = 500  # what the client gets if the app raises before answering
        started = time.perf_counter()

        logged = False

        def record() -> None:
            # Called before the last body chunk goes out, so a client that has its answer can
            # already find the line and the metrics (and exactly once, even if the app raises).
            nonlocal logged
            if logged:
                return
            logged = True
            elapsed = time.perf_counter() - started
            route = route_label(scope["path"])
            self.metrics.requests.labels(
                method=scope["method"], route=route, status=str(status)
            ).inc()
            self.metrics.request_seconds.labels(route=route).observe(elapsed)
            access_log.info(
                json.dumps(
                    {
                        "event": "http_request",
                        "request_id": request_id,
                        "method": scope["method"],
                        "path": route,
                        "status": status,
                        "duration_ms": round(elapsed * 1000, 1),
                        "stages_ms": times.as_ms(),
                        **scope.get("state", {}).get("log_extra", {}),
                    },
                    separators=(",", ":"),
                )
            )

        async def logging_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {
                    **message,
                    "headers": [
                        *message.get("headers", []),
                        (b"x-request-id", request_id.encode()),
                    ],
                }
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                record()
            await send(message)

        try:
            await self.app(scope, receive, logging_send)
        finally:
            current_stage_times.reset(token)
            record()
