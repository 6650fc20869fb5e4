"""Fetch backend on the Crawlbase Crawling API, and replay through its Storage API.

Speaks the HTTP API directly with httpx (the public SDK loses headers and statuses). One
:class:`CrawlbaseFetcher` per process: its per-token semaphores bound the concurrent requests
of everything that shares it. :class:`~citation_verifier.fetch.policy.PagePolicy` makes the
decisions (no-readability retry, JavaScript escalation, dead links ...); this module makes the
requests, retries transient failures, interprets headers and accounts every credit.
"""

from __future__ import annotations

import asyncio
from email.message import Message

import httpx
from pydantic import SecretStr

from citation_verifier.errors import CitationVerifierError, ConfigurationError
from citation_verifier.fetch import crawlbase_contract as wire
from citation_verifier.fetch.base import FetchedPage, FetchFailed
from citation_verifier.models import Attempt, Reason, validate_http_url
from citation_verifier.net.retry_after import retry_after_s
from citation_verifier.settings import Settings

TOKEN_ENV = "CRAWLBASE_TOKEN"
JS_TOKEN_ENV = "CRAWLBASE_JS_TOKEN"


class StoredPageNotFound(CitationVerifierError):
    """The Storage API has no page under that rid (never stored, or expired after ~30 days)."""


def _secret(value: SecretStr | None) -> str | None:
    raw = value.get_secret_value().strip() if value is not None else ""
    return raw or None


def _content_type(value: str | None) -> str:
    if not value:
        return ""
    msg = Message()
    msg["content-type"] = value
    return msg.get_content_type().lower()


def _configuration_error(status: int, env: str, what: str) -> ConfigurationError:
    problem = wire.CONFIGURATION_STATUSES[status]
    return ConfigurationError(f"Crawlbase {what} answered HTTP {status}: {problem}; check {env}")


def _api_url(settings: Settings) -> str:
    try:
        return validate_http_url(settings.crawlbase_api_url).rstrip("/")
    except ValueError:
        raise ConfigurationError(
            f"CRAWLBASE_API_URL must be an http(s) URL, got {settings.crawlbase_api_url!r}"
        ) from None


def _client(settings: Settings, *secrets: str) -> httpx.AsyncClient:
    wire.install_log_redaction(secrets)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(settings.crawlbase_timeout_s),
        trust_env=False,
        follow_redirects=False,
    )


