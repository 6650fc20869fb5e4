"""Exceptions. A citation's outcome is data (a verdict with a reason); these are for
misconfiguration and invalid input, which the CLI and API turn into clear messages.

A value pydantic refuses reaches users (the CLI, the API, the MCP tools, a batch's errors
file) through :func:`plain_message`, in our words: what is wrong and what to give instead,
never pydantic's own wording or its documentation link."""

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

_PYDANTIC_PREFIX = re.compile(r"^(Value|Assertion) error, ")

_DATE = "not a date (YYYY-MM-DD) or an ISO date-time"
# Pydantic's error types whose problem needs no detail from the error's context.
_WORDS: dict[str, str] = {
    "missing": "missing",
    "string_type": "not text",
    "list_type": "not a list",
    "bool_type": "not true or false",
    "bool_parsing": "not true or false",
    "int_type": "not a whole number",
    "int_parsing": "not a whole number",
    "int_from_float": "not a whole number",
    "float_type": "not a number",
    "float_parsing": "not a number",
    "date_type": _DATE,
    "date_parsing": _DATE,
    "date_from_datetime_parsing": _DATE,
    "datetime_type": _DATE,
    "datetime_parsing": _DATE,
    "datetime_from_date_parsing": _DATE,
    "datetime_object_invalid": _DATE,
    "dict_type": "not an object",
    "model_type": "not an object",
    "model_attributes_type": "not an object",
    "json_invalid": "not valid JSON",
    "json_type": "not JSON text",
    "extra_forbidden": "unknown field",
    "url_type": "not a URL",
    "url_parsing": "not a valid URL",
    "url_syntax_violation": "not a valid URL",
    "url_scheme": "not an http(s) URL",
    "string_unicode": "not Unicode text",
}
# Bounds: the words, and the context key holding the bound.
_BOUNDS: dict[str, tuple[str, str]] = {
    "greater_than": ("must be greater than", "gt"),
    "greater_than_equal": ("must be at least", "ge"),
    "less_than": ("must be less than", "lt"),
    "less_than_equal": ("must be at most", "le"),
    "string_too_long": ("longer than {} characters", "max_length"),
    "too_long": ("more than {} items", "max_length"),
    "string_too_short": ("shorter than {} characters", "min_length"),
    "too_short": ("fewer than {} items", "min_length"),
}
# The problems of a value of the wrong shape: the message goes on to say what to give.
_SHAPE = {
    "missing",
    "string_type",
    "string_too_short",
    "list_type",
    "too_short",
    "dict_type",
    "model_type",
    "model_attributes_type",
}
# What to give, for the fields of a request (the CLI's, the API's body, the MCP arguments, a
# batch record) and for the API's body as a whole.
_GIVE: dict[str, str] = {
    "claim": "give the claim to check",
    "urls": "give the http(s) URLs cited for the claim, as a list",
    "answer": "give the answer to check",
    "citations": "give the URLs the [n] markers refer to, as a list",
    "body": "send a JSON object with the request's fields",
}
_GIVE_ITEM: dict[str, str] = {"urls": "give an http(s) URL", "citations": "give a URL"}
_ITEM_NOUN: dict[str, str] = {"urls": "URL", "citations": "URL"}


def error_text(message: str) -> str:
    """A pydantic error message without its "Value error, " prefix, as users should read it."""
    return _PYDANTIC_PREFIX.sub("", message)


def _problem(kind: str, ctx: Mapping[str, Any]) -> str | None:
    """What is wrong, for an error type we have words for; None for the others."""
    if kind in ("string_too_short", "too_short") and ctx.get("min_length") == 1:
        return "empty"
    if kind in _BOUNDS:
        words, key = _BOUNDS[kind]
        if key not in ctx:
            return None
        bound = ctx[key]
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)  # "greater than 0", not "0.0"
        return words.format(bound) if "{}" in words else f"{words} {bound}"
    if kind in ("literal_error", "enum") and "expected" in ctx:
        return f"must be one of {ctx['expected']}"
    return _WORDS.get(kind)


def plain_message(error: Mapping[str, Any]) -> str:
    """One of pydantic's errors (an item of ``ValidationError.errors()``) in our words: what is
    wrong with the value and, for a request's fields, what to give instead. Our validators'
    own messages (``value_error``) are kept, without pydantic's prefix."""
    kind = str(error.get("type", ""))
    problem = _problem(kind, error.get("ctx") or {})
    if problem is None:
        return error_text(str(error.get("msg", "invalid")))
    if kind not in _SHAPE:
        return problem
    loc = tuple(error.get("loc", ()))
    names = [part for part in loc if isinstance(part, str)]
    field = names[-1] if names else ""
    is_item = bool(loc) and isinstance(loc[-1], int)
    if kind == "too_short" and problem == "empty" and field in _ITEM_NOUN:
        give: str | None = f"give at least one {_ITEM_NOUN[field]}"
    else:
        give = (_GIVE_ITEM if is_item else _GIVE).get(field)
    return f"{problem}; {give}" if give else problem


def validation_message(error: ValidationError, whole: str) -> str:
    """Every problem of ``error`` as ``field.path: message`` (:func:`plain_message`); ``whole``
    names the object itself when a problem has no field."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or whole}: {plain_message(e)}" for e in error.errors()
    )


class CitationVerifierError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigurationError(CitationVerifierError):
    """A setting, key or installed component is missing or wrong. Messages never hold secrets."""


class InputError(CitationVerifierError):
    """An input file cannot be read (missing, unreadable, a corrupt archive)."""


class ModelUnavailableError(ConfigurationError):
    """An embedded model's files are not installed."""
