"""Shared machinery of the loopback LLM fakes (fake_openai, fake_anthropic, fake_ollama).

Each fake is a real HTTP server (citation_verifier.demo.loopback.LoopbackSite) that validates the
request the way the provider documents it, records every request, and answers with a scripted
action rendered in the provider's own wire format.
"""

from __future__ import annotations

import json
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Self

from citation_verifier.demo.loopback import LoopbackSite


@dataclass(frozen=True)
class Verdict:
    """Answer with this verdict object, well formed."""

    label: str
    evidence_quote: str | None
    confidence: float = 0.9


@dataclass(frozen=True)
class Text:
    """Answer 200 with this exact verdict text (e.g. malformed JSON); ``truncated`` marks the
    answer as cut off at the output-token limit, as the provider would."""

    text: str
    truncated: bool = False


@dataclass(frozen=True)
class Status:
    """Answer with an HTTP error status (provider error body) and headers."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "error"


@dataclass(frozen=True)
class RawBody:
    """Answer 200 with this exact HTTP body (not necessarily JSON)."""

    body: str


@dataclass(frozen=True)
class Slow:
    """Wait ``seconds`` before answering with ``then`` (to trigger client timeouts)."""

    seconds: float
    then: Verdict


Action = Verdict | Text | Status | RawBody | Slow
Responder = Callable[[dict[str, Any]], Action]

USAGE_IN, USAGE_OUT = 120, 30
"""Token counts every fake reports per successful answer."""

_PASSAGE = re.compile(r'<passage n="\d+">\n(.*?)\n</passage>', re.DOTALL)


def passages_in(user_text: str) -> list[str]:
    """The passage texts the judge fenced in its user message."""
    return _PASSAGE.findall(user_text)


class FakeLLM(ABC):
    """A provider fake: routes ``path``; a queue of actions, then ``default`` for every call."""

    path: str
    provider: str
    """The JUDGE_PROVIDER this fake stands in for."""

    def __init__(self, default: Responder | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.times: list[float] = []
        self.queue: list[Action] = []
        self.default: Responder = default or (lambda _body: Verdict("not_found", None, 0.5))
        self._lock = threading.Lock()
        self.site = LoopbackSite({self.path: self._handle})

    def __enter__(self) -> Self:
        self.site.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.site.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return self.site.base_url

    def reset(self) -> None:
        """Forget recorded requests and scripted actions (to reuse one server across tests)."""
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self.times.clear()
            self.queue.clear()

    def script(self, *actions: Action) -> None:
        """Answer the next calls with ``actions``, in order."""
        self.queue.extend(actions)

    @abstractmethod
    def validate(self, headers: dict[str, str], body: dict[str, Any]) -> Status | None:
        """A 4xx Status when the request breaks the provider's documented contract."""

    @abstractmethod
    def user_text(self, body: dict[str, Any]) -> str:
        """The user message text of a request."""

    @abstractmethod
    def render_success(self, body: dict[str, Any], text: str, truncated: bool) -> dict[str, Any]:
        """A 200 response body carrying ``text`` as the model output."""

    @abstractmethod
    def render_error(self, status: Status) -> dict[str, Any]:
        """The provider's error body."""

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        if handler.command != "POST":
            self._send(handler, 405, self.render_error(Status(405, message="use POST")))
            return
        length = int(handler.headers.get("Content-Length", "0"))
        raw = handler.rfile.read(length)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send(handler, 400, self.render_error(Status(400, message="invalid JSON body")))
            return
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.times.append(time.monotonic())
        problem = self.validate(headers, body)
        if problem is not None:
            self._send(handler, problem.status, self.render_error(problem))
            return
        with self._lock:
            action = self.queue.pop(0) if self.queue else self.default(body)
        self._answer(handler, body, action)

    def _answer(
        self, handler: BaseHTTPRequestHandler, body: dict[str, Any], action: Action
    ) -> None:
        if isinstance(action, Slow):
            time.sleep(action.seconds)
            action = action.then
        if isinstance(action, Verdict):
            text = json.dumps(
                {
                    "label": action.label,
                    "evidence_quote": action.evidence_quote,
                    "confidence": action.confidence,
                }
            )
            self._send(handler, 200, self.render_success(body, text, False))
        elif isinstance(action, Text):
            self._send(handler, 200, self.render_success(body, action.text, action.truncated))
        elif isinstance(action, RawBody):
            self._send_bytes(handler, 200, action.body.encode(), {})
        else:
            self._send(handler, action.status, self.render_error(action), action.headers)

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        payload: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send_bytes(handler, status, json.dumps(payload).encode(), headers or {})

    @staticmethod
    def _send_bytes(
        handler: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict[str, str]
    ) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out first: expected in timeout tests


def strict_schema_problems(schema: Any, where: str = "schema") -> list[str]:
    """OpenAI strict-mode rules: every object lists all its properties as required and sets
    additionalProperties false (applied recursively)."""
    problems: list[str] = []
    if not isinstance(schema, dict):
        return [f"{where} is not an object"]
    if schema.get("type") == "object":
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        if sorted(schema.get("required", [])) != sorted(props):
            problems.append(f"{where}: every property must be required")
        for name, sub in props.items():
            problems.extend(strict_schema_problems(sub, f"{where}.{name}"))
    return problems
