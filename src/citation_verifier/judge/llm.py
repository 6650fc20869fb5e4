"""What every LLM judge shares: one call per citation (plus one retry when the output is not a
valid verdict), token accounting, and failures turned into not_found + ``judge_error``.

A provider module only says how to build its request body and how to read its reply.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpx

from citation_verifier.judge.base import Judgement
from citation_verifier.judge.prompt import InvalidVerdict, parse_verdict
from citation_verifier.judge.transport import (
    Endpoint,
    MalformedResponse,
    ProviderCallFailed,
    RetryPolicy,
    post_json,
)
from citation_verifier.judge.usage import JudgeUsage, price_for
from citation_verifier.models import Label, Reason
from citation_verifier.passages import Passage

_OUTPUT_ATTEMPTS = 2  # the first answer, and one retry when it is not a valid verdict


@dataclass(frozen=True)
class LLMOptions:
    """Call settings shared by every provider (from Settings)."""

    model: str
    timeout_s: float
    max_output_tokens: int
    retry: RetryPolicy
    concurrency: int
    prices: Mapping[str, tuple[float, float]]


@dataclass(frozen=True)
class Reply:
    """A provider's answer, reduced to what the judge needs."""

    output: str | dict[str, Any] | None
    """The verdict as JSON text or a decoded object; None when there is none."""
    input_tokens: int
    output_tokens: int
    problem: str | None = None
    """Why the output cannot be used (truncated, refused), when it cannot."""


def int_field(data: Mapping[str, Any], key: str) -> int:
    """A non-negative integer token count, 0 when absent or not a number."""
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class LLMJudge(ABC):
    """Base class of the HTTP LLM judges (see module docstring)."""

    provider: str

    def __init__(self, endpoint: Endpoint, options: LLMOptions, *, free: bool = False) -> None:
        self._endpoint = endpoint
        self._options = options
        self._price = (0.0, 0.0) if free else price_for(options.model, options.prices)
        self._slots = asyncio.Semaphore(options.concurrency)
        self._ssl: ssl.SSLContext | None = None
        self._ssl_lock = threading.Lock()

    @property
    def name(self) -> str:
        """``provider/model``, recorded with each verdict."""
        return f"{self.provider}/{self._options.model}"

    def _ssl_context(self) -> ssl.SSLContext:
        # Loading the CA bundle costs ~0.2 s of CPU; do it once per judge, not once per call.
        with self._ssl_lock:
            if self._ssl is None:
                self._ssl = httpx.create_ssl_context()
            return self._ssl

    @abstractmethod
    def request_body(
        self, claim: str, passages: Sequence[Passage], *, repair: bool
    ) -> dict[str, Any]:
        """The provider's JSON request; ``repair`` asks again after an invalid answer."""

    @abstractmethod
    def read_reply(self, payload: dict[str, Any]) -> Reply:
        """The verdict output and token counts in the provider's response.
        Raises InvalidVerdict when the response does not have the documented shape."""

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """Judge ``claim`` against ``passages``. Never raises for bad output or a provider that
        keeps failing (not_found + ``judge_error``); raises ConfigurationError on 401/403/404."""
        if not passages:
            return Judgement(Label.NOT_FOUND, None, 1.0, usage=JudgeUsage().priced(self._price))
        usage = JudgeUsage()
        problem = "no answer"
        timeout = httpx.Timeout(self._options.timeout_s)
        async with (
            self._slots,
            httpx.AsyncClient(timeout=timeout, verify=self._ssl_context()) as client,
        ):
            for attempt in range(_OUTPUT_ATTEMPTS):
                body = self.request_body(claim, passages, repair=attempt > 0)
                try:
                    payload = await post_json(client, self._endpoint, body, self._options.retry)
                except ProviderCallFailed as exc:
                    return self._error(str(exc), usage)
                except MalformedResponse as exc:
                    usage, problem = usage.plus(0, 0), str(exc)
                    continue
                try:
                    reply = self.read_reply(payload)
                except InvalidVerdict as exc:
                    usage, problem = usage.plus(0, 0), str(exc)
                    continue
                usage = usage.plus(reply.input_tokens, reply.output_tokens)
                if reply.problem is not None or reply.output is None:
                    problem = reply.problem or "no verdict in the response"
                    continue
                try:
                    verdict = parse_verdict(reply.output)
                except InvalidVerdict as exc:
                    problem = str(exc)
                    continue
                return replace(verdict, usage=usage.priced(self._price))
        return self._error(f"no valid verdict after {_OUTPUT_ATTEMPTS} answers: {problem}", usage)

    def _error(self, detail: str, usage: JudgeUsage) -> Judgement:
        return Judgement(
            Label.NOT_FOUND,
            None,
            0.0,
            reason=Reason.JUDGE_ERROR,
            detail=f"{self.name}: {detail}",
            usage=usage.priced(self._price),
        )
