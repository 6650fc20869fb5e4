"""Every threshold, limit, path and key, read from the environment in one place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, IPvAnyNetwork, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

LOCAL_JUDGE_LANGUAGES = ("en", "ja", "ru", "de", "es", "cs", "id", "zh", "sw")
"""The languages the embedded LLM was measured to read: balanced accuracy at least 0.65 on
human-labelled test rows of each (docs/LANGUAGES.md)."""

Retrieval = Literal["embedding", "hybrid", "lexical"]
"""How the retrieve stage ranks passages (:func:`citation_verifier.retrieve.top_passages`)."""


class Settings(BaseSettings):
    """Configuration of one process. All fields are optional; the embedded defaults need none.

    Each field reads the environment variable of the same name in upper case
    (``SOFT_404_MAX_CHARS``, ``ALLOW_PRIVATE_URLS``, ...).
    """

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", frozen=True)

    # --- fetch ---
    fetcher: Literal["auto", "direct", "crawlbase"] = Field(
        default="auto",
        description="Fetch backend: auto (crawlbase when CRAWLBASE_TOKEN is set, else direct), "
        "direct, crawlbase.",
    )
    allow_private_urls: bool = Field(
        default=False,
        description="Allow loopback/private/link-local targets. Off by default (SSRF guard).",
    )
    private_allowlist: Annotated[list[IPvAnyNetwork], NoDecode] = Field(
        default_factory=list,
        description="Non-public networks that may be fetched even with the guard on, as a JSON "
        'list, e.g. ["10.20.0.0/16"].',
    )
    fetch_timeout_s: float = Field(default=20.0, gt=0, description="Whole-fetch deadline.")
    connect_timeout_s: float = Field(
        default=10.0, gt=0, description="Deadline to open a connection (within FETCH_TIMEOUT_S)."
    )
    max_body_bytes: int = Field(default=10 * 1024 * 1024, gt=0, description="Body size cap.")
    max_redirects: int = Field(
        default=10, ge=0, description="Redirect hops followed (each checked by the SSRF guard)."
    )
    user_agent: str = Field(
        default="citation-verifier/0.1 (+https://github.com/citation-verifier)",
        description="User-Agent sent by the direct fetcher.",
    )
    fetch_concurrency: int = Field(default=8, ge=1, description="Parallel fetches per process.")

    # --- extraction and page rules ---
    extract_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="Longest text extraction of one page: a PDF stops there with the pages read "
        "so far; any other page not read by then is a timeout.",
    )
    pdf_max_pages: int = Field(
        default=300, ge=1, description="PDF pages whose text is extracted; later pages are not."
    )
    extract_workers: int = Field(
        default=2,
        ge=1,
        description="Threads that extract page text, apart from those that resolve host names.",
    )
    readability_min_chars: int = Field(
        default=200, ge=0, description="Readable text below this many non-whitespace chars is thin."
    )
    soft_404_max_chars: int = Field(
        default=800, ge=0, description="A not-found template must be shorter than this to count."
    )
    wall_max_outside_chars: int = Field(
        default=300,
        ge=0,
        description="A page is a wall (bot challenge, consent, login, age or geo notice) only when "
        "the text outside the wall's own markup (dialogs, forms, navigation) is shorter than this "
        "(non-whitespace chars): a real article carrying a cookie banner is read as the article.",
    )
    wall_recovery: bool = Field(
        default=True,
        description="Try one bounded recovery per wall: refuse consent in the browser, render a "
        "JavaScript challenge once, ask the Crawling API (when a token is set); never log in or "
        "get around a paywall.",
    )
    retry_after_max_s: float = Field(
        default=3.0,
        ge=0,
        description="A 429/503 whose Retry-After is at most this many seconds is retried once "
        "after waiting; a longer one is reported (retry_after_s), never slept through.",
    )

    # --- passages and retrieval ---
    passage_max_words: int = Field(
        default=200,
        ge=1,
        description="Paragraphs are packed into passages of at most this many words.",
    )
    max_passages_embedded: int = Field(
        default=128,
        ge=1,
        description="Passages of one page ranked by embedding; a longer page's are first "
        "narrowed to this many by BM25.",
    )
    top_k: int = Field(
        default=3, ge=1, description="Passages (most relevant to the claim) the judge reads."
    )
    retrieval: Retrieval = Field(
        default="embedding",
        description=(
            "How passages are ranked against the claim: embedding cosine (embedding), BM25 "
            "and embedding cosine fused (hybrid), or BM25 alone (lexical)."
        ),
    )

    # --- judge ---
    judge_provider: Literal[
        "auto", "checker", "local", "lexical", "openai", "anthropic", "ollama"
    ] = Field(
        default="auto",
        description="Judge: auto (openai when OPENAI_API_KEY is set, else checker), checker (the "
        "trained claim checker, with the second opinion of CHECKER_SECOND_OPINION), local (the "
        "embedded LLM alone), lexical (the embedded lexical baseline), openai, anthropic, ollama.",
    )

    # The trained claim checker (docs/CHECKER_MODEL.md); defaults set on dev data (tune rows).
    checker_model_path: Path | None = Field(
        default=None,
        description="Another ONNX checker of the same shape instead of the shipped one.",
    )
    checker_threads: int = Field(
        default=0, ge=0, description="CPU threads for the checker; 0 = ONNX Runtime's default."
    )
    checker_support_threshold: float = Field(
        default=0.35, ge=0, le=1, description="P(supported) of the best chunk needed to support."
    )
    checker_contradict_threshold: float = Field(
        default=0.4, ge=0, le=1, description="P(contradicted) of a relevant chunk to contradict."
    )
    checker_relevance_threshold: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Claim-term coverage a chunk needs before it may contradict the claim.",
    )
    checker_exact_checks: bool = Field(
        default=True,
        description="Let the checker's exact checks (numbers, polarity, roles, verbatim "
        "sentences; docs/BEHAVIOUR.md) overrule the model where they are exact.",
    )
    checker_positive_form: bool = Field(
        default=True,
        description="Also read a claim with one plain negation ('X is not Y') as its positive "
        "form on passages that negate nothing: the model reads a negation as contradiction "
        "whatever the page says, so such a claim is contradicted only where the passage is "
        "about its positive form (docs/BEHAVIOUR.md).",
    )
    checker_negated_sentences: int = Field(
        default=2,
        ge=0,
        le=10,
        description="Also score a claim that negates something against this many sentences of "
        "its passages, those holding most of its words (0: passages only): over a whole "
        "passage the model reads a claim's 'not' as contradiction (docs/CHECKER_MODEL.md).",
    )
    local_judge_russian_checks: bool = Field(
        default=True,
        description="Let the embedded LLM's Russian clause checks (commitment, negation, roles "
        "from a dependency parse; docs/LANGUAGES.md) overrule its supported verdicts.",
    )
    checker_second_opinion: Literal["none", "local", "provider"] = Field(
        default="none",
        description="Who decides where the checker's verdict would need review (confidence under "
        "REVIEW_BELOW): none (the checker alone), local (the embedded LLM), provider (the API "
        "judge of SECOND_OPINION_PROVIDER).",
    )
    second_opinion_provider: Literal["openai", "anthropic", "ollama"] = Field(
        default="openai", description="The API judge asked when CHECKER_SECOND_OPINION=provider."
    )
    review_below: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="A judged verdict whose confidence (the calibrated probability it is right) "
        "is under this keeps its label and gets needs_review with the reason; 0 marks none.",
    )
    calibration_path: Path | None = Field(
        default=None,
        description="A calibration card fitted by `citation-verifier calibrate` (default: the "
        "shipped one).",
    )
    lexical_judge_support_threshold: float = Field(
        default=0.80,
        ge=0,
        le=1,
        description="Claim-term coverage a sentence needs to support (lexical judge) or to be "
        "about the claim (the embedded LLM judge's number check).",
    )
    lexical_judge_relevance_threshold: float = Field(
        default=0.55,
        ge=0,
        le=1,
        description="Cosine a sentence needs to be about the claim (both embedded judges).",
    )

    local_judge_model_path: Path | None = Field(
        default=None,
        description="An instruct GGUF model for the embedded judge instead of the packaged "
        "Qwen2.5-Coder-1.5B-Instruct.",
    )
    local_judge_model_dir: Path = Field(
        default=Path.home() / ".cache" / "citation-verifier" / "models",
        description="Where the packaged model is assembled (once, about 1.1 GB).",
    )
    local_judge_threads: int = Field(
        default=0, ge=0, description="CPU threads for the embedded LLM; 0 = all cores."
    )
    # Defaults tuned on dev data (bench/embedded_judge_ablation.py, docs/EMBEDDED_JUDGE.md).
    local_judge_evidence_chars: int = Field(
        default=300,
        ge=50,
        description="Evidence sentences shown to the embedded LLM, in characters (its cost).",
    )
    local_judge_support_probability: float = Field(
        default=0.6, ge=0, le=1, description="P(supported) the embedded LLM needs to say supported."
    )
    local_judge_min_coverage: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Claim-term coverage by the evidence the embedded LLM needs to say supported.",
    )
    local_judge_contradict_margin: float = Field(
        default=0.0,
        ge=-1,
        le=1,
        description="How far P(contradicted) must exceed P(not_found) to say contradicted.",
    )
    local_judge_contradict_similarity: float = Field(
        default=0.3,
        ge=-1,
        le=1,
        description="Cosine an evidence sentence needs with the claim for the embedded LLM to "
        "say contradicted.",
    )
    local_judge_ask_coverage: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Below this claim-term coverage the embedded LLM is not asked: not_found.",
    )

    # --- languages (docs/LANGUAGES.md) ---
    language_judge: Literal["auto", "local", "openai", "anthropic", "ollama", "none"] = Field(
        default="auto",
        description="Who judges the pairs the main judge cannot read (the checker reads "
        "English only): auto (the embedded LLM when it is installed), local, openai, anthropic, "
        "ollama, or none (such pairs get unsupported_language, never a guess).",
    )
    local_judge_languages: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(LOCAL_JUDGE_LANGUAGES),
        description="Languages (ISO 639-1, a JSON list) the embedded LLM judges; default: "
        "those it was measured on (docs/LANGUAGES.md).",
    )

    # --- paths ---
    cache_dir: Path = Field(
        default=Path.home() / ".cache" / "citation-verifier",
        description="Where the audit database and page snapshots live by default.",
    )

    # --- Crawlbase backend (secrets are SecretStr: never printed) ---
    crawlbase_token: SecretStr | None = Field(default=None, description="Normal token.")
    crawlbase_js_token: SecretStr | None = Field(
        default=None, description="JavaScript token (rendered pages, 2 credits a request)."
    )
    crawlbase_api_url: str = Field(
        default="https://api.crawlbase.com", description="Base URL of the Crawling/Storage API."
    )
    crawlbase_format: Literal["md", "html"] = Field(
        default="md",
        description="md: Crawlbase converts to Markdown (readability retry is a second request); "
        "html: one stored HTML page, readability and its fallback run locally.",
    )
    crawlbase_js_on_normal_token: bool = Field(
        default=False,
        description="Without CRAWLBASE_JS_TOKEN, render with javascript=true on the normal token.",
    )
    crawlbase_store: bool = Field(default=True, description="Send store=true (keeps a rid).")
    crawlbase_timeout_s: float = Field(
        default=90.0, gt=0, description="Per-request timeout; Crawlbase advises at least 90 s."
    )
    crawlbase_concurrency: int = Field(
        default=20, ge=1, description="Concurrent requests per token, shared by the process."
    )
    crawlbase_max_retries: int = Field(
        default=2, ge=0, description="Retries after an API 5xx or a timeout (backoff between)."
    )
    crawlbase_backoff_s: float = Field(
        default=1.0, ge=0, description="First backoff; doubles on every retry."
    )
    crawlbase_max_429_waits: int = Field(
        default=3, ge=0, description="How many times an HTTP 429 is waited out."
    )
    crawlbase_max_retry_after_s: float = Field(
        default=30.0, ge=0, description="Upper bound on one Retry-After wait."
    )

    # --- LLM judges ---
    openai_api_key: SecretStr | None = Field(
        default=None, description="Key for JUDGE_PROVIDER=openai."
    )
    openai_base_url: str = Field(
        default="https://api.openai.com/v1", description="OpenAI-compatible API base URL."
    )
    openai_model: str = Field(default="gpt-4.1-mini", description="Model of JUDGE_PROVIDER=openai.")
    anthropic_api_key: SecretStr | None = Field(
        default=None, description="Key for JUDGE_PROVIDER=anthropic."
    )
    anthropic_base_url: str = Field(
        default="https://api.anthropic.com", description="Anthropic Messages API base URL."
    )
    anthropic_model: str = Field(
        default="claude-haiku-4-5", description="Model of JUDGE_PROVIDER=anthropic."
    )
    ollama_host: str = Field(
        default="http://127.0.0.1:11434", description="Ollama server of JUDGE_PROVIDER=ollama."
    )
    ollama_model: str = Field(
        default="qwen2.5:7b-instruct", description="Model of JUDGE_PROVIDER=ollama."
    )
    judge_timeout_s: float = Field(default=60.0, gt=0, description="Per LLM call.")
    judge_max_retries: int = Field(
        default=3, ge=0, description="Retries on 429/5xx/timeouts/connection errors."
    )
    judge_backoff_s: float = Field(default=1.0, ge=0, description="First retry backoff; doubles.")
    judge_backoff_max_s: float = Field(
        default=30.0, ge=0, description="Longest pause between retries of an LLM call."
    )
    judge_retry_after_max_s: float = Field(
        default=120.0, ge=0, description="A longer Retry-After fails the call instead of waiting."
    )
    judge_max_output_tokens: int = Field(
        default=1024, ge=16, description="Output token cap of an LLM verdict."
    )
    judge_concurrency: int = Field(default=8, ge=1, description="Parallel LLM calls per judge.")
    judge_prices: Annotated[dict[str, tuple[float, float]], NoDecode] = Field(
        default_factory=lambda: {
            "gpt-4.1-mini": (0.40, 1.60),
            "gpt-4.1-nano": (0.10, 0.40),
            "gpt-4.1": (2.00, 8.00),
            "gpt-4o-mini": (0.15, 0.60),
            "gpt-4o": (2.50, 10.00),
            "claude-haiku-4-5": (1.00, 5.00),
            "claude-sonnet-4-5": (3.00, 15.00),
            "claude-opus-4-1": (15.00, 75.00),
        },
        description="Model name (or prefix) → (input, output) USD per million tokens; JSON.",
    )
    cross_check: bool = Field(
        default=True, description="Re-score LLM quotes with the embedded judge (crosscheck.py)."
    )
    cross_check_threshold: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="Agreement below this flags cross_check=disagree. 0.05: the highest value "
        "that flags at most 5 % of correct verdicts on dev data (docs/LLM_JUDGES.md).",
    )
    cross_check_downgrade: bool = Field(
        default=False, description="Turn a cross-check disagreement into not_found."
    )

    # --- web archive (Wayback Machine) ---
    archive_fallback: Literal["dead", "never", "always"] = Field(
        default="dead",
        description="When to judge the Wayback Machine's copy instead of the live page: dead "
        "(dead links: HTTP errors, soft 404s, homepage redirects, DNS/connection/TLS failures, "
        "timeouts), always (also live pages that give nothing to judge: empty, JavaScript-only, "
        "unreadable), never.",
    )
    archive_url: str = Field(
        default="https://archive.org",
        description="Wayback Machine base URL: the availability API is ARCHIVE_URL/wayback/"
        "available. Captures are fetched directly (never through Crawlbase).",
    )
    archive_private_urls: bool = Field(
        default=False,
        description="Also look up cited pages at non-public addresses (loopback, private, "
        "link-local; names like localhost) in ARCHIVE_URL. Off by default, whatever "
        "ALLOW_PRIVATE_URLS says: a lookup sends the cited URL to the archive, a third party. "
        "Only for an archive you run yourself (the demo's and the tests' loopback archive).",
    )
    archive_timeout_s: float = Field(
        default=10.0, gt=0, description="Per-request timeout of an archive lookup."
    )
    archive_budget_s: float = Field(
        default=20.0, gt=0, description="Time one citation may spend on the archive in all."
    )
    archive_max_requests: int = Field(
        default=4, ge=1, description="Archive requests (retries included) one citation may make."
    )
    archive_cache_ttl_s: float = Field(
        default=3600.0, ge=0, description="How long an archive lookup's answer is reused."
    )

    # --- browser rendering ---
    render_js: Literal["auto", "never", "always"] = Field(
        default="auto",
        description="JavaScript rendering: auto (only pages that need it), never, always.",
    )
    browser_executable: Path = Field(
        default=Path("/usr/bin/chromium"), description="Chromium binary Playwright drives."
    )
    browser_pages: int = Field(default=4, ge=1, description="Pages rendered at once (page pool).")
    render_timeout_s: float = Field(
        default=20.0, gt=0, description="Whole-render deadline per page, navigation included."
    )
    render_idle_timeout_s: float = Field(
        default=5.0, ge=0, description="How long to wait for network idle before reading the page."
    )
    render_max_bytes: int = Field(
        default=25 * 1024 * 1024, gt=0, description="Bytes one rendered page may load in all."
    )
    render_max_requests: int = Field(
        default=200,
        ge=1,
        description="Requests one rendered page may make in all; further ones are refused.",
    )
    render_request_concurrency: int = Field(
        default=8,
        ge=1,
        description="Requests of one rendered page forwarded at once; the rest wait their turn.",
    )
    render_notice_max_chars: int = Field(
        default=1000,
        ge=0,
        description="A page with a <noscript> enable-JavaScript notice needs a browser when its "
        "readable text is shorter than this (non-whitespace chars).",
    )

    # --- HTTP service ---
    service_api_key: SecretStr | None = Field(
        default=None,
        description="When set, POST /verify, /check-answer, /promptfoo (and the MCP endpoint) "
        "need 'Authorization: Bearer <key>'. Blank is an error: unset it to run without a key.",
    )
    service_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description='Host names the service answers, as a JSON list ("*": any); default: '
        "the loopback names when it listens on loopback, any name otherwise (421 for others).",
    )
    service_max_body_bytes: int = Field(default=64 * 1024, gt=0, description="Request body cap.")
    service_max_urls: int = Field(default=20, ge=1, description="Most URLs one request may cite.")
    # One limit for every front end (verify, POST /verify, batch, MCP); a claim of several
    # sentences is judged part by part (judge/parts.py), so its cost grows with its length.
    # The service's old names (SERVICE_MAX_CLAIM_CHARS, SERVICE_MAX_ANSWER_CHARS) still work.
    max_claim_chars: int = Field(
        default=5000,
        ge=1,
        validation_alias=AliasChoices("max_claim_chars", "service_max_claim_chars"),
        description="Longest claim accepted by every command, the API and MCP (characters).",
    )
    max_answer_chars: int = Field(
        default=20_000,
        ge=1,
        validation_alias=AliasChoices("max_answer_chars", "service_max_answer_chars"),
        description="Longest answer accepted by check-answer, batch, the API and MCP (characters).",
    )
    service_max_in_flight: int = Field(
        default=8, ge=1, description="Verifications running at once; more requests wait."
    )
    service_max_waiting: int = Field(
        default=64, ge=0, description="Requests allowed to wait for a slot; beyond: 429."
    )
    request_deadline_s: float = Field(
        default=60.0,
        gt=0,
        description="Deadline of one request to the service or MCP, from its arrival: a "
        "citation not judged by then gets deadline_exceeded (not a result) and the answer "
        "comes on time. verify, check-answer and batch take no deadline unless this variable "
        "is set (batch: per citation).",
    )
    max_claim_parts: int = Field(
        default=24,
        ge=1,
        description="Most distinct parts (sentences) of one long claim that are judged; the "
        "rest are reported (parts_over_budget), never silently dropped.",
    )
    service_wait_timeout_s: float = Field(
        default=15.0, ge=0, description="Longest wait for a slot before 429 with Retry-After."
    )
    service_retry_after_s: int = Field(default=5, ge=1, description="Retry-After on a 429.")
    fetch_cache_ttl_s: float = Field(
        default=60.0, ge=0, description="How long a loaded page is reused; 0 disables the cache."
    )
    fetch_cache_max_entries: int = Field(default=256, ge=1, description="Pages kept in memory.")
    verdict_cache_max_entries: int = Field(
        default=4096, ge=0, description="Verdicts kept per (claim, page text, judge); 0 disables."
    )

    # --- batch ---
    batch_concurrency: int = Field(
        default=4, ge=1, description="Unique URLs a batch loads and judges at the same time."
    )
    batch_per_host: int = Field(
        default=2, ge=1, description="Politeness: concurrent page loads per host in a batch."
    )
    batch_embed_cache: int = Field(
        default=20_000,
        ge=0,
        description=(
            "Texts whose embeddings a batch, an answer check or the service keeps (LRU) for reuse."
        ),
    )
    batch_embed_threads: int = Field(
        default=1,
        ge=0,
        description="ONNX Runtime threads per embedding call in a batch (0: all cores). A batch "
        "runs many calls at once, so one thread each avoids oversubscribing the CPU.",
    )

    # --- audit ---
    audit_enabled: bool = Field(
        default=True, description="Record every verdict (audit row + page snapshot)."
    )
    audit_retention_days: int = Field(
        default=90,
        ge=0,
        description="Records older than this many days, and the snapshots only they referred "
        "to, are deleted (checked at most once a day, when a process first records a verdict); "
        "0 keeps everything.",
    )
    audit_db_url: SecretStr | None = Field(
        default=None,
        description="SQLAlchemy URL of the audit store (may hold a password, hence secret); "
        "default sqlite:///<CACHE_DIR>/audit.db.",
    )
    snapshot_dir: Path | None = Field(
        default=None, description="Content-addressed page snapshots; default <CACHE_DIR>/snapshots."
    )
    snapshot_raw_body: bool = Field(
        default=True, description="Also snapshot the raw response body, not only the Markdown."
    )
    audit_busy_timeout_s: float = Field(
        default=30.0, gt=0, description="How long a SQLite writer waits for the write lock."
    )

    @field_validator(
        "fetcher",
        "judge_provider",
        "render_js",
        "archive_fallback",
        "language_judge",
        mode="before",
    )
    @classmethod
    def _choice(cls, value: Any) -> Any:
        """Choices are case-insensitive and may carry stray spaces (``JUDGE_PROVIDER=OpenAI``)."""
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("service_api_key")
    @classmethod
    def _service_api_key(cls, value: SecretStr | None) -> SecretStr | None:
        """A blank key is a mistake (an empty secret in a deployment template), never a key
        that an empty ``Authorization: Bearer`` could match, nor silently no key at all."""
        if value is not None and not value.get_secret_value().strip():
            raise ValueError("is blank: set a key, or unset it to run without one")
        return value

    @field_validator("archive_url")
    @classmethod
    def _archive_url(cls, value: str) -> str:
        """An http(s) base URL, checked at start-up rather than at the first dead link."""
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL, e.g. https://archive.org")
        return value.strip()

    @field_validator("local_judge_languages")
    @classmethod
    def _languages(cls, value: list[str]) -> list[str]:
        """ISO 639 codes, lower-cased (``["ru", "ja"]``)."""
        codes = [code.strip().lower() for code in value]
        if any(not (2 <= len(code) <= 3 and code.isalpha()) for code in codes):
            raise ValueError('must be ISO 639-1 codes, e.g. ["en", "ru"]')
        return codes

    @field_validator(
        "private_allowlist",
        "judge_prices",
        "service_allowed_hosts",
        "local_judge_languages",
        mode="before",
    )
    @classmethod
    def _json(cls, value: Any) -> Any:
        """List and mapping settings are JSON in the environment; a value that is not JSON is a
        validation error like any other (reported with the rest, never a traceback)."""
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise ValueError("not valid JSON (a list or mapping setting is a JSON value)") from None
