"""Builds the judge JUDGE_PROVIDER asks for (used by verifier.make_judge)."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from citation_verifier.errors import ConfigurationError, ModelUnavailableError
from citation_verifier.judge.base import Judge
from citation_verifier.judge.calibration import card_for
from citation_verifier.judge.cascade import CascadeJudge
from citation_verifier.judge.checker import CheckerJudge, CheckerThresholds
from citation_verifier.judge.checker_model import CheckerModel
from citation_verifier.judge.crosscheck import CrossCheckedJudge
from citation_verifier.judge.embedded import DecisionRule, EmbeddedLLMJudge
from citation_verifier.judge.lexical import LexicalJudge
from citation_verifier.judge.llama import LabelModel, load_label_model
from citation_verifier.judge.llm import LLMOptions
from citation_verifier.judge.model_file import QWEN_CODER_1_5B, model_path
from citation_verifier.judge.parts import PartsJudge
from citation_verifier.judge.routing import ENGLISH_ONLY, LanguageRouter, LazyJudge, Route
from citation_verifier.judge.russian_clauses import RussianParser
from citation_verifier.judge.transport import RetryPolicy
from citation_verifier.retrieve import Embedder, TermsEmbedder
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
    """One line saying which judge runs and why, and which judge reads which language, for the
    start of a run: an API key in the environment must never send page text to a paid third
    party unnoticed, and a language nobody reads must not come as a surprise."""
    provider = resolve_provider(settings)
    if settings.judge_provider != "auto":
        main = f"judge: {provider} (JUDGE_PROVIDER={settings.judge_provider})"
    elif provider == "openai":
        main = (
            "judge: openai (JUDGE_PROVIDER=auto and OPENAI_API_KEY is set: page text is sent to "
            "OpenAI; JUDGE_PROVIDER=checker keeps it on this machine)"
        )
    else:
        main = (
            "judge: checker (JUDGE_PROVIDER=auto, no OPENAI_API_KEY: nothing leaves this machine)"
        )
    return f"{main}; {language_choice(settings)}"


def language_choice(settings: Settings) -> str:
    """Which judge reads which language under these settings, and why (docs/LANGUAGES.md)."""
    provider = resolve_provider(settings)
    local = ", ".join(settings.local_judge_languages)
    if provider in LLM_PROVIDERS:
        return f"languages: {provider} reads any language"
    if provider == "local":
        return (
            f"languages: the embedded LLM reads {local} (claim and page in the same one); "
            "others are not judged"
        )
    english = f"languages: the {provider} reads English"
    choice = settings.language_judge
    if choice == "none":
        return f"{english}; others are not judged (LANGUAGE_JUDGE=none)"
    if choice in LLM_PROVIDERS:
        return f"{english}; {choice} reads the others (LANGUAGE_JUDGE={choice})"
    if local_llm_installed(settings):
        return (
            f"{english}; the embedded LLM reads {local}, claim and page in the same one "
            f"(LANGUAGE_JUDGE={choice})"
        )
    return (
        f"{english}; others are not judged (unsupported_language): the embedded LLM that "
        "would read them is not installed"
    )


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
    return EmbeddedLLMJudge(
        embedder,
        lambda: shared_label_model(path, settings.local_judge_threads),
        model_name=path.name.removesuffix(".gguf"),
        evidence_chars=settings.local_judge_evidence_chars,
        rule=decision_rule(settings),
        russian=RussianParser()
        if settings.local_judge_russian_checks and RussianParser.available()
        else None,
    )


def lexical_llm_judge(settings: Settings) -> EmbeddedLLMJudge:
    """The embedded LLM judge choosing its evidence sentences by word overlap: for languages
    all-MiniLM-L6-v2 cannot read."""
    return embedded_llm_judge(settings, TermsEmbedder())


@functools.cache
def shared_label_model(path: Path, threads: int) -> LabelModel:
    """One loaded model per file for the whole process (it is 1 GB; the English and the
    other-language judges share it)."""
    return load_label_model(path, threads)


def _model_name(settings: Settings) -> str:
    path = settings.local_judge_model_path or QWEN_CODER_1_5B.file_name
    return Path(path).name.removesuffix(".gguf")


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
        check_positive_form=settings.checker_positive_form,
        negated_sentences=settings.checker_negated_sentences,
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
    return CascadeJudge(
        checker,
        second,
        card=card_for(settings.calibration_path),
        review_below=settings.review_below,
    )


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
    """:func:`build_judge`'s judge reading a long claim part by part (judge/parts.py)."""
    return PartsJudge(
        build_judge(settings, embedder),
        embedder,
        k=settings.top_k,
        retrieval=settings.retrieval,
        max_parts=settings.max_claim_parts,
    )


