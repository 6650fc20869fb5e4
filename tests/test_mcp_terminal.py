"""``citation-verifier mcp`` typed in a terminal says what it waits for, and Ctrl-C ends it
(standard input is a pseudo-terminal here, as when a person types the command)."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time

from citation_verifier.mcp_server.command import TYPED_IN_A_TERMINAL


def _read_until(fd: int, marker: bytes, seconds: float) -> bytes:
    seen, deadline = b"", time.monotonic() + seconds
    while marker not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            seen += chunk
    return seen


def test_mcp_in_a_terminal_says_it_waits_for_a_client_and_ctrl_c_quits() -> None:
    controller, terminal = pty.openpty()
    server = subprocess.Popen(
        [sys.executable, "-m", "citation_verifier", "mcp"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(terminal)
    try:
        assert server.stderr is not None
        said = _read_until(server.stderr.fileno(), b"Ctrl-C quits.", 120).decode()
        assert TYPED_IN_A_TERMINAL in said
        assert "waiting for an MCP client" in said and '"mcp"' in said
        time.sleep(1)  # serving now: the transport is blocked reading the terminal
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
    finally:
        server.kill()
        server.wait()
        os.close(controller)
