"""Helpers for the LLM judge tests: a fake server per provider and matching Settings."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from citation_verifier.settings import Settings
from fake_anthropic import FakeAnthropic
from fake_llm import FakeLLM, Responder
from fake_ollama import FakeOllama
from fake_openai import FakeOpenAI

PROVIDERS = ("openai", "anthropic", "ollama")


def make_fake(provider: str, default: Responder | None = None) -> FakeLLM:
    """An (unstarted) fake server for ``provider``."""
    if provider == "openai":
        return FakeOpenAI(default=default)
    if provider == "anthropic":
        return FakeAnthropic(default=default)
    return FakeOllama(default=default)


def provider_env(provider: str, fake: FakeLLM) -> dict[str, str]:
    """Environment variables pointing JUDGE_PROVIDER=provider at ``fake``."""
    if isinstance(fake, FakeOpenAI):
        return {
            "JUDGE_PROVIDER": provider,
            "OPENAI_BASE_URL": fake.api_base,
            "OPENAI_API_KEY": fake.key,
            "OPENAI_MODEL": fake.model,
        }
    if isinstance(fake, FakeAnthropic):
        return {
            "JUDGE_PROVIDER": provider,
            "ANTHROPIC_BASE_URL": fake.base_url,
            "ANTHROPIC_API_KEY": fake.key,
            "ANTHROPIC_MODEL": fake.model,
        }
    assert isinstance(fake, FakeOllama)
    return {"JUDGE_PROVIDER": provider, "OLLAMA_HOST": fake.base_url, "OLLAMA_MODEL": fake.model}


def llm_settings(provider: str, fake: FakeLLM, **overrides: Any) -> Settings:
    """Settings for ``provider`` on ``fake``: loopback pages allowed, fast retries."""
    values: dict[str, Any] = {
        key.lower(): SecretStr(value) if key.endswith("_API_KEY") else value
        for key, value in provider_env(provider, fake).items()
    }
    values.update(
        allow_private_urls=True,
        fetch_timeout_s=2.0,
        connect_timeout_s=1.0,
        judge_timeout_s=2.0,
        judge_max_retries=2,
        judge_backoff_s=0.01,
        judge_backoff_max_s=0.05,
        judge_prices={"gpt-test": (1.0, 2.0), "claude-test": (3.0, 4.0)},
    )
    values.update(overrides)
    return Settings(**values)
