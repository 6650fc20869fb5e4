"""A loopback fake of the OpenAI Chat Completions API (``POST /v1/chat/completions``).

It checks what the real API checks for our use: the Bearer key, the model, the message roles,
and that ``response_format`` is a strict JSON schema (every property required,
``additionalProperties: false``); it also insists on temperature 0, which the real API does not
require but this project does.
"""

from __future__ import annotations

import re
import time
from typing import Any

from fake_llm import USAGE_IN, USAGE_OUT, FakeLLM, Responder, Status, strict_schema_problems

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ALLOWED = {"model", "messages", "temperature", "max_completion_tokens", "response_format"}


class FakeOpenAI(FakeLLM):
    """Fake OpenAI server; ``base_url + "/v1"`` is what OPENAI_BASE_URL should be."""

    path = "/v1/chat/completions"
    provider = "openai"

    def __init__(
        self, *, key: str = "sk-test", model: str = "gpt-test", default: Responder | None = None
    ) -> None:
        self.key, self.model = key, model
        super().__init__(default)

    @property
    def api_base(self) -> str:
        """The OPENAI_BASE_URL of this fake."""
        return self.base_url + "/v1"

    def validate(self, headers: dict[str, str], body: dict[str, Any]) -> Status | None:
        if headers.get("authorization") != f"Bearer {self.key}":
            return Status(401, message="Incorrect API key provided.")
        if body.get("model") != self.model:
            return Status(404, message=f"The model `{body.get('model')}` does not exist")
        problems: list[str] = [f"unexpected field {k}" for k in body if k not in _ALLOWED]
        messages = body.get("messages")
        if not isinstance(messages, list) or [m.get("role") for m in messages] != [
            "system",
            "user",
        ]:
            problems.append("messages must be [system, user]")
        elif not all(isinstance(m.get("content"), str) for m in messages):
            problems.append("message content must be text")
        if body.get("temperature") != 0:
            problems.append("temperature must be 0")
        fmt = body.get("response_format")
        if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
            problems.append("response_format.type must be json_schema")
        else:
            spec = fmt.get("json_schema", {})
            if spec.get("strict") is not True:
                problems.append("json_schema.strict must be true")
            if not _NAME.match(str(spec.get("name", ""))):
                problems.append("json_schema.name is invalid")
            problems.extend(strict_schema_problems(spec.get("schema")))
        if problems:
            return Status(400, message="; ".join(problems))
        return None

    def user_text(self, body: dict[str, Any]) -> str:
        return str(body["messages"][1]["content"])

    def render_success(self, body: dict[str, Any], text: str, truncated: bool) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "finish_reason": "length" if truncated else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": USAGE_IN,
                "completion_tokens": USAGE_OUT,
                "total_tokens": USAGE_IN + USAGE_OUT,
            },
        }

    def render_error(self, status: Status) -> dict[str, Any]:
        return {"error": {"message": status.message, "type": "invalid_request_error", "code": None}}
