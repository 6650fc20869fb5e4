"""A provider that echoes the caller's key (``Bearer <key>`` in a 400) cannot make the key leave
the process: not in /verify, /ready, the service log, the CLI, the batch report or checkpoint."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.redaction import REDACTED, RedactingFilter, Redactor
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from fake_llm import Status
from fake_openai import FakeOpenAI
from llm_setup import llm_settings, provider_env

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
KEY = "sk-live-4f9c2a7e1b3d5f6a8c0e"
CLAIM = "Water boils at 100 degrees Celsius at sea level."
PAGE = (
    "<html><body><article><h1>Boiling</h1><p>Water boils at 100 degrees Celsius at sea level. "
    "At altitude it boils at a lower temperature because the pressure is lower.</p>"
    "</article></body></html>"
)


def _echo_key(body: dict[str, Any]) -> Status:
    del body
    return Status(400, message=f"Invalid request (Authorization: Bearer {KEY}): bad model")


@pytest.fixture
def echoing_provider() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(key=KEY, default=_echo_key) as fake:
        yield fake


def test_redactor_replaces_every_configured_secret_and_any_bearer_token() -> None:
    settings = Settings(
        openai_api_key=SecretStr("sk-openai-123456"),
        crawlbase_token=SecretStr("cb-token-abcdef"),
        service_api_key=SecretStr("service-key-987"),
        audit_db_url=SecretStr("postgresql://auditor:pa%24%24word@db/audit"),
    )
    redact = Redactor.from_settings(settings)
    text = redact(
        "sk-openai-123456 cb-token-abcdef service-key-987 pa$$word pa%24%24word "
        "Bearer sk-someone-elses-key"
    )
    assert text.split() == [REDACTED] * 5 + ["Bearer", REDACTED]


def test_log_filter_redacts_message_arguments_and_tracebacks() -> None:
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed: %s", (KEY,), None)
    try:
        raise RuntimeError(KEY)
    except RuntimeError:
        record.exc_info = sys.exc_info()
    RedactingFilter(Redactor([KEY])).filter(record)
    assert KEY not in record.getMessage() and KEY not in (record.exc_text or "")
    assert REDACTED in record.getMessage() and REDACTED in (record.exc_text or "")


def test_provider_echoing_the_key_never_reaches_verify_ready_or_the_log(
    echoing_provider: FakeOpenAI,
    serve: Serve,
    embedder: MiniLMEmbedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    site = serve({"/water": Page(PAGE)})
    settings = llm_settings("openai", echoing_provider, cross_check=False)
    caplog.set_level(logging.INFO)
    with BackgroundServer(create_app(settings, embedder=embedder)) as service:
        verify = httpx.post(
            service.url + "/verify", json={"claim": CLAIM, "urls": [site.url("/water")]}, timeout=30
        )
        ready = httpx.get(service.url + "/ready")
    assert verify.status_code == 200
    citation = verify.json()["citations"][0]
    assert citation["reason"] == "judge_error" and "bad model" in citation["detail"]
    assert ready.status_code == 503 and "bad model" in ready.json()["detail"]
    assert echoing_provider.requests, "the provider was never asked"
    for leaving in (verify.text, ready.text, caplog.text):
        assert KEY not in leaving


def test_provider_echoing_the_key_never_reaches_the_cli_or_batch_files(
    echoing_provider: FakeOpenAI, serve: Serve, tmp_path: Path
) -> None:
    site = serve({"/water": Page(PAGE)})
    env = {
        **os.environ,
        **provider_env("openai", echoing_provider),
        "ALLOW_PRIVATE_URLS": "true",
        "CROSS_CHECK": "false",
        "JUDGE_MAX_RETRIES": "0",
    }
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(json.dumps({"id": "a", "claim": CLAIM, "urls": [site.url("/water")]}) + "\n")
    out = tmp_path / "report.csv"
    cli = [sys.executable, "-m", "citation_verifier"]
    runs = [
        subprocess.run(
            [*cli, "verify", CLAIM, site.url("/water")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        ),
        subprocess.run(
            [*cli, "batch", str(inputs), "--out", str(out), "--html", str(tmp_path / "r.html")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        ),
    ]
    assert [run.returncode for run in runs] == [5, 5], [run.stderr for run in runs]
    written = [path.read_text(encoding="utf-8") for path in tmp_path.glob("*") if path.is_file()]
    assert any("bad model" in text for text in written)  # the detail is there, redacted
    for leaving in [*written, *(run.stdout + run.stderr for run in runs)]:
        assert KEY not in leaving
