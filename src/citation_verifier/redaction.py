"""One redaction of every configured secret, for everything that leaves the process.

Providers and proxies echo what they were sent (an OpenAI-compatible server answering 400 with
``Incorrect API key: Bearer sk-…``), so any text that came back from outside may hold a key.
:class:`Redactor` replaces each configured secret, and any bearer credential whatever its
value, before the text reaches a response, a log line, the terminal or a report.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

from pydantic import SecretStr

from citation_verifier.settings import Settings

REDACTED = "[redacted]"

# A bearer credential, whatever it is: the provider may echo a key we were never told about
# (one a proxy added, or a previous configuration's).
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=:-]{8,}")
# Shorter values are not secrets worth the risk of blanking ordinary words.
_MIN_SECRET_CHARS = 4


def _url_passwords(url: str) -> list[str]:
    """The password inside a database URL, as written and unquoted; empty when none."""
    try:
        password = urlsplit(url).password
    except ValueError:
        return []
    return [password, unquote(password)] if password else []


def configured_secrets(settings: Settings) -> list[str]:
    """Every secret value ``settings`` holds: each ``SecretStr`` setting (API keys, tokens,
    the audit database URL) and the password inside that URL."""
    found: list[str] = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if not isinstance(value, SecretStr):
            continue
        raw = value.get_secret_value().strip()
        found.append(raw)
        if "://" in raw:
            found.extend(_url_passwords(raw))
    return found


class Redactor:
    """Replaces secrets in text. Build it from settings, or from the secrets at hand (a
    provider endpoint's own key)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = {s for s in (raw.strip() for raw in secrets) if len(s) >= _MIN_SECRET_CHARS}
        # Longest first: a secret that contains another is replaced whole.
        self._secrets = sorted(unique, key=len, reverse=True)

    @classmethod
    def from_settings(cls, settings: Settings) -> Redactor:
        """A redactor of every secret ``settings`` holds."""
        return cls(configured_secrets(settings))

    def __call__(self, text: str) -> str:
        """``text`` with each secret, and any bearer credential, replaced by ``[redacted]``."""
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return _BEARER.sub(lambda m: f"{m[1]}{m[2]}{REDACTED}", text)


class RedactingFilter(logging.Filter):
    """A handler filter: the formatted message and any traceback of every record, redacted."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self._redact = redact

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite ``record`` in place (message and exception text); never drops it."""
        record.msg, record.args = self._redact(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self._redact(record.stack_info)
        return True


def redact_logs(redact: Redactor, logger: logging.Logger | None = None) -> None:
    """Install :class:`RedactingFilter` on every handler of ``logger`` (the root logger when
    None), so no log line of the process carries a configured secret."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter(redact))
