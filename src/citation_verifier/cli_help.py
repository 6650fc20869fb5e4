"""How ``--help`` reads: ``verify [OPTIONS] CLAIM URL...``, flags without a ``<bool>`` type,
and each description one paragraph however its docstring was wrapped in the source.

Typer draws a type for every parameter (``--json <bool>``, ``claim <str>``) and wraps required
arguments in braces on the usage line (``{claim} {urls}...``); Rich keeps a docstring's line
breaks, so a command list broke descriptions mid-sentence. The command and group classes here
fix that where the parameters are made, for every command that uses them.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

_LINE_BREAK = re.compile(r"(?<!\n)\n(?!\n)")


class _HelpArgument(TyperArgument):
    """An argument shown by its upper-case name alone: ``CLAIM``, ``URL...``, ``[FILE]...``."""

    def display_type_rich(self, ctx: Any) -> str | None:
        """No type column: the name and the description say what to give."""
        return None

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        """``NAME``, ``NAME...`` or ``[NAME]...`` on the usage line (no braces)."""
        name = self.display_name_raw
        name = name if self.required else f"[{name}]"
        return [name + ("..." if self.nargs != 1 else "")]


def _one_paragraph_lines(text: str | None) -> str | None:
    """``text`` with the line breaks inside each paragraph made spaces."""
    if not text:
        return text
    return _LINE_BREAK.sub(" ", inspect.cleandoc(text))


def _tidy(param: Any) -> None:
    if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
        param.metavar = ""  # a flag takes no value: no ``<bool>``
    elif isinstance(param, TyperArgument):
        if param.metavar is None:
            param.metavar = (param.name or "").upper()
        param.__class__ = _HelpArgument  # same fields, its own way of being shown


class _PlainHelp:
    """What :class:`PlainHelpCommand` and :class:`PlainHelpGroup` share."""

    params: list[Any]
    help: str | None

    def _tidy_help(self) -> None:
        self.help = _one_paragraph_lines(self.help)
        for param in self.params:
            _tidy(param)

    def get_help_option(self, ctx: Any) -> Any:
        """Click's ``--help`` option, shown as a flag like the others."""
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            _tidy(option)
        return option


class PlainHelpCommand(_PlainHelp, TyperCommand):
    """A command whose ``--help`` reads plainly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tidy_help()


class PlainHelpGroup(_PlainHelp, TyperGroup):
    """A command group whose ``--help`` reads plainly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tidy_help()
