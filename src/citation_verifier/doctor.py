"""Which optional parts this installation has, what each gives, and what installs the missing
ones (``citation-verifier doctor``; ``config`` and ``model install`` point here).

A wheel installed without extras runs: the checker judges English and pages are read without a
browser. What it lacks shows only when a verdict needs it (a JavaScript page gets
``js_required``, a German page ``unsupported_language``), so a new user is told up front.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from citation_verifier.settings import Settings


@dataclass(frozen=True)
class Part:
    """One optional part of the installation."""

    name: str
    installed: bool
    gives: str
    """What it does when installed (or what is missing without it)."""
    install: str
    """What installs it (empty when installed)."""


def _importable(*modules: str) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in modules)


def _browser(settings: Settings) -> Part:
    from citation_verifier.fetch.browser import browser_available, browser_install_hint

    installed = browser_available(settings)
    how = browser_install_hint(settings).removesuffix(" (citation-verifier doctor)")
    mode = settings.render_js
    gives = (
        f"renders pages that need JavaScript (RENDER_JS={mode})"
        if installed
        else f"RENDER_JS={mode} has nothing to render with: pages that need JavaScript get "
        "js_required"
    )
    return Part("browser", installed, gives, "" if installed else how)


def _consent() -> Part:
    installed = _importable("duckduckgo_autoconsent")
    gives = (
        "refuses cookie-consent dialogs while rendering"
        if installed
        else "consent dialogs are not refused: such pages are consent_wall"
    )
    return Part(
        "consent refusal",
        installed,
        gives,
        "" if installed else "pip install 'citation-verifier[browser]'",
    )


def _local_llm(settings: Settings) -> Part:
    from citation_verifier.judge.providers import local_llm_installed

    installed = local_llm_installed(settings)
    languages = ", ".join(settings.local_judge_languages)
    if installed:
        return Part("embedded LLM", True, f"judges {languages} offline (LANGUAGE_JUDGE)", "")
    how = (
        "pip install 'citation-verifier[local-llm]' (llama.cpp builds from source: "
        'CMAKE_ARGS="-DGGML_NATIVE=OFF"), then citation-verifier model install'
    )
    if _importable("llama_cpp"):
        how = "citation-verifier model install (the runtime is here, the model file is not)"
    gives = (
        "claims and pages outside English are not judged (unsupported_language) unless an "
        "API judge is set (LANGUAGE_JUDGE)"
    )
    return Part("embedded LLM", False, gives, how)


def _russian_clauses() -> Part:
    from citation_verifier.judge.russian_clauses import RussianParser

    installed = RussianParser.available()
    gives = (
        "checks the roles in Russian clauses the embedded LLM supports"
        if installed
        else "Russian supports of the embedded LLM are not checked clause by clause"
    )
    return Part(
        "Russian clauses",
        installed,
        gives,
        "" if installed else "pip install 'citation-verifier[local-llm]'",
    )


def _extra(name: str, module: str, extra: str, gives: str, without: str) -> Part:
    installed = _importable(module)
    return Part(
        name,
        installed,
        gives if installed else without,
        "" if installed else f"pip install 'citation-verifier[{extra}]'",
    )


def optional_parts(settings: Settings) -> list[Part]:
    """Every optional part, installed or not, in the order a verdict meets them."""
    return [
        _browser(settings),
        _consent(),
        _local_llm(settings),
        _russian_clauses(),
        _extra(
            "PostgreSQL audit store",
            "psycopg",
            "postgres",
            "AUDIT_DB_URL=postgresql+psycopg://... can be used",
            "the audit trail is SQLite only",
        ),
        _extra(
            "Ray engine",
            "ray",
            "ray",
            "batch --engine ray can run on a Ray cluster",
            "batch --engine ray is not available (the local engine is)",
        ),
    ]


def missing_summary(parts: list[Part]) -> str | None:
    """One line naming the missing parts and where to read more; ``None`` when none is."""
    missing = [part.name for part in parts if not part.installed]
    if not missing:
        return None
    return (
        f"not installed here: {', '.join(missing)}; citation-verifier doctor says what each "
        "gives and what installs it"
    )
