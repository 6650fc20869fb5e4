"""Text a terminal shows, never obeys.

Claims, URLs, quotes, page titles and error messages come from users and pages. Printed raw, a
page's ``ESC[2J`` clears the screen, an OSC sequence retitles the window or plants a hyperlink,
a carriage return overwrites what was printed, and bidi overrides reorder a line. Every control
character is swapped for a visible stand-in of the same length (so offsets, such as a
highlighted quote's, stay right): C0 controls become their Unicode control pictures (``␛``),
C1 controls and bidi controls become U+FFFD.
"""

from __future__ import annotations

from typing import IO, Any

from rich.console import Console, ConsoleRenderable, RenderHook
from rich.text import Text

_KEPT = {"\n", "\t"}
_STAND_INS: dict[int, int] = {
    **{code: 0x2400 + code for code in range(0x20) if chr(code) not in _KEPT},
    0x7F: 0x2421,  # ␡
    **{code: 0xFFFD for code in range(0x80, 0xA0)},
    **{code: 0xFFFD for code in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F))},
    **{code: 0xFFFD for code in range(0x2066, 0x206A)},
}


def printable(text: str) -> str:
    """``text`` with every control character (newlines and tabs aside) made visible and inert;
    the same length as ``text``."""
    return text.translate(_STAND_INS)


def printable_text(text: Text) -> Text:
    """A copy of ``text`` with :func:`printable` characters and the same styles."""
    plain = printable(text.plain)
    if plain == text.plain:
        return text
    safe = text.copy()
    safe.plain = plain  # same length: the spans still cover the same characters
    return safe


def is_terminal(stream: IO[str]) -> bool:
    """Whether ``stream`` is a terminal (a closed or odd stream is not)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream is no terminal
        return False


class _Printable(RenderHook):
    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [printable_text(r) if isinstance(r, Text) else r for r in renderables]


def safe_console(**options: Any) -> Console:
    """A Rich console whose printed text (strings and :class:`Text`) is :func:`printable`.
    Tables are made of cells it does not see: build their cells with :func:`printable_text`.
    Piped (its stream is no terminal), it never wraps lines: ``| grep`` finds whole values."""
    console = Console(**options)
    if "soft_wrap" not in options and not is_terminal(console.file):
        console.soft_wrap = True
    console.push_render_hook(_Printable())
    return console
