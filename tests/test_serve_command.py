"""`citation-verifier serve` as users run it: a real process that prints the URL it listens
on and answers POST /verify with the SPEC §8 shape."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping

import httpx
import pytest

from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.demo.site import demo_routes
from citation_verifier.terminal import ExitCode

WATER_100 = "Water boils at 100 degrees Celsius at sea level."


def _start(*args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "citation_verifier", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def _stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
    return stderr


@pytest.fixture
def served() -> Iterator[Callable[..., tuple[subprocess.Popen[str], str]]]:
    processes: list[subprocess.Popen[str]] = []

    def run(*args: str, **env: str) -> tuple[subprocess.Popen[str], str]:
        process = _start(*args, **env)
        processes.append(process)
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        assert match, f"no URL printed: {line!r}"
        return process, match.group(1)

    yield run
    for process in processes:
        if process.poll() is None:
            _stop(process)


def test_serve_prints_its_url_and_answers_verify_in_the_spec_shape(
    served: Callable[..., tuple[subprocess.Popen[str], str]],
    serve: Callable[[Mapping[str, Route]], LoopbackSite],
) -> None:
    site = serve(demo_routes())
    process, url = served("--host", "127.0.0.1", "--port", "0", ALLOW_PRIVATE_URLS="true")
    payload = {
        "claim": WATER_100,
        "urls": [site.url("/articles/water-boiling-point"), site.url("/old-report")],
    }
    response = httpx.post(url + "/verify", json=payload, timeout=60)
    assert response.status_code == 200
    # On loopback, a request addressed to another name (DNS rebinding) is not answered.
    assert httpx.get(url + "/health", headers={"Host": "rebound.example"}).status_code == 421
    body = response.json()
    assert body["overall"] == "supported"
    assert [c["label"] for c in body["citations"]] == ["supported", "unreachable"]
    assert [c["reason"] for c in body["citations"]] == [None, "http_404"]
    stderr = _stop(process)
    assert '"path":"/verify"' in stderr  # the structured access log line
    assert process.returncode is not None
    # Every log line is JSON: the access log, the service's own, the migrations' (none shown).
    lines = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    assert any(line.get("message", "").startswith("judge: ") for line in lines)
    assert not any("alembic" in str(line.get("logger", "")) for line in lines)


def test_serve_reports_a_port_it_cannot_use(
    served: Callable[..., tuple[subprocess.Popen[str], str]],
) -> None:
    _, url = served("--port", "0")
    port = url.rsplit(":", 1)[1]
    second = _start("--port", port)
    _, stderr = second.communicate(timeout=30)
    assert second.returncode == ExitCode.INPUT
    assert f"cannot listen on 127.0.0.1:{port}" in stderr
    assert "Traceback" not in stderr


def test_serve_reports_an_invalid_setting_by_name_without_a_traceback() -> None:
    process = _start("--port", "0", SERVICE_MAX_IN_FLIGHT="zero")
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == ExitCode.CONFIG
    assert "SERVICE_MAX_IN_FLIGHT" in stderr and "Traceback" not in stderr
    assert "listening" not in stdout
