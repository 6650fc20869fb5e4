"""`citation-verifier mcp` as MCP clients run it: a real process driven by the SDK's own
client, over stdio and over the streamable HTTP transport, verifying loopback pages."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.demo.site import (
    answer_routes,
    attributed_answer,
    demo_routes,
    example_answer,
)
from citation_verifier.terminal import ExitCode

WATER_100 = "Water boils at 100 degrees Celsius at sea level."
# Loopback pages may be fetched (tests serve them on 127.0.0.1); no audit trail unless asked.
SERVER_ENV = {"ALLOW_PRIVATE_URLS": "true", "AUDIT_ENABLED": "false", "FETCH_TIMEOUT_S": "5"}


def _server_env(**env: str) -> dict[str, str]:
    # The whole test environment (CACHE_DIR, JUDGE_PROVIDER=lexical from conftest) goes along.
    return {**os.environ, **SERVER_ENV, **env}


class Transcript:
    """What reached the client besides answers: transport errors (a line on stdout that is
    not a protocol message would be one) and progress notifications."""

    def __init__(self) -> None:
        self.errors: list[Exception] = []
        self.progress: list[tuple[float, float | None, str | None]] = []

    async def message(self, message: Any) -> None:
        """The session's message handler."""
        if isinstance(message, Exception):
            self.errors.append(message)

    async def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """A call's progress callback."""
        self.progress.append((progress, total, message))


