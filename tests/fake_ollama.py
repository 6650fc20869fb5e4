"""A loopback fake of Ollama's ``POST /api/chat``.

Checks the model (404 "not found, try pulling it first" otherwise), ``stream: false`` (the real
server streams NDJSON by default), ``format`` as a JSON schema object, ``options.temperature``
0 and the message roles.
"""

from __future__ import annotations

from typing import Any

from fake_llm import USAGE_IN, USAGE_OUT, FakeLLM, Responder, Status


class FakeOllama(FakeLLM):
    """Fake Ollama server; ``base_url`` is what OLLAMA_HOST should be."""

    path = "/api/chat"
    provider = "ollama"

    def __init__(self, *, model: str = "llama-test", default: Responder | None = None) -> None:
        self.model = model
        super().__init__(default)

    def validate(self, headers: dict[str, str], body: dict[str, Any]) -> Status | None:
        if body.get("model") != self.model:
            return Status(
                404, message=f'model "{body.get("model")}" not found, try pulling it first'
            )
        problems: list[str] = []
        if body.get("stream") is not False:
            problems.append("stream must be false")
        fmt = body.get("format")
        if not isinstance(fmt, dict) or fmt.get("type") != "object":
            problems.append("format must be a JSON schema object")
        options = body.get("options")
        if not isinstance(options, dict) or options.get("temperature") != 0:
            problems.append("options.temperature must be 0")
        messages = body.get("messages")
        if not isinstance(messages, list) or [m.get("role") for m in messages] != [
            "system",
            "user",
        ]:
            problems.append("messages must be [system, user]")
        if problems:
            return Status(400, message="; ".join(problems))
        return None

    def user_text(self, body: dict[str, Any]) -> str:
        return str(body["messages"][1]["content"])

    def render_success(self, body: dict[str, Any], text: str, truncated: bool) -> dict[str, Any]:
        return {
            "model": body["model"],
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": text},
            "done": True,
            "done_reason": "length" if truncated else "stop",
            "total_duration": 1000,
            "prompt_eval_count": USAGE_IN,
            "eval_count": USAGE_OUT,
        }

    def render_error(self, status: Status) -> dict[str, Any]:
        return {"error": status.message}
