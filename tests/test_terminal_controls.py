"""A page's terminal control sequences (``ESC[2J`` clears the screen, an OSC sequence retitles
the window) are shown as inert stand-ins by ``verify`` and ``audit show``, never obeyed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from rich.text import Text
from typer.testing import CliRunner

from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.printable import printable, printable_text

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."
HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x1b]8;;https://evil.example\x1b\\\r\u202e"
# Inside the sentence, so the quote carries them (the segmenter ends a sentence at its full stop).
PAGE = f"Boiling\n\n{CLAIM[:-1]}{HOSTILE}. It boils at a lower temperature on a mountain top.\n"
# Any C0 control but newline and tab, DEL, any C1 control, any bidi override or isolate.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_printable_keeps_length_newlines_and_tabs_and_makes_controls_visible() -> None:
    text = "a\x1b[2Jb\tc\nd\x9be\u202ef\r"
    safe = printable(text)
    assert len(safe) == len(text) and not CONTROL.search(safe)
    assert safe == "a␛[2Jb\tc\nd\ufffde\ufffdf␍"


def test_printable_text_keeps_styles_on_the_same_characters() -> None:
    text = Text.assemble(("\x1b[2J", "bold"), " quote")
    safe = printable_text(text)
    assert safe.plain == "␛[2J quote" and safe.spans == text.spans


@pytest.fixture
def site(serve: Serve) -> LoopbackSite:
    return serve({"/plain": Page(PAGE, content_type="text/plain; charset=utf-8")})


def test_verify_and_audit_show_never_print_a_pages_control_sequences(
    site: LoopbackSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    monkeypatch.setenv("CACHE_DIR", str(tmp_path))
    runner = CliRunner()
    table = runner.invoke(app, ["verify", CLAIM, site.url("/plain")])
    assert table.exit_code == 0, table.output
    as_json = runner.invoke(app, ["verify", "--json", CLAIM, site.url("/plain")])
    citation = json.loads(as_json.stdout)["citations"][0]
    assert citation["label"] == "supported" and "\x1b" in citation["evidence_quote"]  # data kept
    shown = runner.invoke(app, ["audit", "show", citation["audit_id"]])
    assert shown.exit_code == 0, shown.output
    for printed in (table.output, shown.output):
        assert "␛[2J" in printed, printed
        assert not CONTROL.search(printed), repr(printed)