class CrawlbaseFetcher:
    """A :class:`~citation_verifier.fetch.base.Fetcher` on the Crawling API.

    ``fetch(url)`` asks for ``format=md`` with ``md_readability=true`` and ``store=true``;
    ``readability=False`` asks for the whole page; ``render=True`` uses the JavaScript token
    (or ``javascript=true`` on the normal token when configured to). With
    ``CRAWLBASE_FORMAT=html`` every call returns the stored HTML and extraction runs locally.
    """

    def __init__(self, settings: Settings) -> None:
        token = _secret(settings.crawlbase_token)
        if token is None:
            raise ConfigurationError(f"FETCHER=crawlbase needs {TOKEN_ENV}, which is not set")
        self._settings = settings
        self._tokens = {wire.NORMAL: token}
        js_token = _secret(settings.crawlbase_js_token)
        if js_token is not None:
            self._tokens[wire.JS] = js_token
        self._api_url = _api_url(settings)
        self._client = _client(settings, *self._tokens.values())
        # One semaphore per token: Crawlbase limits concurrency per token (~20).
        self._slots = {
            kind: asyncio.Semaphore(settings.crawlbase_concurrency) for kind in self._tokens
        }

    @property
    def can_render(self) -> bool:
        """With a JavaScript token, or ``javascript=true`` on the normal token if configured."""
        return wire.JS in self._tokens or self._settings.crawlbase_js_on_normal_token

    @property
    def render_hint(self) -> str:
        """The JavaScript token is what renders on the crawling API."""
        return f"{JS_TOKEN_ENV} is not set"

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._client.aclose()

    @property
    def can_refuse_consent(self) -> bool:
        """The API renders pages but cannot refuse a consent dialog in them."""
        return False

    async def fetch(
        self,
        url: str,
        *,
        readability: bool = True,
        render: bool = False,
        refuse_consent: bool = False,
    ) -> FetchedPage:
        """One crawl of ``url`` (with bounded retries of transient failures). Raises
        :class:`FetchFailed` carrying the attempts made, or ConfigurationError for 401/402/
        403/422. ``refuse_consent`` is not something the API offers: ignored."""
        del refuse_consent
        if render and not self.can_render:
            raise FetchFailed(
                Reason.JS_REQUIRED,
                f"the page needs JavaScript rendering and {JS_TOKEN_ENV} is not set",
            )
        kind = wire.JS if render and wire.JS in self._tokens else wire.NORMAL
        fmt = self._settings.crawlbase_format
        params = wire.crawl_params(
            self._tokens[kind],
            url,
            fmt=fmt,  # html: no md_readability; readability runs locally on the stored page
            readability=readability,
            store=self._settings.crawlbase_store,
            javascript=render and kind == wire.NORMAL,
        )
        request_url = f"{self._api_url}/?{wire.query_string(params)}"
        attempts: list[Attempt] = []
        response = await self._send(request_url, kind, readability, render, url, attempts)
        return self._page(url, response, attempts, render)

    async def replay(self, rid: str) -> str:
        """The stored page text of ``rid`` via the Storage API (free of credits)."""
        token = self._tokens[wire.NORMAL]
        return await _storage_get(self._client, self._api_url, token, rid, self._settings)

    def _env(self, kind: str) -> str:
        return JS_TOKEN_ENV if kind == wire.JS else TOKEN_ENV

    def _record(
        self,
        attempts: list[Attempt],
        kind: str,
        readability: bool,
        render: bool,
        url: str,
        response: httpx.Response | None,
    ) -> Attempt:
        meta = wire.parse_headers(response.headers if response is not None else {}, url)
        http_status = response.status_code if response is not None else None
        stored = http_status == 200 and meta.rid is not None
        attempt = Attempt(
            token=kind,
            readability=readability,
            http_status=http_status,
            cb_status=meta.cb_status,
            original_status=meta.original_status,
            rid=meta.rid if stored else None,
            javascript=render,
            stored=stored,
            credits=wire.attempt_credits(
                javascript=render,
                http_status=http_status,
                cb_status=meta.cb_status,
                original_status=meta.original_status,
                stored=stored,
            ),
        )
        attempts.append(attempt)
        return attempt

    async def _send(
        self,
        request_url: str,
        kind: str,
        readability: bool,
        render: bool,
        url: str,
        attempts: list[Attempt],
    ) -> httpx.Response:
        settings = self._settings
        retries = waits = 0
        while True:
            failure: FetchFailed | None = None
            response: httpx.Response | None = None
            try:
                # The deadline starts once a slot is ours: queueing for one is not a timeout.
                async with self._slots[kind]:
                    async with asyncio.timeout(settings.crawlbase_timeout_s):
                        response = await self._client.get(request_url)
            except (TimeoutError, httpx.TimeoutException):
                failure = FetchFailed(
                    Reason.TIMEOUT,
                    f"Crawlbase did not answer within {settings.crawlbase_timeout_s:g} s",
                )
            except httpx.TransportError as exc:  # the message may hold the URL: name the type
                failure = FetchFailed(
                    Reason.CONNECTION_ERROR,
                    f"cannot reach the Crawlbase API: {type(exc).__name__}",
                )
            self._record(attempts, kind, readability, render, url, response)
            if response is not None:
                status = response.status_code
                if status in wire.CONFIGURATION_STATUSES:
                    raise _configuration_error(status, self._env(kind), "Crawling API")
                if status == 429:
                    if waits < settings.crawlbase_max_429_waits:
                        waits += 1
                        wait = retry_after_s(response.headers.get("retry-after"))
                        await asyncio.sleep(
                            min(
                                settings.crawlbase_max_retry_after_s,
                                settings.crawlbase_backoff_s if wait is None else wait,
                            )
                        )
                        continue
                    raise FetchFailed(
                        Reason.BLOCKED,
                        f"Crawlbase kept answering HTTP 429 (concurrency limit) after {waits} "
                        "waits",
                        attempts=attempts,
                        render_may_help=False,
                    )
                if status == wire.HTTP_CRAWL_FAILED:
                    raise FetchFailed(
                        Reason.CRAWL_FAILED,
                        "Crawlbase could not crawl the page (HTTP 520, not billed)",
                        attempts=attempts,
                    )
                if status < 500:
                    if status == 200:
                        return response
                    raise FetchFailed(
                        Reason.CRAWL_FAILED,
                        f"the Crawling API answered HTTP {status}",
                        attempts=attempts,
                        render_may_help=False,
                    )
                failure = FetchFailed(
                    Reason.CRAWL_FAILED, f"the Crawling API answered HTTP {status}"
                )
            assert failure is not None
            if retries >= settings.crawlbase_max_retries:
                raise FetchFailed(
                    failure.reason,
                    f"{failure.detail} ({retries + 1} tries)",
                    attempts=attempts,
                    render_may_help=False,
                )
            await asyncio.sleep(settings.crawlbase_backoff_s * 2**retries)
            retries += 1

    def _page(
        self, url: str, response: httpx.Response, attempts: list[Attempt], render: bool
    ) -> FetchedPage:
        last = attempts[-1]
        meta = wire.parse_headers(response.headers, url)
        cb = last.cb_status
        if cb is not None and cb in wire.CB_CRAWL_FAILED:
            raise FetchFailed(
                Reason.CRAWL_FAILED,
                f"Crawlbase could not crawl the page (cb_status {cb})",
                final_url=meta.final_url,
                attempts=attempts,
            )
        origin = last.original_status
        answered = cb is None or 200 <= cb < 300 or cb in (404, 410)
        if not answered and (origin is None or 200 <= origin < 300):
            # e.g. a bot wall behind an origin 200: rendering in a browser may get through.
            raise FetchFailed(
                Reason.CRAWL_FAILED,
                f"Crawlbase could not crawl the page (cb_status {cb})",
                final_url=meta.final_url,
                attempts=attempts,
            )
        status = origin if origin is not None else (cb if cb is not None else 200)
        body = response.content
        content_type = _content_type(response.headers.get("content-type"))
        is_pdf = content_type == "application/pdf" or body.lstrip()[:5] == b"%PDF-"
        markdown: str | None = None
        if is_pdf:
            content_type = "application/pdf"  # extracted locally, exactly as for direct fetches
        elif self._settings.crawlbase_format == "md":
            markdown = body.decode(response.encoding or "utf-8", errors="replace")
            content_type = "text/markdown"
        elif not content_type or content_type == "text/plain":
            content_type = "text/html"
        return FetchedPage(
            requested_url=url,
            final_url=meta.final_url,
            status=status,
            content_type=content_type,
            body=body,
            charset=response.charset_encoding,
            markdown=markdown,
            rid=last.rid,
            rendered=render,
            attempts=tuple(attempts),
        )


