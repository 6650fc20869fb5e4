"""Property-based: whatever users send (claims and answers of any Unicode, control characters,
right-to-left text, emoji, unpaired surrogates where the surface can carry them, lengths from 0
to beyond every limit, URLs of every shape), the CLI, the HTTP API, batch and MCP answer with a
label, one ``error:`` line (and a hint) or a 4xx naming the problem: never a traceback, never a
500. Small limits (MAX_CLAIM_CHARS, MAX_ANSWER_CHARS, SERVICE_MAX_URLS) keep "beyond the limit"
cheap; pages are on 127.0.0.1."""

from __future__ import annotations

import asyncio
import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client import Client
from typer.testing import CliRunner

from citation_verifier.batch.records import RecordError, parse_line, read_input
from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.errors import InputError
from citation_verifier.mcp_server.server import create_server
from citation_verifier.models import Label
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from citation_verifier.terminal import ExitCode

CLAIM_LIMIT, ANSWER_LIMIT, URL_LIMIT = 200, 400, 3
LIMITS = {
    "MAX_CLAIM_CHARS": str(CLAIM_LIMIT),
    "MAX_ANSWER_CHARS": str(ANSWER_LIMIT),
    "SERVICE_MAX_URLS": str(URL_LIMIT),
    "ALLOW_PRIVATE_URLS": "true",
    "FETCH_TIMEOUT_S": "3",
    "AUDIT_ENABLED": "false",
}
LABELS = {label.value for label in Label}
STATEMENT_LABELS = LABELS | {"uncited", "unresolved"}


