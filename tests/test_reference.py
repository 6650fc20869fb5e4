"""The README's Configuration and Reasons sections are generated from the code and kept in
sync: every environment variable with its default and meaning, every reason with its meaning."""

from __future__ import annotations

from pathlib import Path

from citation_verifier.models import REASON_MEANINGS, Reason
from citation_verifier.reference import reference_markdown
from citation_verifier.settings import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_reference_is_what_the_code_generates() -> None:
    # Regenerate: replace what lies between the README's reference markers with the output of
    # `citation-verifier config --reference`.
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- reference:start -->\n") + len("<!-- reference:start -->\n")
    end = text.index("<!-- reference:end -->")
    assert text[start:end] == reference_markdown()


def test_every_setting_says_what_it_does() -> None:
    missing = [name.upper() for name, f in Settings.model_fields.items() if not f.description]
    assert missing == []


def test_every_reason_and_variable_is_in_the_reference() -> None:
    assert set(REASON_MEANINGS) == set(Reason)
    text = reference_markdown()
    assert all(f"| `{reason.value}` |" in text for reason in Reason)
    assert all(f"| `{name.upper()}` |" in text for name in Settings.model_fields)
