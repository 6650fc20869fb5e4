"""Exceptions. A citation's outcome is data (a verdict with a reason); these are for
misconfiguration and invalid input, which the CLI and API turn into clear messages."""

import re

from pydantic import ValidationError

_PYDANTIC_PREFIX = re.compile(r"^(Value|Assertion) error, ")


def error_text(message: str) -> str:
    """A pydantic error message without its "Value error, " prefix, as users should read it."""
    return _PYDANTIC_PREFIX.sub("", message)


def validation_message(error: ValidationError, whole: str) -> str:
    """Every problem of ``error`` as ``field.path: message``; ``whole`` names the object itself
    when a problem has no field."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or whole}: {error_text(e['msg'])}"
        for e in error.errors()
    )


class CitationVerifierError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigurationError(CitationVerifierError):
    """A setting, key or installed component is missing or wrong. Messages never hold secrets."""


class InputError(CitationVerifierError):
    """An input file cannot be read (missing, unreadable, a corrupt archive)."""


class ModelUnavailableError(ConfigurationError):
    """An embedded model's files are not installed."""
