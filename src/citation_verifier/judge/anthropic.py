"""Anthropic judge: the Messages API with one forced tool call whose input schema is the verdict.

Plain HTTP (httpx), no SDK: ``POST {ANTHROPIC_BASE_URL}/v1/messages`` with ``x-api-key`` and
``anthropic-version``. ``tool_choice`` forces the ``record_verdict`` tool, so the verdict comes
back as the tool call's ``input`` object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citation_verifier.judge.llm import LLMJudge, Reply, int_field
from citation_verifier.judge.prompt import (
    SYSTEM_PROMPT,
    VERDICT_SCHEMA,
    VERDICT_TOOL_NAME,
    InvalidVerdict,
    user_message,
)
from citation_verifier.judge.transport import Endpoint
from citation_verifier.passages import Passage

ANTHROPIC_VERSION = "2023-06-01"


def anthropic_endpoint(base_url: str, api_key: str) -> Endpoint:
    """The Messages endpoint under ``base_url`` (the host, without ``/v1``)."""
    return Endpoint(
        provider="anthropic",
        url=base_url.rstrip("/") + "/v1/messages",
        headers={"x-api-key": api_key, "anthropic-version": ANTHROPIC_VERSION},
        key_variable="ANTHROPIC_API_KEY",
        config_variables="ANTHROPIC_MODEL and ANTHROPIC_BASE_URL",
    )


class AnthropicJudge(LLMJudge):
    """Judge on the Anthropic Messages API."""

    provider = "anthropic"

    def request_body(
        self, claim: str, passages: Sequence[Passage], *, repair: bool
    ) -> dict[str, Any]:
        """Messages request: system prompt, one user turn, temperature 0, forced verdict tool."""
        return {
            "model": self._options.model,
            "max_tokens": self._options.max_output_tokens,
            "temperature": 0,
            "system": SYSTEM_PROMPT,
            "messages": [{"role": "user", "content": user_message(claim, passages, repair=repair)}],
            "tools": [
                {
                    "name": VERDICT_TOOL_NAME,
                    "description": "Record the verdict on the claim.",
                    "input_schema": VERDICT_SCHEMA,
                }
            ],
            "tool_choice": {"type": "tool", "name": VERDICT_TOOL_NAME},
        }

    def read_reply(self, payload: dict[str, Any]) -> Reply:
        """The ``record_verdict`` tool_use block's input; ``stop_reason`` max_tokens = truncated."""
        usage = payload.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        tokens_in = int_field(usage, "input_tokens")
        tokens_out = int_field(usage, "output_tokens")
        content = payload.get("content")
        if not isinstance(content, list):
            raise InvalidVerdict("response has no content list")
        if payload.get("stop_reason") == "max_tokens":
            return Reply(None, tokens_in, tokens_out, "output truncated (stop_reason=max_tokens)")
        if payload.get("stop_reason") == "refusal":
            return Reply(None, tokens_in, tokens_out, "model refused (stop_reason=refusal)")
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and block.get("name") == VERDICT_TOOL_NAME
            ):
                verdict = block.get("input")
                if not isinstance(verdict, dict):
                    return Reply(None, tokens_in, tokens_out, "tool input is not an object")
                return Reply(verdict, tokens_in, tokens_out)
        return Reply(None, tokens_in, tokens_out, "no record_verdict tool call in the response")
