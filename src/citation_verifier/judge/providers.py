"""Builds the judge JUDGE_PROVIDER asks for (used by verifier.make_judge)."""

from __future__ import annotations

from citation_verifier.errors import ConfigurationError
from citation_verifier.judge.base import Judge
from citation_verifier.judge.cascade import CascadeJudge
from citation_verifier.judge.checker import CheckerJudge, CheckerThresholds
from citation_verifier.judge.checker_model import CheckerModel
from citation_verifier.judge.crosscheck import CrossCheckedJudge
from citation_verifier.judge.embedded import DecisionRule, EmbeddedLLMJudge
from citation_verifier.judge.lexical import LexicalJudge
from citation_verifier.judge.llama import load_label_model
from citation_verifier.judge.llm import LLMOptions
from citation_verifier.judge.model_file import model_path
from citation_verifier.judge.parts import PartsJudge
from citation_verifier.judge.transport import RetryPolicy
from citation_verifier.retrieve import Embedder
from citation_verifier.settings import Settings

LLM_PROVIDERS = ("openai", "anthropic", "ollama")


def resolve_provider(settings: Settings) -> str:
    """JUDGE_PROVIDER, with ``auto`` resolved: openai when OPENAI_API_KEY is set, else checker
    (the trained claim checker)."""
    provider = settings.judge_provider  # one of the choices: the settings model checks it
    if provider == "auto":
        key = settings.openai_api_key
        return "openai" if key is not None and key.get_secret_value().strip() else "checker"
    return provider


def judge_choice(settings: Settings) -> str:
    """One line saying which judge runs and why, for the start of a run: an API key in the
    environment must never send page text to a paid third party unnoticed."""
    provider = resolve_provider(settings)
    if settings.judge_provider != "auto":
        return f"judge: {provider} (JUDGE_PROVIDER={settings.judge_provider})"
    if provider == "openai":
        return (
            "judge: openai (JUDGE_PROVIDER=auto and OPENAI_API_KEY is set: page text is sent to "
            "OpenAI; JUDGE_PROVIDER=checker keeps it on this machine)"
        )
    return "judge: checker (JUDGE_PROVIDER=auto, no OPENAI_API_KEY: nothing leaves this machine)"


def local_judge(settings: Settings, embedder: Embedder) -> LexicalJudge:
    """The embedded lexical judge with the configured thresholds (also the cross-checker)."""
    return LexicalJudge(
        embedder,
        support_threshold=settings.lexical_judge_support_threshold,
        relevance_threshold=settings.lexical_judge_relevance_threshold,
    )


def embedded_llm_judge(settings: Settings, embedder: Embedder) -> EmbeddedLLMJudge:
    """The embedded LLM judge. The model file is located (and assembled on the first run) now,
    so a missing model is a ConfigurationError up front; it is loaded at the first judgement."""
    path = model_path(settings)
    threads = settings.local_judge_threads
    return EmbeddedLLMJudge(
        embedder,
        lambda: load_label_model(path, threads),
        model_name=path.name.removesuffix(".gguf"),
        evidence_chars=settings.local_judge_evidence_chars,
        rule=decision_rule(settings),
    )


def checker_judge(settings: Settings) -> CheckerJudge:
    """The trained checker with the CHECKER_* thresholds (the model loads at first use)."""
    model = CheckerModel(settings.checker_model_path, threads=settings.checker_threads)
    return CheckerJudge(
        model,
        model_name=model.name,
        calibration=model.calibration,
        thresholds=CheckerThresholds(
            support=settings.checker_support_threshold,
            contradict=settings.checker_contradict_threshold,
            relevance=settings.checker_relevance_threshold,
        ),
        exact_checks=settings.checker_exact_checks,
    )


def checker_with_second_opinion(settings: Settings, embedder: Embedder) -> Judge:
    """The checker alone, or in a cascade with the judge CHECKER_SECOND_OPINION names."""
    checker = checker_judge(settings)
    if settings.checker_second_opinion == "none":
        return checker
    second = (
        embedded_llm_judge(settings, embedder)
        if settings.checker_second_opinion == "local"
        else make_llm_judge(settings, settings.second_opinion_provider)
    )
    try:
        return CascadeJudge(
            checker, second, low=settings.checker_unsure_low, high=settings.checker_unsure_high
        )
    except ValueError as error:
        raise ConfigurationError(f"CHECKER_UNSURE_LOW/CHECKER_UNSURE_HIGH: {error}") from None


