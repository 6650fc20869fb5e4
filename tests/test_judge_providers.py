"""JUDGE_PROVIDER selection and the configuration errors of a misconfigured provider."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from citation_verifier.errors import ConfigurationError
from citation_verifier.judge.anthropic import AnthropicJudge, anthropic_endpoint
from citation_verifier.judge.cascade import CascadeJudge
from citation_verifier.judge.checker import CheckerJudge
from citation_verifier.judge.crosscheck import CrossCheckedJudge
from citation_verifier.judge.embedded import EmbeddedLLMJudge
from citation_verifier.judge.lexical import LexicalJudge
from citation_verifier.judge.ollama import OllamaJudge, ollama_base_url
from citation_verifier.judge.openai import OpenAIJudge, openai_endpoint
from citation_verifier.judge.providers import build_judge, resolve_provider
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

EMBEDDER = MiniLMEmbedder()  # lazy: nothing is loaded by these tests


def test_auto_is_the_checker_without_an_openai_key() -> None:
    settings = Settings(judge_provider="auto", openai_api_key=None)
    assert resolve_provider(settings) == "checker"
    assert isinstance(build_judge(settings, EMBEDDER), CheckerJudge)
    blank_key = Settings(judge_provider="auto", openai_api_key=SecretStr("  "))
    assert resolve_provider(blank_key) == "checker"


def test_local_is_the_embedded_llm_alone() -> None:
    assert isinstance(build_judge(Settings(judge_provider="local"), EMBEDDER), EmbeddedLLMJudge)


def test_the_checker_takes_the_second_opinion_it_is_configured_with() -> None:
    local = build_judge(
        Settings(judge_provider="checker", checker_second_opinion="local"), EMBEDDER
    )
    assert isinstance(local, CascadeJudge)
    assert local.name.startswith("checker/") and "+local/" in local.name
    api = build_judge(
        Settings(
            judge_provider="checker",
            checker_second_opinion="provider",
            second_opinion_provider="openai",
            openai_api_key=SecretStr("k"),
            review_below=0.6,
        ),
        EMBEDDER,
    )
    assert isinstance(api, CascadeJudge) and api.name.endswith("+openai/gpt-4.1-mini")
    assert api.review_below == 0.6
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        build_judge(Settings(judge_provider="checker", checker_second_opinion="provider"), EMBEDDER)


def test_lexical_is_the_lexical_baseline() -> None:
    assert isinstance(build_judge(Settings(judge_provider="lexical"), EMBEDDER), LexicalJudge)


def test_auto_is_openai_with_a_key_and_cross_checked() -> None:
    settings = Settings(judge_provider="auto", openai_api_key=SecretStr("sk-x"))
    judge = build_judge(settings, EMBEDDER)
    assert isinstance(judge, CrossCheckedJudge)
    assert judge.name == "openai/gpt-4.1-mini"


def test_cross_check_can_be_switched_off() -> None:
    settings = Settings(judge_provider="openai", openai_api_key=SecretStr("k"), cross_check=False)
    assert isinstance(build_judge(settings, EMBEDDER), OpenAIJudge)


def test_each_provider_builds_its_judge() -> None:
    anthropic = Settings(
        judge_provider="anthropic", anthropic_api_key=SecretStr("k"), cross_check=False
    )
    assert isinstance(build_judge(anthropic, EMBEDDER), AnthropicJudge)
    ollama = Settings(judge_provider="OLLAMA", cross_check=False)
    assert isinstance(build_judge(ollama, EMBEDDER), OllamaJudge)


@pytest.mark.parametrize(
    ("provider", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_missing_key_for_a_chosen_provider_names_the_variable(provider: str, variable: str) -> None:
    settings = Settings(judge_provider=provider, openai_api_key=SecretStr(""))
    with pytest.raises(ConfigurationError, match=variable):
        build_judge(settings, EMBEDDER)
    with pytest.raises(ConfigurationError, match=variable):
        Verifier(settings, embedder=EMBEDDER)


def test_unknown_provider_is_refused_when_settings_are_read_listing_the_choices() -> None:
    with pytest.raises(ValidationError, match="'auto', 'checker', 'local', 'lexical', 'openai'"):
        Settings(judge_provider="gemini")


def test_keys_never_appear_in_settings_output() -> None:
    settings = Settings(openai_api_key=SecretStr("sk-secret-1"), anthropic_api_key=SecretStr("a2"))
    assert "sk-secret-1" not in repr(settings) and "sk-secret-1" not in str(settings)
    assert "sk-secret-1" not in settings.model_dump_json()


def test_keys_never_appear_in_an_endpoint_repr() -> None:
    assert "sk-secret-2" not in repr(openai_endpoint("https://api.openai.com/v1", "sk-secret-2"))
    assert "ak-secret-3" not in repr(anthropic_endpoint("https://api.anthropic.com", "ak-secret-3"))


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("http://gpu-box:8080/", "http://gpu-box:8080"),
        ("https://ollama.example.com", "https://ollama.example.com"),
    ],
)
def test_ollama_host_forms(host: str, url: str) -> None:
    assert ollama_base_url(host) == url
