"""Every threshold, limit, path and key, read from the environment in one place."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, IPvAnyNetwork, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Configuration of one process. All fields are optional; the embedded defaults need none.

    Each field reads the environment variable of the same name in upper case
    (``SOFT_404_MAX_CHARS``, ``ALLOW_PRIVATE_URLS``, ...).
    """

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", frozen=True)

    # --- fetch (SPEC §3) ---
    fetcher: str = Field(default="direct", description="Fetch backend: direct.")
    allow_private_urls: bool = Field(
        default=False,
        description="Allow loopback/private/link-local targets. Off by default (SSRF guard).",
    )
    private_allowlist: list[IPvAnyNetwork] = Field(
        default_factory=list,
        description="Non-public networks that may be fetched even with the guard on, as a JSON "
        'list, e.g. ["10.20.0.0/16"].',
    )
    fetch_timeout_s: float = Field(default=20.0, gt=0, description="Whole-fetch deadline.")
    connect_timeout_s: float = Field(default=10.0, gt=0)
    max_body_bytes: int = Field(default=10 * 1024 * 1024, gt=0, description="Body size cap.")
    max_redirects: int = Field(default=10, ge=0)
    user_agent: str = Field(
        default="citation-verifier/0.1 (+https://github.com/citation-verifier)",
        description="User-Agent sent by the direct fetcher.",
    )
    fetch_concurrency: int = Field(default=8, ge=1, description="Parallel fetches per process.")

    # --- extraction and page rules ---
    readability_min_chars: int = Field(
        default=200, ge=0, description="Readable text below this many non-whitespace chars is thin."
    )
    soft_404_max_chars: int = Field(
        default=800, ge=0, description="A not-found template must be shorter than this to count."
    )

    # --- passages and retrieval (SPEC §4) ---
    passage_max_words: int = Field(default=200, ge=1)
    top_k: int = Field(default=3, ge=1)

    # --- judge (SPEC §5) ---
    judge_provider: str = Field(default="local", description="Judge: local (embedded).")
    local_judge_support_threshold: float = Field(
        default=0.80, ge=0, le=1, description="Claim-term coverage a sentence needs to support."
    )
    local_judge_relevance_threshold: float = Field(
        default=0.55, ge=0, le=1, description="Cosine a sentence needs to be about the claim."
    )

    # --- paths ---
    cache_dir: Path = Field(default=Path.home() / ".cache" / "citation-verifier")

    # --- Crawlbase backend (secrets are SecretStr: never printed) ---

    # --- LLM judges ---

    # --- browser rendering ---
    render_js: Literal["auto", "never", "always"] = Field(
        default="auto",
        description="JavaScript rendering: auto (only pages that need it, SPEC §3), never, always.",
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
    render_notice_max_chars: int = Field(
        default=1000,
        ge=0,
        description="A page with a <noscript> enable-JavaScript notice needs a browser when its "
        "readable text is shorter than this (non-whitespace chars).",
    )

    # --- HTTP service ---
    service_api_key: SecretStr | None = Field(
        default=None, description="When set, POST /verify needs 'Authorization: Bearer <key>'."
    )
    service_max_body_bytes: int = Field(default=64 * 1024, gt=0, description="Request body cap.")
    service_max_urls: int = Field(default=20, ge=1, description="Most URLs one request may cite.")
    service_max_claim_chars: int = Field(default=2000, ge=1, description="Longest claim accepted.")
    service_max_in_flight: int = Field(
        default=8, ge=1, description="Verifications running at once; more requests wait."
    )
    service_max_waiting: int = Field(
        default=64, ge=0, description="Requests allowed to wait for a slot; beyond: 429."
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

    # --- audit ---
