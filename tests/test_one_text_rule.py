"""One rule for the text users send, on every surface: UTF-8 (a UTF-8 byte-order mark is
dropped), anything else refused with the byte and its offset, never judged as mojibake; an
unpaired surrogate (a JSON ``\\ud800`` escape) refused by name. CLI files and standard input,
command-line arguments, batch JSONL lines, the HTTP API and MCP over stdio."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from typer.testing import CliRunner

from citation_verifier.batch.records import read_input
from citation_verifier.cli import app
from citation_verifier.mcp_server.stdin import marked_line
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from citation_verifier.terminal import ExitCode
from citation_verifier.utf8 import decode_utf8, text_problem

LATIN1 = "Le café est une boisson très populaire [1].\n\n[1] http://127.0.0.1:9/cafe\n"
HINT = "convert it with iconv -f latin1 -t utf-8"


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def test_check_answer_refuses_a_latin1_file_naming_the_byte_and_offset(tmp_path: Path) -> None:
    answer = tmp_path / "latin1.md"
    answer.write_bytes(LATIN1.encode("latin-1"))
    done = CliRunner().invoke(app, ["check-answer", str(answer)])
    assert done.exit_code == ExitCode.INPUT
    assert _error_lines(done.stderr) == [
        f"error: {answer} is not UTF-8 text (invalid byte 0xE9 at offset 6); {HINT}"
    ]
    assert done.stdout == ""  # nothing judged


def test_check_answer_refuses_latin1_on_standard_input() -> None:
    done = CliRunner().invoke(app, ["check-answer", "-"], input=LATIN1.encode("latin-1"))
    assert done.exit_code == ExitCode.INPUT
    assert _error_lines(done.stderr) == [
        f"error: standard input is not UTF-8 text (invalid byte 0xE9 at offset 6); {HINT}"
    ]


def test_check_answer_accepts_utf8_with_a_byte_order_mark(tmp_path: Path) -> None:
    answer = tmp_path / "bom.md"
    answer.write_bytes(b"\xef\xbb\xbf" + "Le café est une boisson.".encode())
    done = CliRunner().invoke(app, ["check-answer", str(answer)])
    assert done.exit_code == 0, done.output
    assert "1. uncited  Le café est une boisson." in done.stdout


def test_verify_refuses_an_argument_that_is_not_utf8() -> None:
    # What Python makes of argv bytes that are not UTF-8 (surrogateescape): b"caf\xe9".
    done = CliRunner().invoke(app, ["verify", "Le caf\udce9 est bon.", "http://127.0.0.1:9/"])
    assert done.exit_code == ExitCode.INPUT
    assert _error_lines(done.stderr) == [
        "error: claim: not UTF-8 text (invalid byte 0xE9 at offset 6)"
    ]


def test_a_batch_line_that_is_not_utf8_is_an_error_of_its_own(tmp_path: Path) -> None:
    first = json.dumps({"id": "a", "claim": "Coffee is popular.", "urls": ["http://h.test/a"]})
    bad = json.dumps(
        {"id": "b", "claim": "Le café.", "urls": ["http://h.test/b"]}, ensure_ascii=False
    )
    last = json.dumps({"id": "c", "claim": "Tea is popular.", "urls": ["http://h.test/c"]})
    data = b"\xef\xbb\xbf" + (first + "\n").encode() + (bad + "\n").encode("latin-1")
    data += (last + "\n").encode()
    path = tmp_path / "in.jsonl"
    path.write_bytes(data)
    batch = read_input(path, Settings())
    assert [c.record_id for c in batch.citations] == ["a", "c"]  # the BOM line is fine
    offset = 3 + len(first) + 1 + bad.encode("latin-1").index(b"\xe9")
    assert [(e.line, e.error) for e in batch.errors] == [
        (2, f"not UTF-8 text (invalid byte 0xE9 at offset {offset}); {HINT}")
    ]


def test_a_batch_line_with_an_unpaired_surrogate_escape_is_named(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": "x", "claim": "a\\ud800b", "urls": ["http://h.test/"]}\n')
    batch = read_input(path, Settings())
    assert batch.citations == []
    assert batch.errors[0].error == (
        "claim: not Unicode text (an unpaired surrogate \\ud800 at character 1)"
    )


@pytest.fixture
def service(embedder: MiniLMEmbedder) -> Iterator[BackgroundServer]:
    settings = Settings(allow_private_urls=True, fetch_timeout_s=2.0)
    with BackgroundServer(create_app(settings, embedder=embedder)) as server:
        yield server


def test_the_api_refuses_a_body_that_is_not_utf8_naming_the_byte(
    service: BackgroundServer,
) -> None:
    body = '{"claim": "Le café", "urls": ["http://127.0.0.1:9/"]}'.encode("latin-1")
    response = httpx.post(
        service.url + "/verify", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    offset = body.index(b"\xe9")
    assert response.json()["detail"] == (
        f"invalid request: the body is not UTF-8 text (invalid byte 0xE9 at offset {offset})"
    )


def test_the_api_refuses_an_unpaired_surrogate_by_name(service: BackgroundServer) -> None:
    body = '{"answer": "x\\udc00 [1]", "citations": ["http://127.0.0.1:9/"]}'
    response = httpx.post(
        service.url + "/check-answer", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert (
        "answer: not Unicode text (an unpaired surrogate \\udc00 at character 1)"
        in (response.json()["detail"])
    )


def test_mcp_over_stdio_refuses_bytes_and_escapes_that_are_not_text() -> None:
    env = {**os.environ, "AUDIT_ENABLED": "false"}
    server = subprocess.Popen(
        [sys.executable, "-m", "citation_verifier", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "test", "version": "1"}
        _send(server.stdin, _call(1, "initialize", hello))
        assert json.loads(_answer(server.stdout))["id"] == 1
        _send(server.stdin, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        latin1 = _tool_call(2, "Le café.").encode().replace("é".encode(), b"\xe9")
        server.stdin.write(latin1 + b"\n")
        server.stdin.flush()
        first = json.loads(_answer(server.stdout))
        assert first["result"]["isError"]
        assert "claim: not UTF-8 text (invalid byte 0xE9 at offset 6)" in str(first)
        _send(server.stdin, _tool_call(3, "PLACEHOLDER").replace("PLACEHOLDER", "a\\ud800"))
        second = json.loads(_answer(server.stdout))
        assert second["id"] == 3 and second["result"]["isError"]
        assert "unpaired surrogate" in str(second)
    finally:
        server.stdin.close()
        server.wait(timeout=30)


def _call(number: int, method: str, params: dict[str, Any]) -> str:
    message = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
    return json.dumps(message, ensure_ascii=False)


def _tool_call(number: int, claim: str) -> str:
    arguments = {"claim": claim, "urls": ["http://127.0.0.1:9/"]}
    return _call(number, "tools/call", {"name": "verify_claim", "arguments": arguments})


def _send(stream: IO[bytes], line: str) -> None:
    stream.write(line.encode() + b"\n")
    stream.flush()


def _answer(stream: IO[bytes], timeout_s: float = 60) -> bytes:
    ready, _, _ = select.select([stream], [], [], timeout_s)
    assert ready, "no answer from the MCP server"
    return stream.readline()


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ('"a\\ud83d\\ude00b"', True),  # a proper pair stays
        ('"a\\\\ud800"', True),  # an escaped backslash, then text
        ('"\\u00e9"', True),
    ],
)
def test_mcp_stdin_marks_only_unpaired_surrogate_escapes(line: str, kept: bool) -> None:
    assert (marked_line(line) == line) is kept


@pytest.mark.parametrize("line", ['"\\ud800"', '"\\udc00\\ud800"', '"\\ud800\\u0041"'])
def test_mcp_stdin_marks_become_named_problems(line: str) -> None:
    text = json.loads(marked_line(line))
    problem = text_problem(text)
    assert problem is not None and "unpaired surrogate" in problem


def test_decoding_names_the_first_byte_that_is_not_utf8() -> None:
    assert decode_utf8(b"\xef\xbb\xbfok", "f") == "ok"
    with pytest.raises(ValueError, match=r"^f is not UTF-8 text \(invalid byte 0xFF at offset 5\)"):
        decode_utf8(b"\xef\xbb\xbfok\xff", "f")
