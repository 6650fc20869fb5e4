"""OpenAI judge: Chat Completions with ``response_format`` = the strict verdict JSON schema.

Plain HTTP (httpx), no SDK: ``POST {OPENAI_BASE_URL}/chat/completions`` with a Bearer key.
Any server that speaks this API (Azure-style proxies, vLLM, LiteLLM) works through
``OPENAI_BASE_URL``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citation_verifier.judge.llm import LLMJudge, Reply, int_field
from citation_verifier.judge.prompt import (
    VERDICT_SCHEMA,
    VERDICT_TOOL_NAME,
    InvalidVerdict,
    chat_messages,
)
from citation_verifier.judge.transport import Endpoint
from citation_verifier.passages import Passage


def openai_endpoint(base_url: str, api_key: str) -> Endpoint:
    """The Chat Completions endpoint under ``base_url`` (which ends in ``/v1``)."""
    return Endpoint(
        provider="openai",
        url=base_url.rstrip("/") + "/chat/completions",
        headers={"Authorization": f"Bearer {api_key}"},
        key_variable="OPENAI_API_KEY",
        config_variables="OPENAI_MODEL and OPENAI_BASE_URL",
    )


class OpenAIJudge(LLMJudge):
    """Judge on the OpenAI Chat Completions API."""

    provider = "openai"

    def request_body(
        self, claim: str, passages: Sequence[Passage], *, repair: bool
    ) -> dict[str, Any]:
        """Chat Completions request: system + user message, temperature 0, strict schema."""
        return {
            "model": self._options.model,
            "messages": chat_messages(claim, passages, repair=repair),
            "temperature": 0,
            "max_completion_tokens": self._options.max_output_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": VERDICT_TOOL_NAME,
                    "strict": True,
                    "schema": VERDICT_SCHEMA,
                },
            },
        }

    def read_reply(self, payload: dict[str, Any]) -> Reply:
        """``choices[0].message.content``; ``finish_reason`` length = truncated; refusals."""
        usage = payload.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        tokens_in = int_field(usage, "prompt_tokens")
        tokens_out = int_field(usage, "completion_tokens")
        choices = payload.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise InvalidVerdict("response has no choices")
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise InvalidVerdict("response choice has no message")
        if message.get("refusal"):
            return Reply(None, tokens_in, tokens_out, f"model refused: {message['refusal']}"[:200])
        if choice.get("finish_reason") == "length":
            return Reply(None, tokens_in, tokens_out, "output truncated (finish_reason=length)")
        if choice.get("finish_reason") == "content_filter":
            return Reply(None, tokens_in, tokens_out, "output blocked by the content filter")
        content = message.get("content")
        if not isinstance(content, str):
            return Reply(None, tokens_in, tokens_out, "message has no text content")
        return Reply(content, tokens_in, tokens_out)
