"""One JSON POST to an LLM provider with bounded retries: 429, 5xx, timeouts and connection
failures are retried with exponential backoff (``Retry-After`` wins when the server sends it);
401/403/404 are configuration errors; anything else is a failed call."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

import httpx

from citation_verifier.errors import ConfigurationError
from citation_verifier.net.retry_after import retry_after_ms_s, retry_after_s
from citation_verifier.redaction import Redactor


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a provider call."""

    max_retries: int
    """Retries after the first attempt (0 = one attempt only)."""
    backoff_s: float
    """First backoff; doubled on each retry."""
    backoff_max_s: float
    retry_after_max_s: float
    """A Retry-After longer than this is not waited for: the call fails instead."""

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before retry ``attempt + 1``: exponential, capped, with jitter in its
        upper half so concurrent callers do not retry in lockstep."""
        delay = min(self.backoff_max_s, self.backoff_s * 2.0**attempt)
        return delay / 2 + random.uniform(0, delay / 2)


_CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})


@dataclass(frozen=True)
class Endpoint:
    """Where and how to call a provider, and which variables to name when it is misconfigured."""

    provider: str
    url: str
    headers: dict[str, str] = field(repr=False)
    """Holds the API key: kept out of repr so it cannot reach a log line or traceback."""
    key_variable: str | None
    """The environment variable holding the key (named on 401/403); None when keyless."""
    config_variables: str
    """Variables to check when the endpoint or model does not exist (named on 404)."""

    def redactor(self) -> Redactor:
        """Redacts this endpoint's credentials (its key headers, and the key after
        ``Bearer``) from what the provider says back."""
        keys = [v for k, v in self.headers.items() if k.lower() in _CREDENTIAL_HEADERS]
        return Redactor([*keys, *(v.split(" ", 1)[-1] for v in keys)])


class ProviderCallFailed(Exception):
    """The call did not produce a response after the allowed retries (becomes judge_error)."""


class MalformedResponse(Exception):
    """The provider answered 2xx with a body that is not a JSON object."""


def retry_after_seconds(response: httpx.Response) -> float | None:
    """Seconds the server asks us to wait: ``retry-after-ms`` (OpenAI) or ``Retry-After``
    (seconds or an HTTP date); None when absent or unreadable."""
    from_millis = retry_after_ms_s(response.headers.get("retry-after-ms"))
    if from_millis is not None:
        return from_millis
    return retry_after_s(response.headers.get("retry-after"))


def _error_message(response: httpx.Response, redact: Redactor) -> str:
    """The provider's error message (OpenAI, Anthropic and Ollama shapes), with our own
    credentials redacted (providers echo them), shortened."""
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    # Redacted before it is cut, so a cut can never leave half a key behind.
    return redact(str(error) if error else response.text)[:200]


async def post_json(
    client: httpx.AsyncClient, endpoint: Endpoint, body: dict[str, Any], policy: RetryPolicy
) -> dict[str, Any]:
    """POST ``body`` and return the decoded JSON object of a 2xx answer.

    Raises ConfigurationError (401/403: the key; 404: endpoint or model), ProviderCallFailed
    (retries exhausted, other 4xx) or MalformedResponse (2xx whose body is not a JSON object).
    """
    attempt = 0
    redact = endpoint.redactor()
    while True:
        wait: float | None = None
        try:
            response = await client.post(endpoint.url, headers=endpoint.headers, json=body)
        except httpx.TimeoutException:
            failure = "timed out"
        except httpx.TransportError as exc:
            failure = f"connection failed ({type(exc).__name__})"
        else:
            status = response.status_code
            if status in (401, 403):
                variable = endpoint.key_variable or endpoint.config_variables
                raise ConfigurationError(
                    f"{endpoint.provider} rejected the request as unauthorised (HTTP {status}): "
                    f"check {variable}"
                )
            if status == 404:
                raise ConfigurationError(
                    f"{endpoint.provider} answered 404 ({_error_message(response, redact)}): "
                    f"check {endpoint.config_variables}"
                )
            if status == 429 or status >= 500:
                failure = f"HTTP {status}"
                wait = retry_after_seconds(response)
                if wait is not None and wait > policy.retry_after_max_s:
                    raise ProviderCallFailed(
                        f"{endpoint.provider} answered {failure} and asked to wait {wait:.0f} s, "
                        f"more than JUDGE_RETRY_AFTER_MAX_S={policy.retry_after_max_s:g}"
                    )
            elif status >= 400:
                message = _error_message(response, redact)
                raise ProviderCallFailed(f"{endpoint.provider} answered HTTP {status}: {message}")
            else:
                try:
                    data = response.json()
                except ValueError:
                    raise MalformedResponse("response body is not JSON") from None
                if not isinstance(data, dict):
                    raise MalformedResponse("response body is not a JSON object")
                return data
        if attempt >= policy.max_retries:
            raise ProviderCallFailed(
                f"{endpoint.provider} call failed: {failure} (after {attempt + 1} attempts)"
            )
        await asyncio.sleep(policy.backoff(attempt) if wait is None else wait)
        attempt += 1
