"""The README and docs followed in order, as a newcomer does: no two example servers on one
port, every reference to something that ships with the project, the help naming every route."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from citation_verifier.cli import app

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LISTENS = re.compile(
    r"(?:http\.server\s+(?P<plain>\d+))|(?:citation-verifier\s+(?:serve|mcp)\b[^`\n]*?--port\s+(?P<port>\d+))"
)


def test_readme_example_servers_never_share_a_port() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    ports: dict[str, list[str]] = {}
    for match in LISTENS.finditer(text):
        port = match.group("plain") or match.group("port")
        ports.setdefault(port, []).append(match.group(0))
    assert len(ports) >= 3  # http.server, serve and mcp --http are all there
    assert {port: uses for port, uses in ports.items() if len(uses) > 1} == {}


def test_docs_cite_no_specification_that_does_not_ship() -> None:
    shipped = {path.name for path in ROOT.rglob("SPEC*.md")}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        if not shipped:
            assert not re.search(r"\bSPEC\b", text), f"{doc.name} cites SPEC, which does not ship"
        for target in re.findall(r"\]\((\.{0,2}/?[^)#\s]+\.md)", text):
            assert (doc.parent / target).resolve().exists(), f"{doc.name} links {target}"


def test_serve_help_names_every_route() -> None:
    done = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert done.exit_code == 0
    for route in ("/verify", "/check-answer", "/health", "/ready", "/metrics"):
        assert route in done.stdout


def test_readme_exit_code_table_lists_every_exit_code() -> None:
    from citation_verifier.terminal import ExitCode

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("### Exit codes", 1)[1].split("\n\n", 2)[1]
    listed = {int(code) for code in re.findall(r"^\| (\d+) \|", table, flags=re.MULTILINE)}
    assert listed == {int(code) for code in ExitCode}


def test_docs_give_a_configuration_error_the_exit_code_the_cli_uses() -> None:
    from citation_verifier.terminal import ExitCode

    said = re.compile(r"configuration error.{0,120}?\bexit(?:s| code| status)?\s+(\d+)", re.S)
    for doc in DOCS:
        for code in said.findall(doc.read_text(encoding="utf-8")):
            assert int(code) == ExitCode.CONFIG, f"{doc.name}: a configuration error exits {code}"


def test_readme_says_where_the_eval_data_comes_from() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # `eval ../shared/...` works only from a clone beside the project's data folder: said, with
    # the format of a file of one's own.
    assert "beside a clone of this" in text
    assert "`id`, `claim`, `label`" in text and "--split all" in text


def test_readme_says_why_a_homepage_redirect_is_not_found_and_a_soft_404_unreachable() -> None:
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "A homepage redirect is `not_found` (reason `redirected_to_homepage`), not" in text
    assert "a soft 404 says the page itself is gone" in text