def _in_parts(judge: Judge, settings: Settings) -> PartsJudge:
    """``judge`` reading a long claim part by part, with passages ranked lexically: the judge
    of pairs in languages the embedding model cannot read."""
    return PartsJudge(
        judge,
        TermsEmbedder(),
        k=settings.top_k,
        retrieval="lexical",
        max_parts=settings.max_claim_parts,
    )


def local_llm_installed(settings: Settings) -> bool:
    """Whether the embedded LLM can run: llama.cpp importable and a model file at hand (the
    packaged one's chunks installed, or LOCAL_JUDGE_MODEL_PATH)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False
    if settings.local_judge_model_path is not None:
        return settings.local_judge_model_path.expanduser().is_file()
    try:
        for part in range(1, QWEN_CODER_1_5B.parts + 1):
            QWEN_CODER_1_5B.chunk_path(part)
    except ModelUnavailableError:
        return False
    return True


_LLM_HINT = (
    "install the embedded LLM (pip install 'citation-verifier[local-llm]'), or set "
    "LANGUAGE_JUDGE to an API judge (openai, anthropic, ollama) with its key"
)


def _language_route(settings: Settings, provider: str) -> Route | None:
    """The route of the pairs the main judge cannot read, as LANGUAGE_JUDGE says."""
    choice = settings.language_judge
    if choice == "auto":
        choice = "local" if provider != "local" and local_llm_installed(settings) else "none"
    if choice == "none":
        return None
    if choice == "local":
        if not local_llm_installed(settings):
            missing = "LANGUAGE_JUDGE=local: the embedded LLM is missing"
            raise ConfigurationError(f"{missing}: {_LLM_HINT}")
        name = f"local/{_model_name(settings)}"
        lazy = LazyJudge(name, lambda: _in_parts(lexical_llm_judge(settings), settings))
        return Route(lazy, frozenset(settings.local_judge_languages), across=False)
    return Route(_in_parts(make_llm_judge(settings, choice), settings), None)


def build_router(settings: Settings, embedder: Embedder) -> LanguageRouter:
    """Every judge the configuration gives, with the languages each reads (judge/routing.py):
    the JUDGE_PROVIDER judge first, then LANGUAGE_JUDGE's for the pairs it cannot read."""
    provider = resolve_provider(settings)
    main = build_parts_judge(settings, embedder)
    if provider in LLM_PROVIDERS:
        # The cross-check re-reads quotes with the English lexical judge: English pairs only.
        plain = _in_parts(make_llm_judge(settings, provider), settings)
        return LanguageRouter([Route(main, ENGLISH_ONLY), Route(plain, None)])
    if provider == "local":
        local = frozenset(settings.local_judge_languages)
        lexical = LazyJudge(main.name, lambda: _in_parts(lexical_llm_judge(settings), settings))
        routes = [Route(main, ENGLISH_ONLY & local), Route(lexical, local, across=False)]
    else:
        routes = [Route(main, ENGLISH_ONLY)]
        extra = _language_route(settings, provider)
        routes += [extra] if extra is not None else []
    return LanguageRouter(routes, _language_hint(settings))


def _language_hint(settings: Settings) -> str:
    """What would give a judge to a pair nobody reads, on this installation."""
    api = "LANGUAGE_JUDGE to an API judge (openai, anthropic, ollama) with its key"
    if not local_llm_installed(settings):
        if settings.language_judge == "none":
            return (
                "set LANGUAGE_JUDGE=auto after pip install 'citation-verifier[local-llm]' "
                f"(the embedded LLM), or {api}"
            )
        return _LLM_HINT
    if settings.language_judge == "none":
        return f"set LANGUAGE_JUDGE=auto (the embedded LLM, installed), or {api}"
    return (
        "the embedded LLM reads only LOCAL_JUDGE_LANGUAGES "
        f"({', '.join(settings.local_judge_languages)}); set {api}"
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
