"""Every threshold, limit, path and key, read from the environment in one place."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
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

    # --- HTTP service ---

    # --- batch ---
    batch_concurrency: int = Field(
        default=4, ge=1, description="Unique URLs a batch loads and judges at the same time."
    )
    batch_per_host: int = Field(
        default=2, ge=1, description="Politeness: concurrent page loads per host in a batch."
    )
    batch_embed_cache: int = Field(
        default=20_000, ge=0, description="Texts whose embeddings a batch keeps (LRU) for reuse."
    )
    batch_embed_threads: int = Field(
        default=1,
        ge=0,
        description="ONNX Runtime threads per embedding call in a batch (0: all cores). A batch "
        "runs many calls at once, so one thread each avoids oversubscribing the CPU.",
    )

    # --- audit ---