def decision_rule(settings: Settings) -> DecisionRule:
    """The embedded LLM judge's decision rule from LOCAL_JUDGE_* settings."""
    return DecisionRule(
        min_coverage=settings.local_judge_min_coverage,
        support_threshold=settings.local_judge_support_probability,
        contradict_margin=settings.local_judge_contradict_margin,
        ask_coverage=settings.local_judge_ask_coverage,
        contradict_similarity=settings.local_judge_contradict_similarity,
        about_similarity=settings.lexical_judge_relevance_threshold,
        about_coverage=settings.lexical_judge_support_threshold,
    )


def _required_key(settings: Settings, variable: str) -> str:
    secret = getattr(settings, variable.lower())
    value = "" if secret is None else secret.get_secret_value().strip()
    if not value:
        raise ConfigurationError(
            f"JUDGE_PROVIDER={settings.judge_provider.strip().lower()} needs {variable}: "
            f"set it in the environment"
        )
    return str(value)


def _options(settings: Settings, model: str) -> LLMOptions:
    return LLMOptions(
        model=model,
        timeout_s=settings.judge_timeout_s,
        max_output_tokens=settings.judge_max_output_tokens,
        retry=RetryPolicy(
            max_retries=settings.judge_max_retries,
            backoff_s=settings.judge_backoff_s,
            backoff_max_s=settings.judge_backoff_max_s,
            retry_after_max_s=settings.judge_retry_after_max_s,
        ),
        concurrency=settings.judge_concurrency,
        prices=settings.judge_prices,
    )


def make_llm_judge(settings: Settings, provider: str) -> Judge:
    """The LLM judge for ``provider`` (openai, anthropic, ollama), without the cross-check.
    A missing key is a ConfigurationError naming its variable."""
    if provider == "openai":
        from citation_verifier.judge.openai import OpenAIJudge, openai_endpoint

        key = _required_key(settings, "OPENAI_API_KEY")
        endpoint = openai_endpoint(settings.openai_base_url, key)
        return OpenAIJudge(endpoint, _options(settings, settings.openai_model))
    if provider == "anthropic":
        from citation_verifier.judge.anthropic import AnthropicJudge, anthropic_endpoint

        key = _required_key(settings, "ANTHROPIC_API_KEY")
        endpoint = anthropic_endpoint(settings.anthropic_base_url, key)
        return AnthropicJudge(endpoint, _options(settings, settings.anthropic_model))
    if provider == "ollama":
        from citation_verifier.judge.ollama import OllamaJudge, ollama_endpoint

        return OllamaJudge(
            ollama_endpoint(settings.ollama_host), _options(settings, settings.ollama_model)
        )
    raise ConfigurationError(f"{provider!r} is not an LLM judge provider")


def build_parts_judge(settings: Settings, embedder: Embedder) -> PartsJudge:
    """:func:`build_judge`'s judge reading a long claim part by part (judge/parts.py): the
    judge the verifier uses, whatever the provider."""
    return PartsJudge(
        build_judge(settings, embedder), embedder, k=settings.top_k, retrieval=settings.retrieval
    )


def build_judge(settings: Settings, embedder: Embedder) -> Judge:
    """The judge JUDGE_PROVIDER selects; LLM judges are wrapped in the cross-check unless
    CROSS_CHECK=false."""
    provider = resolve_provider(settings)
    if provider == "checker":
        return checker_with_second_opinion(settings, embedder)
    if provider == "local":
        return embedded_llm_judge(settings, embedder)
    if provider == "lexical":
        return local_judge(settings, embedder)
    judge = make_llm_judge(settings, provider)
    if not settings.cross_check:
        return judge
    return CrossCheckedJudge(
        judge,
        local_judge(settings, embedder),
        threshold=settings.cross_check_threshold,
        downgrade=settings.cross_check_downgrade,
    )
