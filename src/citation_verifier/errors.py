"""Exceptions. A citation's outcome is data (a verdict with a reason); these are for
misconfiguration and invalid input, which the CLI and API turn into clear messages."""


class CitationVerifierError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigurationError(CitationVerifierError):
    """A setting, key or installed component is missing or wrong. Messages never hold secrets."""


class ModelUnavailableError(ConfigurationError):
    """An embedded model's files are not installed."""