def fast(examples: int) -> settings:
    """Few examples, no deadline (pages load in real time), nothing written to disk."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,  # nothing written into the checkout
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


ODD = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "\x1b[2J",
        "\r\n",
        "\u202eevil\u202c",
        "שלום עולם",
        "مرحبا بالعالم",
        "👩‍👩‍👧‍👦🔥",
        "\ufeff",
        "\u2028",
        "[1]",
        "[citation needed]",
        "[/x]",
        "<script>",
        "\ud800",
        "\udce9",
        "Water boils at 100 degrees Celsius at sea level.",
    ]
)


def texts(limit: int) -> st.SearchStrategy[str]:
    """Any text: plain Unicode, control/format/surrogate/combining characters, odd pieces,
    and lengths around ``limit``."""
    return st.one_of(
        st.text(max_size=40),
        st.text(
            st.characters(categories=["Cc", "Cf", "Cs", "Zs", "Zl", "Mn", "So", "Lo"]),
            max_size=20,
        ),
        st.lists(ODD, max_size=4).map("".join),
        st.integers(limit - 1, limit + 2).map(lambda n: ("Water boils. " * (n // 13 + 1))[:n]),
    )


def urls(base: str) -> st.SearchStrategy[list[str]]:
    """URL lists of every shape: good and dead loopback pages, any path text, malformed,
    non-http, too many. Hosts are loopback only: nothing leaves the machine."""
    one = st.one_of(
        st.just(base + "/water"),
        st.text(max_size=15).map(lambda path: f"{base}/{path}"),
        st.sampled_from(
            [
                "",
                "ftp://127.0.0.1/x",
                "http://",
                "http://[::1",
                "http://127.0.0.1:99999/",
                "javascript:alert(1)",
                "http://127.0.0.1:1/closed",
                "HTTP://127.0.0.1:1/%zz",
                "http://user:pw@127.0.0.1:1/",
                "//127.0.0.1/x",
                "http://127.0.0.1:1/" + "a" * 3000,
                "http://\ud800/",
                f"{base}/water#frag?&",
            ]
        ),
    )
    return st.one_of(
        st.lists(one, max_size=URL_LIMIT),
        st.just([base + "/water"] * (URL_LIMIT + 1)),
    )


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackSite]:
    with LoopbackSite({"/water": Page(BOILING_HTML)}) as served:
        yield served


def _settings() -> Settings:
    return Settings(
        allow_private_urls=True,
        fetch_timeout_s=3.0,
        max_claim_chars=CLAIM_LIMIT,
        max_answer_chars=ANSWER_LIMIT,
        service_max_urls=URL_LIMIT,
        audit_enabled=False,
    )


def _assert_plain_failure(exit_code: int, stderr: str, output: str) -> None:
    assert "Traceback" not in output and "internal error" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    if exit_code == ExitCode.NOT_JUDGED:  # no judge reads the language: a note, not an error
        assert lines[-1].startswith("not judged: ")
        assert not any(line.startswith("error: ") for line in lines), stderr
        return
    errors = [index for index, line in enumerate(lines) if line.startswith("error: ")]
    assert len(errors) == 1, stderr
    after = lines[errors[0] + 1 :]
    assert after == [] or (len(after) == 1 and after[0].startswith("Try '")), stderr
    assert exit_code in (2, 4), stderr  # usage, input


# --- the CLI ----------------------------------------------------------------------------------


@given(data=st.data())
@fast(25)
def test_verify_answers_any_claim_and_urls_with_labels_or_one_error_line(
    site: LoopbackSite, data: st.DataObject
) -> None:
    claim = data.draw(texts(CLAIM_LIMIT), "claim")
    cited = data.draw(urls(site.base_url), "urls")
    done = CliRunner().invoke(app, ["verify", "--json", claim, *cited], env=LIMITS)
    if done.exit_code == 0:
        result = json.loads(done.stdout)
        assert {c["label"] for c in result["citations"]} <= LABELS
        assert len(result["citations"]) == len(cited)
    else:
        assert not isinstance(done.exception, Exception) or isinstance(
            done.exception, SystemExit
        ), done.exception
        _assert_plain_failure(done.exit_code, done.stderr, done.output)


@given(data=st.data())
@fast(20)
def test_check_answer_reads_any_bytes_on_stdin_as_labels_or_one_error_line(
    site: LoopbackSite, data: st.DataObject
) -> None:
    text = data.draw(texts(ANSWER_LIMIT), "answer")
    cited = data.draw(urls(site.base_url), "urls")
    sources = "".join(f"\n[{n}] {url}" for n, url in enumerate(cited, start=1))
    answer = f"{text} [1].\n\nSources:{sources}\n" if cited else text
    raw = answer.encode("utf-8", "surrogatepass")  # a lone surrogate: bytes that are not UTF-8
    done = CliRunner().invoke(app, ["check-answer", "--json", "-"], input=raw, env=LIMITS)
    if done.exit_code == 0:
        result = json.loads(done.stdout)
        assert {s["overall"] for s in result["statements"]} <= STATEMENT_LABELS
    else:
        _assert_plain_failure(done.exit_code, done.stderr, done.output)


# --- the HTTP API -----------------------------------------------------------------------------


# json.dumps, not httpx's json=: its ASCII escapes carry the lone surrogates drawn above.
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def service(embedder: MiniLMEmbedder) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_app(_settings(), embedder=embedder)) as server:
        yield server


def _assert_api_answer(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code in (200, 413, 422), response.text
    body: dict[str, Any] = response.json()
    if response.status_code != 200:
        assert isinstance(body["detail"], str) and body["detail"], body
    return body


@given(data=st.data())
@fast(40)
def test_the_api_answers_any_claim_with_a_verdict_or_a_4xx_naming_the_problem(
    service: BackgroundServer, site: LoopbackSite, data: st.DataObject
) -> None:
    payload: dict[str, Any] = {
        "claim": data.draw(texts(CLAIM_LIMIT), "claim"),
        "urls": data.draw(urls(site.base_url), "urls"),
    }
    response = httpx.post(
        service.url + "/verify", content=json.dumps(payload), headers=JSON, timeout=60
    )
    body = _assert_api_answer(response)
    if response.status_code == 200:
        assert {c["label"] for c in body["citations"]} <= LABELS


@given(data=st.data())
@fast(30)
def test_the_api_answers_any_answer_with_statements_or_a_4xx_naming_the_problem(
    service: BackgroundServer, site: LoopbackSite, data: st.DataObject
) -> None:
    payload = {
        "answer": data.draw(texts(ANSWER_LIMIT), "answer") + " [1]",
        "citations": data.draw(urls(site.base_url), "urls"),
    }
    response = httpx.post(
        service.url + "/check-answer", content=json.dumps(payload), headers=JSON, timeout=60
    )
    body = _assert_api_answer(response)
    if response.status_code == 200:
        assert {s["overall"] for s in body["statements"]} <= STATEMENT_LABELS


@given(
    body=st.one_of(
        st.binary(max_size=200),
        st.binary(min_size=1).map(lambda b: b * (70_000 // len(b) + 1)),  # over the body cap
    ),
    path=st.sampled_from(["/verify", "/check-answer"]),
)
@fast(30)
def test_the_api_answers_any_bytes_with_a_4xx(
    service: BackgroundServer, body: bytes, path: str
) -> None:
    response = httpx.post(service.url + path, content=body, headers=JSON, timeout=60)
    assert response.status_code in (413, 422), response.text
    assert response.json()["detail"]


# --- batch ------------------------------------------------------------------------------------

RECORDS = st.one_of(
    st.fixed_dictionaries(
        {"id": st.one_of(st.text(max_size=5), st.integers()), "claim": texts(CLAIM_LIMIT)},
        optional={"urls": st.lists(st.text(max_size=20), max_size=URL_LIMIT + 1)},
    ),
    st.fixed_dictionaries(
        {"id": st.text(max_size=5), "answer": texts(ANSWER_LIMIT)},
        optional={"citations": st.lists(st.text(max_size=20), max_size=2)},
    ),
)


@given(line=st.one_of(RECORDS.map(json.dumps), st.text(max_size=80)))
@fast(300)
def test_any_batch_line_is_a_record_or_a_named_line_error(line: str) -> None:
    try:
        record_id, request = parse_line(line, _settings())
    except RecordError as error:
        assert str(error)
    else:
        assert record_id.strip() and request is not None


@given(lines=st.lists(st.binary(max_size=40), max_size=6))
@fast(200)
def test_any_bytes_of_a_batch_file_are_read_line_by_line(
    tmp_path: Path, lines: list[bytes]
) -> None:
    path = tmp_path / "input.jsonl"
    data = b"\n".join(lines)
    path.write_bytes(data)
    try:
        batch = read_input(path, _settings())
    except InputError as error:  # pragma: no cover - only an unreadable file may end it
        pytest.fail(f"a readable file ended the read: {error}")
    assert len(batch.errors) + batch.records <= data.count(b"\n") + 1


@given(data=st.data())
@fast(5)
def test_a_batch_of_any_records_reports_every_line(
    site: LoopbackSite, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("batch")
    records = data.draw(
        st.lists(
            st.fixed_dictionaries(
                {"claim": texts(CLAIM_LIMIT), "urls": urls(site.base_url)},
            ),
            min_size=1,
            max_size=4,
        ),
        "records",
    )
    inputs = folder / "in.jsonl"
    inputs.write_text(
        "".join(json.dumps({"id": n, **r}) + "\n" for n, r in enumerate(records)),
        encoding="utf-8",
    )
    out = folder / "report.csv"
    done = CliRunner().invoke(app, ["batch", str(inputs), "--out", str(out), "-q"], env=LIMITS)
    if done.exit_code != 0:
        _assert_plain_failure(done.exit_code, done.stderr, done.output)
        return
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["label"] for row in rows} <= LABELS
    errors = folder / "report.csv.errors.jsonl"
    invalid = len(errors.read_text(encoding="utf-8").splitlines()) if errors.exists() else 0
    valid = len(records) - invalid
    assert len({row["id"] for row in rows}) <= valid


# --- MCP ----------------------------------------------------------------------------------------


@given(data=st.data())
@fast(20)
def test_mcp_tools_answer_any_arguments_with_a_result_or_a_tool_error(
    site: LoopbackSite, embedder: MiniLMEmbedder, data: st.DataObject
) -> None:
    tool = data.draw(st.sampled_from(["verify_claim", "check_answer"]), "tool")
    cited = data.draw(urls(site.base_url), "urls")
    arguments: dict[str, Any] = (
        {"claim": data.draw(texts(CLAIM_LIMIT), "claim"), "urls": cited}
        if tool == "verify_claim"
        else {"answer": data.draw(texts(ANSWER_LIMIT), "answer") + " [1]", "citations": cited}
    )
    server = create_server(_settings(), embedder=embedder)

    async def call() -> Any:
        async with Client(server) as client:
            return await client.call_tool(tool, arguments)

    result = asyncio.run(call())
    text = " ".join(getattr(block, "text", "") for block in result.content)
    if result.is_error:
        assert "invalid arguments" in text and "Input should be" not in text, text
        assert "Traceback" not in text
    else:
        structured = result.structured_content
        assert structured is not None
        found = (
            {c["label"] for c in structured["citations"]}
            if tool == "verify_claim"
            else {s["overall"] for s in structured["statements"]}
        )
        assert found <= STATEMENT_LABELS
