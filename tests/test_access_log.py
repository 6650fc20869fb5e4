"""The access log middleware: its line is written before the client has the whole answer."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from starlette.types import Message, Receive, Scope, Send

from citation_verifier.service.metrics import ServiceMetrics
from citation_verifier.service.middleware import AccessLog

SCOPE: Scope = {"type": "http", "method": "POST", "path": "/verify", "headers": []}


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def _access_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [
        json.loads(r.getMessage()) for r in caplog.records if r.name == "citation_verifier.access"
    ]


def test_the_line_is_logged_before_the_last_body_chunk_reaches_the_client(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="citation_verifier.access")
    lines_when_sent: list[int] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{", "more_body": True})
        await send({"type": "http.response.body", "body": b"}"})

    async def client(message: Message) -> None:
        lines_when_sent.append(len(_access_lines(caplog)))

    asyncio.run(AccessLog(app, metrics=ServiceMetrics())(dict(SCOPE), _no_body, client))
    assert lines_when_sent == [0, 0, 1]
    assert len(_access_lines(caplog)) == 1


def test_an_app_that_raises_is_logged_once_as_a_500(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="citation_verifier.access")

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("boom")

    async def client(message: Message) -> None:
        raise AssertionError("nothing is sent")

    with pytest.raises(RuntimeError):
        asyncio.run(AccessLog(app, metrics=ServiceMetrics())(dict(SCOPE), _no_body, client))
    [line] = _access_lines(caplog)
    assert (line["path"], line["status"]) == ("/verify", 500)