async def _storage_get(
    client: httpx.AsyncClient, api_url: str, token: str, rid: str, settings: Settings
) -> str:
    if not rid or not rid.strip():
        raise ValueError("rid must not be empty")
    query = wire.query_string({"token": token, "rid": rid.strip()})
    try:
        async with asyncio.timeout(settings.crawlbase_timeout_s):
            response = await client.get(f"{api_url}/storage?{query}")
    except (TimeoutError, httpx.TimeoutException):
        raise CitationVerifierError("the Crawlbase Storage API did not answer in time") from None
    except httpx.TransportError as exc:
        raise CitationVerifierError(
            f"cannot reach the Crawlbase Storage API: {type(exc).__name__}"
        ) from None
    status = response.status_code
    if status in wire.CONFIGURATION_STATUSES:
        raise _configuration_error(status, TOKEN_ENV, "Storage API")
    if status == 404:
        raise StoredPageNotFound(
            f"no stored page under rid {rid.strip()!r} (Crawlbase keeps pages about 30 days)"
        )
    if status != 200:
        raise CitationVerifierError(f"the Crawlbase Storage API answered HTTP {status}")
    return response.content.decode(response.encoding or "utf-8", errors="replace")


async def replay_rid(rid: str, settings: Settings | None = None) -> str:
    """The stored page text of ``rid`` via the Storage API. Stored pages belong to the account,
    so either token works (the normal one first). ``ValueError`` for an empty rid;
    :class:`ConfigurationError` naming ``CRAWLBASE_TOKEN`` when no token is set;
    :class:`StoredPageNotFound` when nothing is stored under ``rid``."""
    if not rid or not rid.strip():
        raise ValueError("rid must not be empty")
    settings = settings or Settings()
    token = _secret(settings.crawlbase_token) or _secret(settings.crawlbase_js_token)
    if token is None:
        raise ConfigurationError(
            f"replaying a stored page needs {TOKEN_ENV} (or {JS_TOKEN_ENV}); neither is set"
        )
    async with _client(settings, token) as client:
        return await _storage_get(client, _api_url(settings), token, rid, settings)
