"""The exact requests each provider client sends: model, schema, temperature 0, and the
passages fenced as untrusted data in the user message."""

from __future__ import annotations

import httpx

from citation_verifier.judge.prompt import SYSTEM_PROMPT, VERDICT_SCHEMA, user_message
from citation_verifier.judge.providers import make_llm_judge
from citation_verifier.passages import split_passages
from llm_setup import llm_settings, make_fake

CLAIM = "The Eiffel Tower is 330 metres tall."
PASSAGES = split_passages("The Eiffel Tower is 330 metres tall.\n\nIt opened in 1889.", 6)


async def sent_request(provider: str) -> tuple[dict[str, object], dict[str, str]]:
    with make_fake(provider) as fake:
        settings = llm_settings(provider, fake, judge_max_output_tokens=300)
        await make_llm_judge(settings, provider).judge(CLAIM, PASSAGES)
    assert len(fake.requests) == 1
    return fake.requests[0], fake.headers[0]


async def test_openai_request_is_chat_completions_with_a_strict_schema() -> None:
    body, headers = await sent_request("openai")
    assert headers["authorization"] == "Bearer sk-test"
    assert body == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user_message(CLAIM, PASSAGES)},
        ],
        "temperature": 0,
        "max_completion_tokens": 300,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "record_verdict", "strict": True, "schema": VERDICT_SCHEMA},
        },
    }


async def test_anthropic_request_forces_the_verdict_tool() -> None:
    body, headers = await sent_request("anthropic")
    assert headers["x-api-key"] == "ak-test"
    assert headers["anthropic-version"] == "2023-06-01"
    assert body == {
        "model": "claude-test",
        "max_tokens": 300,
        "temperature": 0,
        "system": SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": user_message(CLAIM, PASSAGES)}],
        "tools": [
            {
                "name": "record_verdict",
                "description": "Record the verdict on the claim.",
                "input_schema": VERDICT_SCHEMA,
            }
        ],
        "tool_choice": {"type": "tool", "name": "record_verdict"},
    }


async def test_ollama_request_uses_the_schema_as_format_without_streaming() -> None:
    body, _ = await sent_request("ollama")
    assert body == {
        "model": "llama-test",
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user_message(CLAIM, PASSAGES)},
        ],
        "stream": False,
        "format": VERDICT_SCHEMA,
        "options": {"temperature": 0, "num_predict": 300},
    }


def test_schema_is_strict_with_the_three_required_fields() -> None:
    assert VERDICT_SCHEMA["additionalProperties"] is False
    assert VERDICT_SCHEMA["required"] == ["label", "evidence_quote", "confidence"]
    assert VERDICT_SCHEMA["properties"]["label"]["enum"] == [
        "supported",
        "contradicted",
        "not_found",
    ]
    assert VERDICT_SCHEMA["properties"]["evidence_quote"]["type"] == ["string", "null"]


async def test_the_fake_rejects_a_non_strict_schema() -> None:
    """The OpenAI fake enforces strict mode, so the assertions above are not vacuous."""
    with make_fake("openai") as fake:
        loose = {k: v for k, v in VERDICT_SCHEMA.items() if k != "additionalProperties"}
        body = {
            "model": "gpt-test",
            "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "v", "strict": False, "schema": loose},
            },
        }
        async with httpx.AsyncClient() as client:
            response = await client.post(
                fake.base_url + "/v1/chat/completions",
                json=body,
                headers={"Authorization": "Bearer sk-test"},
            )
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "strict must be true" in message and "additionalProperties must be false" in message


async def test_the_anthropic_fake_rejects_an_unforced_tool_and_missing_version() -> None:
    with make_fake("anthropic") as fake:
        body = {
            "model": "claude-test",
            "max_tokens": 10,
            "temperature": 0,
            "system": "s",
            "messages": [{"role": "user", "content": "u"}],
            "tools": [{"name": "t", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "auto"},
        }
        async with httpx.AsyncClient() as client:
            response = await client.post(
                fake.base_url + "/v1/messages", json=body, headers={"x-api-key": "ak-test"}
            )
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "anthropic-version" in message and "tool_choice must force" in message


async def test_the_ollama_fake_rejects_streaming_and_sampling_temperature() -> None:
    with make_fake("ollama") as fake:
        body = {
            "model": "llama-test",
            "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
            "format": VERDICT_SCHEMA,
            "options": {"temperature": 0.8},
        }
        async with httpx.AsyncClient() as client:
            response = await client.post(fake.base_url + "/api/chat", json=body)
    assert response.status_code == 400
    message = response.json()["error"]
    assert "stream must be false" in message and "temperature must be 0" in message
