"""A loopback fake of the Anthropic Messages API (``POST /v1/messages``).

Checks the ``x-api-key`` and ``anthropic-version`` headers, the model, ``max_tokens``, user-only
messages with a top-level system prompt, temperature 0, and a forced tool call
(``tool_choice: {type: tool, name}``) naming a tool with an object ``input_schema``. The verdict
comes back as that tool's ``input``; prose that is not a JSON object comes back as a text block.
"""

from __future__ import annotations

import json
from typing import Any

from fake_llm import USAGE_IN, USAGE_OUT, FakeLLM, Responder, Status


class FakeAnthropic(FakeLLM):
    """Fake Anthropic server; ``base_url`` is what ANTHROPIC_BASE_URL should be."""

    path = "/v1/messages"
    provider = "anthropic"

    def __init__(
        self, *, key: str = "ak-test", model: str = "claude-test", default: Responder | None = None
    ) -> None:
        self.key, self.model = key, model
        super().__init__(default)

    def validate(self, headers: dict[str, str], body: dict[str, Any]) -> Status | None:
        if headers.get("x-api-key") != self.key:
            return Status(401, message="invalid x-api-key")
        problems: list[str] = []
        if not headers.get("anthropic-version"):
            problems.append("anthropic-version header is required")
        if body.get("model") != self.model:
            return Status(404, message=f"model: {body.get('model')}")
        if not isinstance(body.get("max_tokens"), int):
            problems.append("max_tokens: field required")
        messages = body.get("messages")
        if not isinstance(messages, list) or [m.get("role") for m in messages] != ["user"]:
            problems.append("messages must be one user turn (system goes top-level)")
        if not isinstance(body.get("system"), str):
            problems.append("system prompt must be a top-level string")
        if body.get("temperature") != 0:
            problems.append("temperature must be 0")
        tools = body.get("tools")
        names = [t.get("name") for t in tools] if isinstance(tools, list) else []
        if not names or not all(
            isinstance(t.get("input_schema"), dict) and t["input_schema"].get("type") == "object"
            for t in tools or []
        ):
            problems.append("tools need a name and an object input_schema")
        choice = body.get("tool_choice")
        if (
            not isinstance(choice, dict)
            or choice.get("type") != "tool"
            or choice.get("name") not in names
        ):
            problems.append("tool_choice must force one of the tools")
        if problems:
            return Status(400, message="; ".join(problems))
        return None

    def user_text(self, body: dict[str, Any]) -> str:
        return str(body["messages"][0]["content"])

    def render_success(self, body: dict[str, Any], text: str, truncated: bool) -> dict[str, Any]:
        tool = body["tool_choice"]["name"]
        try:
            verdict = json.loads(text)
        except json.JSONDecodeError:
            verdict = None
        if truncated:
            content: list[dict[str, Any]] = [
                {"type": "tool_use", "id": "toolu_fake", "name": tool, "input": {}}
            ]
        elif isinstance(verdict, dict):
            content = [{"type": "tool_use", "id": "toolu_fake", "name": tool, "input": verdict}]
        else:
            content = [{"type": "text", "text": text}]
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": "max_tokens" if truncated else "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT},
        }

    def render_error(self, status: Status) -> dict[str, Any]:
        kind = {401: "authentication_error", 429: "rate_limit_error", 529: "overloaded_error"}
        return {
            "type": "error",
            "error": {"type": kind.get(status.status, "api_error"), "message": status.message},
        }