@asynccontextmanager
async def stdio_session(
    errlog: Path, transcript: Transcript, **env: str
) -> AsyncIterator[ClientSession]:
    """An initialised session with ``citation-verifier mcp`` started over stdio."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "citation_verifier", "mcp"], env=_server_env(**env)
    )
    with errlog.open("a", encoding="utf-8") as stderr:
        async with (
            stdio_client(params, errlog=stderr) as (read, write),
            ClientSession(read, write, message_handler=transcript.message) as session,
        ):
            await session.initialize()
            yield session


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


@pytest.fixture
def site(serve: Callable[[Mapping[str, Route]], LoopbackSite]) -> LoopbackSite:
    """The demo site: a page saying WATER_100, and a 404 at /old-report."""
    return serve(demo_routes())


async def test_lists_both_tools_with_described_input_and_output_schemas(tmp_path: Path) -> None:
    transcript = Transcript()
    async with stdio_session(tmp_path / "stderr.log", transcript) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == {"verify_claim", "check_answer"}
    verify, check = tools["verify_claim"], tools["check_answer"]
    assert verify.description and "supported" in verify.description
    assert check.description and "citation_precision" in check.description
    assert verify.input_schema["required"] == ["claim", "urls"]
    assert check.input_schema["required"] == ["answer"]
    for tool in (verify, check):
        properties = tool.input_schema["properties"]
        assert all(field.get("description") for field in properties.values())
        assert tool.output_schema is not None
        assert tool.annotations is not None and tool.annotations.read_only_hint
    # The output schemas are the API's response models, computed judge totals included.
    assert verify.output_schema is not None and check.output_schema is not None
    assert {"claim", "overall", "citations", "judge_cost_usd"} <= set(
        verify.output_schema["properties"]
    )
    assert {"statements", "citation_precision", "uncited"} <= set(check.output_schema["properties"])
    assert transcript.errors == []


async def test_verify_claim_returns_the_verify_shape_and_reports_progress(
    tmp_path: Path, site: LoopbackSite
) -> None:
    transcript = Transcript()
    urls = [site.url("/articles/water-boiling-point"), site.url("/old-report")]
    # As users run it: the audit trail on (its store under tmp_path), which must keep quiet.
    audit = {"AUDIT_ENABLED": "true", "CACHE_DIR": str(tmp_path / "cache")}
    async with stdio_session(tmp_path / "stderr.log", transcript, **audit) as session:
        await session.list_tools()  # the client checks structured results against the schema
        result = await session.call_tool(
            "verify_claim",
            {"claim": WATER_100, "urls": urls},
            progress_callback=transcript.on_progress,
        )
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert isinstance(body, dict)
    assert body["claim"] == WATER_100
    assert body["overall"] == "supported"
    assert [c["url"] for c in body["citations"]] == urls
    assert [c["label"] for c in body["citations"]] == ["supported", "unreachable"]
    assert [c["reason"] for c in body["citations"]] == [None, "http_404"]
    assert body["citations"][0]["evidence_quote"]
    assert "judge_input_tokens" in body  # the /verify response's computed totals
    assert all(c["audit_id"] for c in body["citations"])
    assert (tmp_path / "cache" / "audit.db").is_file()
    # One step per page loaded and per page judged, counted up to the announced total.
    assert transcript.progress, "no progress notification arrived"
    assert [p for p, _, _ in transcript.progress] == [1, 2, 3, 4]
    assert {total for _, total, _ in transcript.progress} == {4}
    assert any(m and m.startswith("judged ") for _, _, m in transcript.progress)
    assert transcript.errors == []  # nothing but protocol messages on the server's stdout


async def test_check_answer_reports_statements_and_citation_precision(
    tmp_path: Path, site: LoopbackSite
) -> None:
    transcript = Transcript()
    answer = f"{WATER_100[:-1]} [1]. The old report said it boils at 90 degrees [2]. Tea is nice."
    citations = [site.url("/articles/water-boiling-point"), site.url("/old-report")]
    async with stdio_session(tmp_path / "stderr.log", transcript) as session:
        await session.list_tools()
        result = await session.call_tool(
            "check_answer",
            {"answer": answer, "citations": citations},
            progress_callback=transcript.on_progress,
        )
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert isinstance(body, dict)
    statements = body["statements"]
    assert [s["overall"] for s in statements] == ["supported", "unreachable", "uncited"]
    assert statements[0]["claim"] == WATER_100
    assert [[m["text"] for m in s["markers"]] for s in statements] == [["[1]"], ["[2]"], []]
    assert [[c["url"] for c in s["citations"]] for s in statements] == [
        citations[:1],
        citations[1:],
        [],
    ]
    assert body["citation_precision"] == 0.5
    assert (body["citations"], body["supported_citations"], body["unique_urls"]) == (2, 1, 2)
    assert (body["supported"], body["unreachable"], body["uncited"]) == (1, 1, 1)
    assert transcript.progress and transcript.progress[-1][:2] == (4, 4)


async def test_check_answer_reports_facts_misattribution_and_liu_figures(
    tmp_path: Path, serve: Callable[[Mapping[str, Route]], LoopbackSite]
) -> None:
    pages = serve(answer_routes())
    errlog = tmp_path / "stderr.log"
    async with stdio_session(errlog, Transcript(), JUDGE_PROVIDER="checker") as session:
        result = await session.call_tool(
            "check_answer", {"answer": attributed_answer(pages.base_url)}
        )
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert isinstance(body, dict)
    assert [s["overall"] for s in body["statements"]] == ["supported", "not_found", "supported"]
    assert [m["source"] for m in body["statements"][1]["misattributed"]] == ["[1]"]
    assert (body["citation_recall"], body["citation_precision_liu"]) == (2 / 3, 0.75)


async def test_check_answer_gives_the_issue_example_its_four_labels(
    tmp_path: Path, site: LoopbackSite
) -> None:
    async with stdio_session(tmp_path / "stderr.log", Transcript()) as session:
        result = await session.call_tool("check_answer", {"answer": example_answer(site.base_url)})
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert isinstance(body, dict)
    assert [s["overall"] for s in body["statements"]] == [
        "supported",
        "supported",
        "uncited",
        "contradicted",
    ]
    assert body["citation_precision"] == 0.5


async def test_verify_claim_marks_a_verdict_under_review_below_with_its_reason(
    tmp_path: Path, site: LoopbackSite
) -> None:
    water, dead = site.url("/articles/water-boiling-point"), site.url("/old-report")
    claim = "Water boils at 50 degrees Celsius at sea level."
    log = tmp_path / "stderr.log"
    async with stdio_session(log, Transcript(), REVIEW_BELOW="1.0") as session:
        await session.list_tools()  # the client checks structured results against the schema
        result = await session.call_tool("verify_claim", {"claim": claim, "urls": [water, dead]})
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert isinstance(body, dict)
    judged, unread = body["citations"]
    assert judged["label"] == "contradicted" and judged["needs_review"] is True
    assert judged["review_reason"].endswith(
        f"(confidence {judged['confidence']:.2f} < REVIEW_BELOW 1)"
    )
    assert (unread["needs_review"], unread["review_reason"]) == (False, None)
    assert body["needs_review"] is True
    async with stdio_session(log, Transcript(), REVIEW_BELOW="0") as session:
        result = await session.call_tool("verify_claim", {"claim": claim, "urls": [water]})
    body = result.structured_content
    assert isinstance(body, dict)
    assert body["needs_review"] is False and body["citations"][0]["review_reason"] is None


async def test_bad_arguments_are_tool_errors_and_the_server_keeps_answering(
    tmp_path: Path, site: LoopbackSite
) -> None:
    transcript = Transcript()
    errlog = tmp_path / "stderr.log"
    page = site.url("/articles/water-boiling-point")
    bad_calls: list[tuple[str, dict[str, Any], str]] = [
        ("verify_claim", {"claim": WATER_100, "urls": ["not a url"]}, "not an http(s) URL"),
        ("verify_claim", {"claim": "   ", "urls": [page]}, "claim must not be blank"),
        ("verify_claim", {"claim": WATER_100, "urls": [page] * 3}, "urls: at most 2 URLs"),
        ("verify_claim", {"claim": "x" * 101, "urls": [page]}, "claim: at most 100 characters"),
        ("verify_claim", {"claim": WATER_100}, "urls"),  # missing: the SDK's own check
        ("check_answer", {"answer": "y" * 301}, "answer: at most 300 characters"),
        ("check_answer", {"answer": " \n "}, "answer must not be blank"),
        (
            "check_answer",
            {
                "answer": "Water boils at 100 degrees [1]. Ice melts at zero [2]. Steam is hot [3].",
                "citations": [page + "?1", page + "?2", page],
            },
            "answer: cites 3 URLs; at most 2",
        ),
    ]
    limits = {
        "SERVICE_MAX_URLS": "2",
        "SERVICE_MAX_CLAIM_CHARS": "100",
        "SERVICE_MAX_ANSWER_CHARS": "300",
    }
    async with stdio_session(errlog, transcript, **limits) as session:
        for name, arguments, message in bad_calls:
            result = await session.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            assert message in _text(result), _text(result)
        good = await session.call_tool("verify_claim", {"claim": WATER_100, "urls": [page]})
    assert not good.is_error, _text(good)
    assert isinstance(good.structured_content, dict)
    assert good.structured_content["overall"] == "supported"
    assert "Traceback" not in errlog.read_text(encoding="utf-8")
    assert transcript.errors == []


async def test_every_bad_argument_gets_one_tidy_message_naming_it(tmp_path: Path) -> None:
    # Refused by the SDK's check of the signature (missing, wrong type) or by ours (empty,
    # not a URL): the same format, never pydantic's dump or its documentation URL.
    transcript = Transcript()
    urls = "give the http(s) URLs cited for the claim, as a list"
    bad_calls: list[tuple[str, dict[str, Any], str]] = [
        ("verify_claim", {"claim": WATER_100}, f"urls: missing; {urls}"),
        (
            "verify_claim",
            {"claim": WATER_100, "urls": "https://e.com/"},
            f"urls: not a list; {urls}",
        ),
        ("verify_claim", {"urls": ["https://e.com/"]}, "claim: missing; give the claim to check"),
        ("verify_claim", {"claim": 5, "urls": ["https://e.com/"]}, "claim: not text"),
        ("verify_claim", {"claim": "", "urls": ["https://e.com/"]}, "claim: empty"),
        ("verify_claim", {"claim": WATER_100, "urls": []}, "urls: empty; give at least one URL"),
        (
            "verify_claim",
            {"claim": WATER_100, "urls": [7]},
            "urls.0: not text; give an http(s) URL",
        ),
        ("verify_claim", {"claim": WATER_100, "urls": ["x"]}, "urls: not an http(s) URL: 'x'"),
        (
            "verify_claim",
            {"claim": WATER_100, "urls": ["https://e.com/"], "compare_archive": "maybe"},
            "compare_archive: not true or false",
        ),
        ("check_answer", {}, "answer: missing; give the answer to check"),
        (
            "check_answer",
            {"answer": "a [1]", "citations": "https://e.com/"},
            "citations: not a list",
        ),
    ]
    async with stdio_session(tmp_path / "stderr.log", transcript) as session:
        for name, arguments, message in bad_calls:
            result = await session.call_tool(name, arguments)
            text = _text(result)
            assert result.is_error, (name, arguments)
            assert text.startswith(f"Error executing tool {name}: invalid arguments: "), text
            assert message in text, text
            assert "pydantic" not in text and "validation error" not in text, text
            assert "Input should" not in text and "Field required" not in text, text
    assert transcript.errors == []


async def test_a_judge_configuration_error_is_a_tool_error_naming_the_variable(
    tmp_path: Path, site: LoopbackSite
) -> None:
    transcript = Transcript()
    env = {"JUDGE_PROVIDER": "openai", "OPENAI_API_KEY": ""}
    page = site.url("/articles/water-boiling-point")
    async with stdio_session(tmp_path / "stderr.log", transcript, **env) as session:
        first = await session.call_tool("verify_claim", {"claim": WATER_100, "urls": [page]})
        second = await session.call_tool("check_answer", {"answer": f"{WATER_100} {page}"})
    for result in (first, second):
        assert result.is_error
        assert "server not ready" in _text(result) and "OPENAI_API_KEY" in _text(result)


# --- the streamable HTTP transport ---------------------------------------------------------


def _stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
    return stderr


@pytest.fixture
def http_server() -> Iterator[Callable[..., str]]:
    """Start ``citation-verifier mcp --http`` on a free port; returns its endpoint URL."""
    processes: list[subprocess.Popen[str]] = []

    def start(**env: str) -> str:
        process = subprocess.Popen(
            [sys.executable, "-m", "citation_verifier", "mcp", "--http", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_server_env(**env),
        )
        processes.append(process)
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"listening on (http://\S+/mcp)$", line.strip())
        assert match, f"no URL printed: {line!r}"
        return match.group(1)

    yield start
    for process in processes:
        if process.poll() is None:
            _stop(process)


async def test_http_transport_needs_the_key_and_answers_with_the_bearer(
    http_server: Callable[..., str], site: LoopbackSite
) -> None:
    url = http_server(SERVICE_API_KEY="mcp-secret")
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30) as plain:
        refused = await plain.post(url, json=initialize, headers=headers)
        wrong = await plain.post(
            url, json=initialize, headers={**headers, "Authorization": "Bearer nope"}
        )
    assert refused.status_code == 401 and wrong.status_code == 401
    assert refused.headers["www-authenticate"] == "Bearer"

    transcript = Transcript()
    page = site.url("/articles/water-boiling-point")
    auth = {"Authorization": "Bearer mcp-secret"}
    async with (
        httpx2.AsyncClient(headers=auth, timeout=60) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write, message_handler=transcript.message) as session,
    ):
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        result = await session.call_tool(
            "verify_claim",
            {"claim": WATER_100, "urls": [page]},
            progress_callback=transcript.on_progress,
        )
    assert names == {"verify_claim", "check_answer"}
    assert not result.is_error, _text(result)
    assert isinstance(result.structured_content, dict)
    assert result.structured_content["overall"] == "supported"
    assert [p for p, _, _ in transcript.progress] == [1, 2]


def test_http_transport_reports_a_port_it_cannot_use(http_server: Callable[..., str]) -> None:
    port = http_server().rsplit(":", 1)[1].split("/")[0]
    second = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "mcp", "--http", "--port", port],
        capture_output=True,
        text=True,
        env=_server_env(),
        timeout=60,
    )
    assert second.returncode == ExitCode.INPUT
    assert f"cannot listen on 127.0.0.1:{port}" in second.stderr
    assert "Traceback" not in second.stderr
