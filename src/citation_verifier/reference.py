"""The reference tables of the docs, generated from the code so they cannot drift: every
environment variable (from the settings model) and every reason (from ``models.Reason``).
``citation-verifier config --reference`` prints them; a test checks the README's copy."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import SecretStr
from pydantic_core import to_jsonable_python

from citation_verifier.models import REASON_MEANINGS
from citation_verifier.settings import Settings


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _default(name: str) -> str:
    field = Settings.model_fields[name]
    value = field.get_default(call_default_factory=True)
    if value is None or (isinstance(value, SecretStr) and not value.get_secret_value()):
        return ""
    if isinstance(value, Path):  # the user's home differs from machine to machine
        value = str(value).replace(str(Path.home()), "~", 1)
    if isinstance(value, str):
        return f"`{value}`" if value else '`""`'
    return f"`{json.dumps(to_jsonable_python(value))}`"


def variables_table() -> str:
    """Every setting as a Markdown table: variable, default, what it does."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        secret = field.annotation is SecretStr or "SecretStr" in str(field.annotation)
        meaning = field.description or ""
        if secret:
            meaning = f"{meaning} Secret: read from the environment only, never logged.".strip()
        lines.append(f"| `{name.upper()}` | {_default(name)} | {_cell(meaning)} |")
    return "\n".join(lines)


def reasons_table() -> str:
    """Every reason a verdict can carry, as a Markdown table."""
    lines = ["| reason | meaning |", "|---|---|"]
    lines += [
        f"| `{reason.value}` | {_cell(meaning)} |" for reason, meaning in REASON_MEANINGS.items()
    ]
    lines.append("| `http_<code>` | The origin answered another error status (`http_500`, ...). |")
    return "\n".join(lines)


def reference_markdown() -> str:
    """The README's Configuration and Reasons sections (between its reference markers)."""
    return (
        "## Configuration\n\n"
        "Every setting is an environment variable (lists and mappings as JSON); this table is "
        "generated from the code by `citation-verifier config --reference`, and "
        "`tests/test_reference.py` keeps it in sync. `citation-verifier config` prints the "
        "effective values and where each came from.\n\n"
        f"{variables_table()}\n\n"
        "## Reasons\n\n"
        "The `reason` of a verdict says why it has its label; a plain judged verdict has none.\n\n"
        f"{reasons_table()}\n"
    )
