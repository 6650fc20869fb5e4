"""The Crawlbase Crawling API's wire contract as pure functions: query parameters, response
headers, credit rules and token redaction. No I/O here; :mod:`.crawlbase` does the requests.

Sources: crawlbase.com/docs (crawling-api/response, status-codes, errors, storage-api) and our
fetch rules. Metadata of an ``html``/``md`` response comes back as headers: ``original_status``,
``pc_status`` (renamed ``cb_status``), ``url``, ``rid`` and ``storage_url`` when storing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlencode

#: Token kinds, as recorded on attempts (the token values never leave the settings).
NORMAL = "normal"
JS = "js"

#: Credits: a normal request, a JavaScript request, and the surcharge of a stored page.
CREDITS_NORMAL = 1.0
CREDITS_JS = 2.0
CREDITS_STORE = 0.5

#: HTTP statuses of the API call that mean our configuration is wrong, not the page.
CONFIGURATION_STATUSES: Mapping[int, str] = {
    401: "the token is missing or invalid",
    402: "the account is out of credits or its trial expired",
    403: "the token has no access to this product (normal vs JavaScript token)",
    422: "the API rejected the request as malformed",
}
#: API answered HTTP 520: the crawl failed, the body is empty, nothing is billed.
HTTP_CRAWL_FAILED = 520
#: Crawl statuses after which a JavaScript attempt may succeed.
CB_CRAWL_FAILED = frozenset({520, 525})
#: Origin statuses Crawlbase bills (docs: success, permanent/temporary redirect, not found).
_BILLED_ORIGIN = frozenset({200, 201, 204, 301, 302, 404, 410})
#: Crawl statuses of a crawl that got the origin's answer (a dead link is still an answer).
_ANSWERED_CB = frozenset({200, 201, 204, 404, 410})

_TOKEN_IN_TEXT = re.compile(r"(token=)[^&\s\"'<>]+", re.I)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def crawl_params(
    token: str, url: str, *, fmt: str, readability: bool, store: bool, javascript: bool
) -> dict[str, str]:
    """Query parameters of one Crawling API request. Booleans are lowercase ``true``/``false``;
    ``custom_success_codes`` is never sent (404/410 already come back as answered crawls)."""
    params = {"token": token, "url": url, "format": fmt}
    if fmt == "md":
        params["md_readability"] = _flag(readability)
    if store:
        params["store"] = "true"
    if javascript:
        params["javascript"] = "true"
    return params


def query_string(params: Mapping[str, str]) -> str:
    """Encode every value completely (``/``, ``:``, ``?``, ``&`` included), as the API asks for
    the ``url`` parameter."""
    return urlencode(params, quote_via=quote, safe="")


def parse_int(value: str | None) -> int | None:
    """A status header as an int; None when absent or not a number."""
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


def decode_final_url(value: str | None, requested_url: str) -> str:
    """The ``url`` header as a plain URL (percent-decoded when the API sent it encoded);
    the requested URL when the header is missing."""
    if not value or not value.strip():
        return requested_url
    value = value.strip()
    if "://" not in value:
        decoded = unquote(value)
        if "://" in decoded:
            return decoded
    return value


@dataclass(frozen=True)
class CrawlHeaders:
    """The metadata headers of one Crawling API response, parsed."""

    original_status: int | None
    cb_status: int | None
    final_url: str
    rid: str | None


def parse_headers(headers: Mapping[str, str], requested_url: str) -> CrawlHeaders:
    """Read ``original_status``, ``cb_status`` (falling back to ``pc_status``), ``url`` and
    ``rid``. ``storage_url`` is deliberately not read: it embeds the token."""
    cb_status = parse_int(headers.get("cb_status"))
    if cb_status is None:
        cb_status = parse_int(headers.get("pc_status"))
    rid = (headers.get("rid") or "").strip() or None
    return CrawlHeaders(
        original_status=parse_int(headers.get("original_status")),
        cb_status=cb_status,
        final_url=decode_final_url(headers.get("url"), requested_url),
        rid=rid,
    )


def is_billed(http_status: int | None, cb_status: int | None, original_status: int | None) -> bool:
    """Whether Crawlbase bills a request: the API answered 200, the crawl got the origin's
    answer, and that answer is a billed status (404/410 included). A failed crawl (HTTP 520,
    ``cb_status`` 520/525 or another failure) and every API error cost nothing."""
    if http_status != 200:
        return False
    if cb_status is not None and cb_status not in _ANSWERED_CB:
        return False
    return original_status is None or original_status in _BILLED_ORIGIN


def attempt_credits(
    *,
    javascript: bool,
    http_status: int | None,
    cb_status: int | None,
    original_status: int | None,
    stored: bool,
) -> float:
    """Credits of one request: 1 normal or 2 JavaScript when billed, plus 0.5 for a
    stored page (a ``rid`` came back)."""
    base = (
        (CREDITS_JS if javascript else CREDITS_NORMAL)
        if is_billed(http_status, cb_status, original_status)
        else 0.0
    )
    return base + (CREDITS_STORE if stored else 0.0)


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with every ``token=...`` query value and every given secret replaced."""
    text = _TOKEN_IN_TEXT.sub(r"\1***", text)
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


#: Loggers of the HTTP stack that print request URLs (httpx, INFO) or response headers such as
#: ``storage_url`` (httpcore, DEBUG). Filters do not apply to records of child loggers, so each
#: one gets its own.
HTTP_LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
)


class RedactTokens(logging.Filter):
    """Removes ``token=`` values and known secrets from records of the HTTP stack's loggers
    (the Crawling API carries the token in the query; ``storage_url`` embeds it)."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message, tuple(self.secrets))
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


_MIN_SECRET_CHARS = 8


def install_log_redaction(secrets: tuple[str, ...] = ()) -> None:
    """Attach one :class:`RedactTokens` to each of :data:`HTTP_LOGGERS` (idempotent; called
    when a Crawlbase client is created, never at import) and teach it ``secrets``."""
    for name in HTTP_LOGGERS:
        logger = logging.getLogger(name)
        existing = [f for f in logger.filters if isinstance(f, RedactTokens)]
        if existing:
            redactor = existing[0]
        else:
            redactor = RedactTokens()
            logger.addFilter(redactor)
        # Real tokens are long; a very short "secret" would mangle every log line it occurs in.
        redactor.secrets.update(s for s in secrets if len(s) >= _MIN_SECRET_CHARS)
