"""A new user learns which optional parts this installation lacks before a verdict needs them:
``doctor`` lists each part, installed or not, and what installs it; ``config`` and ``model
install`` say when one is missing. Parts are hidden by making their imports fail."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from citation_verifier.cli import app


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # find_spec and import both fail


def _parts(output: str) -> dict[str, dict[str, object]]:
    return {part["name"]: part for part in map(json.loads, output.splitlines())}


def test_doctor_lists_each_optional_part_and_what_installs_the_missing_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _without(monkeypatch, "playwright", "duckduckgo_autoconsent", "llama_cpp", "ray")
    done = CliRunner().invoke(app, ["doctor", "--json"])
    assert done.exit_code == 0, done.output
    parts = _parts(done.stdout)
    assert {"browser", "consent refusal", "embedded LLM", "Ray engine"} <= set(parts)
    browser, llm = parts["browser"], parts["embedded LLM"]
    assert browser["installed"] is False
    assert "citation-verifier[browser]" in str(browser["install"])
    assert "js_required" in str(browser["gives"])
    assert llm["installed"] is False and "citation-verifier[local-llm]" in str(llm["install"])
    assert "unsupported_language" in str(llm["gives"])
    assert parts["Ray engine"]["install"] == "pip install 'citation-verifier[ray]'"


def test_doctor_says_installed_parts_need_nothing() -> None:
    done = CliRunner().invoke(app, ["doctor", "--json"])
    assert done.exit_code == 0 and len(_parts(done.stdout)) == 6, done.output
    for part in _parts(done.stdout).values():
        assert (part["install"] == "") is part["installed"], part


def test_config_names_the_missing_parts_beside_render_js(monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "playwright", "llama_cpp")
    done = CliRunner().invoke(app, ["config"])
    assert done.exit_code == 0, done.output
    assert "RENDER_JS" in done.stdout
    assert "not installed here: browser, embedded LLM" in done.stderr
    assert "citation-verifier doctor" in done.stderr


def test_model_install_says_when_the_llm_runtime_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _without(monkeypatch, "llama_cpp")
    done = CliRunner().invoke(app, ["model", "install"])
    assert done.exit_code == 0, done.output
    assert "the embedded LLM cannot run: llama-cpp-python is not installed" in done.stderr
    assert "citation-verifier[local-llm]" in done.stderr
