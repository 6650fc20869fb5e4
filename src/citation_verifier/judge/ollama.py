"""Ollama judge: ``POST {OLLAMA_HOST}/api/chat`` with ``format`` = the verdict JSON schema
(structured outputs), ``stream: false`` and ``options.temperature`` 0. No key; cost 0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from citation_verifier.judge.llm import LLMJudge, LLMOptions, Reply, int_field
from citation_verifier.judge.prompt import (
    VERDICT_SCHEMA,
    InvalidVerdict,
    chat_messages,
)
from citation_verifier.judge.transport import Endpoint
from citation_verifier.passages import Passage


def ollama_base_url(host: str) -> str:
    """``OLLAMA_HOST`` as a base URL. Ollama accepts ``host:port`` without a scheme and the
    listen address ``0.0.0.0``; a client must connect to a real address instead."""
    host = host.strip().rstrip("/")
    if "://" not in host:
        host = "http://" + host
    parts = urlsplit(host)
    if parts.hostname == "0.0.0.0":
        host = host.replace("0.0.0.0", "127.0.0.1", 1)
    if parts.port is None and parts.hostname not in (None, "") and not parts.path:
        host += ":11434" if parts.scheme == "http" else ""
    return host


def ollama_endpoint(host: str) -> Endpoint:
    """The chat endpoint of the Ollama server at ``host``."""
    return Endpoint(
        provider="ollama",
        url=ollama_base_url(host) + "/api/chat",
        headers={},
        key_variable=None,
        config_variables="OLLAMA_MODEL and OLLAMA_HOST",
    )


class OllamaJudge(LLMJudge):
    """Judge on a local Ollama server."""

    provider = "ollama"

    def __init__(self, endpoint: Endpoint, options: LLMOptions) -> None:
        super().__init__(endpoint, options, free=True)

    def request_body(
        self, claim: str, passages: Sequence[Passage], *, repair: bool
    ) -> dict[str, Any]:
        """Chat request: system + user message, schema as ``format``, temperature 0, no stream."""
        return {
            "model": self._options.model,
            "messages": chat_messages(claim, passages, repair=repair),
            "stream": False,
            "format": VERDICT_SCHEMA,
            "options": {"temperature": 0, "num_predict": self._options.max_output_tokens},
        }

    def read_reply(self, payload: dict[str, Any]) -> Reply:
        """``message.content``; ``done_reason`` length = truncated."""
        tokens_in = int_field(payload, "prompt_eval_count")
        tokens_out = int_field(payload, "eval_count")
        message = payload.get("message")
        if not isinstance(message, dict):
            raise InvalidVerdict("response has no message")
        if payload.get("done_reason") == "length":
            return Reply(None, tokens_in, tokens_out, "output truncated (done_reason=length)")
        content = message.get("content")
        if not isinstance(content, str):
            return Reply(None, tokens_in, tokens_out, "message has no text content")
        return Reply(content, tokens_in, tokens_out)
