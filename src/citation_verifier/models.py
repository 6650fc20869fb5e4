"""Typed data shared by every pipeline stage: labels, reasons, requests and verdicts."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from citation_verifier.utf8 import check_text


class Label(StrEnum):
    """The four verdicts a citation can get."""

    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    NOT_FOUND = "not_found"
    UNREACHABLE = "unreachable"


class Reason(StrEnum):
    """Machine-readable explanation attached to a verdict; ``None`` on a verdict means no reason.

    Dead-link statuses other than 404/410 use ``http_reason(code)`` (``http_500`` and so on).
    """

    HTTP_404 = "http_404"
    HTTP_410 = "http_410"
    SOFT_404 = "soft_404"
    REDIRECTED_TO_HOMEPAGE = "redirected_to_homepage"
    PDF_UNSUPPORTED = "pdf_unsupported"
    EVIDENCE_QUOTE_NOT_IN_SOURCE = "evidence_quote_not_in_source"
    QUOTE_LACKS_CLAIM = "quote_lacks_claim"
    TIMEOUT = "timeout"
    DNS_ERROR = "dns_error"
    CONNECTION_ERROR = "connection_error"
    FORBIDDEN_ADDRESS = "forbidden_address"
    BLOCKED = "blocked"
    CRAWL_FAILED = "crawl_failed"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    INVALID_REDIRECT = "invalid_redirect"
    TOO_LARGE = "too_large"
    UNSUPPORTED_CONTENT_TYPE = "unsupported_content_type"
    JS_REQUIRED = "js_required"
    EMPTY_PAGE = "empty_page"
    JUDGE_ERROR = "judge_error"
    INTERNAL_ERROR = "internal_error"
    CROSS_CHECK_DISAGREE = "cross_check_disagree"
    ARCHIVED_COPY = "archived_copy"
    UNSUPPORTED_LANGUAGE = "unsupported_language"
    DEADLINE_EXCEEDED = "deadline_exceeded"
    PARTS_OVER_BUDGET = "parts_over_budget"
    BOT_CHALLENGE = "bot_challenge"
    CONSENT_WALL = "consent_wall"
    LOGIN_REQUIRED = "login_required"
    PAYWALLED = "paywalled"
    AGE_GATE = "age_gate"
    GEO_BLOCKED = "geo_blocked"
    RATE_LIMITED = "rate_limited"


REASON_MEANINGS: dict[Reason, str] = {
    Reason.HTTP_404: "The origin answered 404 Not Found.",
    Reason.HTTP_410: "The origin answered 410 Gone.",
    Reason.SOFT_404: "The origin answered 200 with a short 'page not found' template.",
    Reason.REDIRECTED_TO_HOMEPAGE: "A deep link landed on the site's homepage after redirects.",
    Reason.PDF_UNSUPPORTED: "A PDF whose text could not be extracted.",
    Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE: (
        "The judge's quote does not occur in the passages it was shown."
    ),
    Reason.QUOTE_LACKS_CLAIM: (
        "The judge's quote does not hold the claim: it misses one of the claim's values "
        "(numbers, amounts, dates), or shares no word with it; the verdict is not_found."
    ),
    Reason.TIMEOUT: "The fetch did not finish within the configured time.",
    Reason.DNS_ERROR: "The host name does not resolve.",
    Reason.CONNECTION_ERROR: (
        "The connection was refused, reset or failed at the TLS/protocol level."
    ),
    Reason.FORBIDDEN_ADDRESS: (
        "The target resolves to a private, loopback, link-local or reserved address (SSRF guard)."
    ),
    Reason.BLOCKED: (
        "The origin answered 401 or 403 (or an 'access denied' page) with nothing that names a "
        "wall. What may help: a Crawlbase token (CRAWLBASE_TOKEN), or the archived copy "
        "(ARCHIVE_FALLBACK=dead)."
    ),
    Reason.CRAWL_FAILED: "A crawling backend could not crawl the page.",
    Reason.TOO_MANY_REDIRECTS: "Redirects did not end (loop or more hops than allowed).",
    Reason.INVALID_REDIRECT: "A redirect pointed somewhere that is not an http(s) URL.",
    Reason.TOO_LARGE: "The body exceeds the configured maximum size.",
    Reason.UNSUPPORTED_CONTENT_TYPE: (
        "The body is not HTML, text or PDF (images, archives, binaries)."
    ),
    Reason.JS_REQUIRED: (
        "Could not read: the page needs JavaScript to show its text and no renderer was "
        "available (RENDER_JS=never, no browser installed, no CRAWLBASE_JS_TOKEN); detail says "
        "what would render it. Never a verdict on the empty shell."
    ),
    Reason.EMPTY_PAGE: "The page loaded but holds no readable text to judge.",
    Reason.JUDGE_ERROR: (
        "The judge failed to produce a usable verdict (invalid output, provider error)."
    ),
    Reason.INTERNAL_ERROR: (
        "An unexpected error (a bug) while judging this citation; the others were still checked "
        "(detail names the error). Not a result, like judge_error."
    ),
    Reason.CROSS_CHECK_DISAGREE: (
        "An LLM verdict the embedded cross-check disagreed with, downgraded "
        "(CROSS_CHECK_DOWNGRADE)."
    ),
    Reason.ARCHIVED_COPY: (
        "Judged on the Wayback Machine's capture closest to the citation date, because the "
        "live page could not back the claim (live_reason says why; archive_url is the capture)."
    ),
    Reason.UNSUPPORTED_LANGUAGE: (
        "The claim or the page is in a language no configured judge reads (the checker reads "
        "English only): not judged, never guessed; detail says what would read it (the "
        "embedded LLM, LANGUAGE_JUDGE). Not a result, like judge_error."
    ),
    Reason.DEADLINE_EXCEEDED: (
        "The request's deadline (REQUEST_DEADLINE_S) passed before this citation was judged: "
        "not a result, like judge_error; detail says how far it got."
    ),
    Reason.PARTS_OVER_BUDGET: (
        "The claim has more distinct parts than MAX_CLAIM_PARTS: the first ones were judged, "
        "the rest were not (detail counts them); not_found unless a judged part is "
        "contradicted."
    ),
    Reason.BOT_CHALLENGE: (
        "Could not read: a bot challenge (Cloudflare, Imperva, AWS WAF, DataDome, a captcha) "
        "answered instead of the page, and one browser render did not get past it. What may "
        "help: a Crawlbase token (CRAWLBASE_TOKEN), or the archived copy (ARCHIVE_FALLBACK=dead)."
    ),
    Reason.CONSENT_WALL: (
        "Could not read: a cookie-consent wall stood in front of the page and refusing consent "
        "in the browser did not reveal it. What may help: a browser (make browser), the archived "
        "copy (ARCHIVE_FALLBACK=dead)."
    ),
    Reason.LOGIN_REQUIRED: (
        "Could not read: the page asks to sign in (login form, redirect to a login page, an "
        "authwall). We never log in; nothing we do may help: cite a public source."
    ),
    Reason.PAYWALLED: (
        "Could not read: the page is paywalled (schema.org isAccessibleForFree false, or a "
        "subscribers-only notice) and its readable part does not settle the claim. We never get "
        "around a paywall; a readable part that does settle it keeps its verdict."
    ),
    Reason.AGE_GATE: (
        "Could not read: an age gate asks for a date of birth or confirmation before the page. "
        "We never answer it; nothing we do may help."
    ),
    Reason.GEO_BLOCKED: (
        "Could not read: the page is not available where we fetch from (a regional notice, HTTP "
        "451). What may help: a Crawlbase token (CRAWLBASE_TOKEN), or the archived copy "
        "(ARCHIVE_FALLBACK=dead)."
    ),
    Reason.RATE_LIMITED: (
        "Could not read: the origin answered 429 Too Many Requests (a short Retry-After is "
        "waited once, a long one reported). What may help: later, a Crawlbase token "
        "(CRAWLBASE_TOKEN), or the archived copy (ARCHIVE_FALLBACK=dead)."
    ),
}
"""What each reason means (the docs' reference table is generated from it)."""


FAILURES = frozenset(
    {
        Reason.JUDGE_ERROR,
        Reason.INTERNAL_ERROR,
        Reason.UNSUPPORTED_LANGUAGE,
        Reason.DEADLINE_EXCEEDED,
    }
)
"""Reasons of a citation that was not judged (the judge failed, a bug, no judge reads it, the
deadline passed): not a result, left out of every precision and judged again by a resumed
batch."""


WALLS = frozenset(
    {
        Reason.BOT_CHALLENGE,
        Reason.CONSENT_WALL,
        Reason.LOGIN_REQUIRED,
        Reason.PAYWALLED,
        Reason.AGE_GATE,
        Reason.GEO_BLOCKED,
        Reason.RATE_LIMITED,
        Reason.BLOCKED,
    }
)
"""Reasons of a page we could not read because something stood in front of it (label
``unreachable``): reported apart as "could not read" everywhere."""

WALL_WORDS: dict[Reason, str] = {
    Reason.BOT_CHALLENGE: "a bot challenge answered instead of the page",
    Reason.CONSENT_WALL: "a cookie-consent wall stood in front of the page",
    Reason.LOGIN_REQUIRED: "the page asks to sign in",
    Reason.PAYWALLED: "the page is paywalled and its readable part does not settle the claim",
    Reason.AGE_GATE: "an age gate stood in front of the page",
    Reason.GEO_BLOCKED: "the page is not available in the region we fetch from",
    Reason.RATE_LIMITED: "the site is rate-limiting us (too many requests)",
    Reason.BLOCKED: "the site refused to serve us (access denied)",
}
"""Each wall in words, for people ("could not read: ...")."""


_UNREAD_WORDS: dict[Reason, str] = {
    **WALL_WORDS,
    Reason.JS_REQUIRED: "the page needs JavaScript to show its text and nothing here ran it",
}


def could_not_read(reason: str | None) -> str | None:
    """``could not read: <what stopped us, in words>`` for a wall, or a page that needs
    JavaScript nothing ran; None for any other reason."""
    if reason is None or reason not in _UNREAD_WORDS:
        return None
    return f"could not read: {_UNREAD_WORDS[Reason(reason)]}"


def http_reason(status: int) -> str:
    """Reason for a dead-link origin status: ``http_<code>`` (``http_404``, ``http_410``, ...)."""
    return f"http_{status}"


def text_before(value: object) -> object:
    """A before-validator: a string (or the strings of a list) that is not Unicode text is
    refused with what is wrong (:func:`citation_verifier.utf8.text_problem`), not with the
    generic message string validation would give."""
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, str):
            check_text(item)
    return value


def validate_http_url(url: str) -> str:
    """``url`` stripped, if it is an absolute http(s) URL with a host; else ValueError."""
    url = check_text(url).strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {url!r}")
    try:
        host = parts.hostname
        _ = parts.port
    except ValueError as exc:
        raise ValueError(f"malformed URL {url!r}: {exc}") from None
    if not host:
        raise ValueError(f"URL has no host: {url!r}")
    if any(ch.isspace() for ch in url):
        raise ValueError(f"URL contains whitespace: {url!r}")
    return url


def as_utc(moment: datetime | None) -> datetime | None:
    """``moment`` in UTC; a time without a zone is taken as UTC. A ValueError (never an
    OverflowError) when UTC has no such time (``0001-01-01T00:00:00+14:00``), so validation
    turns a user's date into a 422 or an input error like any other bad value."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{moment.isoformat()} is outside the range of UTC dates") from None


CITED_AT_DESCRIPTION = (
    "When the answer cited the page (a date or an ISO date-time; default: now). The archive "
    "fallback looks for the capture closest to it."
)
COMPARE_ARCHIVE_DESCRIPTION = (
    "Also judge the capture closest to cited_at when the live page is reachable, and say "
    "whether the page changed since it was cited (needs cited_at)."
)


class VerifyRequest(BaseModel):
    """One claim and the URLs cited for it."""

    model_config = ConfigDict(extra="forbid")

    claim: str = Field(min_length=1, description="The statement the LLM made.")
    urls: list[str] = Field(min_length=1, description="The URLs it cited for the claim.")
    cited_at: datetime | None = Field(default=None, description=CITED_AT_DESCRIPTION)
    compare_archive: bool = Field(default=False, description=COMPARE_ARCHIVE_DESCRIPTION)

    @field_validator("cited_at")
    @classmethod
    def _cited_at_utc(cls, value: datetime | None) -> datetime | None:
        return as_utc(value)

    @model_validator(mode="after")
    def _compare_needs_a_date(self) -> VerifyRequest:
        if self.compare_archive and self.cited_at is None:
            raise ValueError("compare_archive needs cited_at (the date the page was cited)")
        return self

    @field_validator("claim", "urls", mode="before")
    @classmethod
    def _unicode_text(cls, value: object) -> object:
        return text_before(value)

    @field_validator("claim")
    @classmethod
    def _claim_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("claim must not be blank")
        return value.strip()

    @field_validator("urls")
    @classmethod
    def _urls_valid(cls, value: list[str]) -> list[str]:
        return [validate_http_url(u) for u in value]


class EvidenceContext(BaseModel):
    """The passage an evidence quote came from, and where the quote sits in it."""

    passage: str = Field(description="The passage the judge was shown, as extracted.")
    start: int = Field(ge=0, description="Offset of the quote's first character in passage.")
    end: int = Field(ge=0, description="Offset just past the quote's last character.")


class Attempt(BaseModel):
    """One request to a paid crawling API: what was asked, what came back, what it cost.

    ``token`` names the token's kind (``normal`` or ``js``), never its value.
    """

    model_config = ConfigDict(frozen=True)

    token: str = Field(description="Token kind: normal or js (never the token itself).")
    readability: bool = Field(description="Whether readability cleaning was requested.")
    http_status: int | None = Field(description="HTTP status of the API call; None: no answer.")
    cb_status: int | None = None
    original_status: int | None = None
    rid: str | None = Field(default=None, description="Storage id when the page was stored.")
    javascript: bool = Field(default=False, description="Rendered with JavaScript.")
    stored: bool = Field(default=False, description="The API stored the page (rid returned).")
    credits: float = Field(default=0.0, ge=0, description="Credits this request cost.")


class Recovery(BaseModel):
    """One step taken to read a page a wall stood in front of (at most one of each per URL)."""

    model_config = ConfigDict(frozen=True)

    step: str = Field(
        description="retry_after (waited a short Retry-After), refuse_consent (browser, consent "
        "refused), browser (rendered once), crawling_api (the Crawling API)."
    )
    wall: str = Field(description="The wall it answered (a wall reason).")
    outcome: str = Field(description="read (the page came through) or the reason it still had.")
    seconds: float = Field(ge=0, description="Time the step took.")


#: The UrlVerdict fields every verdict promises; others may be added beside them.
SPEC_VERDICT_FIELDS = frozenset(
    {
        "url",
        "label",
        "evidence_quote",
        "confidence",
        "final_url",
        "original_status",
        "rid",
        "reason",
    }
)


class ArchivedVerdict(BaseModel):
    """The verdict on the archived copy of a live page (``compare_archive``)."""

    label: Label
    evidence_quote: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    reason: str | None = None
    archive_url: str = Field(description="The capture, as people open it in the Wayback Machine.")
    archived_at: datetime = Field(description="When the capture was taken (UTC).")


class UrlVerdict(BaseModel):
    """The verdict on one cited URL (extra fields may be added, these stay)."""

    url: str
    label: Label
    evidence_quote: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    final_url: str | None = None
    original_status: int | None = None
    rid: str | None = None
    reason: str | None = None
    detail: str | None = Field(
        default=None, description="Human-readable explanation of the reason, when there is one."
    )
    credits: float = Field(default=0.0, ge=0, description="Crawling-API credits this URL cost.")
    evidence_context: EvidenceContext | None = Field(
        default=None, description="The passage holding evidence_quote, with the quote's span."
    )
    attempts: list[Attempt] = Field(
        default_factory=list, description="Every crawling-API request made for this URL, in order."
    )
    judge: str | None = Field(default=None, description="Judge provider/model that judged it.")
    claim_language: str | None = Field(
        default=None, description="The claim's language (ISO 639-1), as identified."
    )
    page_language: str | None = Field(
        default=None, description="The page's main language (ISO 639-1), as identified."
    )
    judge_calls: int = Field(default=0, ge=0, description="LLM API calls made for this URL.")
    judge_input_tokens: int = Field(default=0, ge=0, description="LLM input tokens.")
    judge_output_tokens: int = Field(default=0, ge=0, description="LLM output tokens.")
    judge_cost_usd: float | None = Field(
        default=0.0, ge=0, description="LLM cost in USD; null when the model has no price."
    )
    cross_check: str | None = Field(
        default=None, description="agree/disagree: the embedded judge re-read the LLM's quote."
    )
    cross_check_score: float | None = Field(
        default=None, ge=0, le=1, description="The embedded judge's agreement with the label."
    )
    audit_id: str | None = Field(
        default=None, description="Id of the audit record of this verdict (`audit show ID`)."
    )
    rendered: bool = Field(
        default=False, description="Whether the page was rendered with JavaScript (browser)."
    )
    archive_url: str | None = Field(
        default=None,
        description="reason archived_copy: the Wayback Machine capture the verdict was judged on.",
    )
    archived_at: datetime | None = Field(
        default=None, description="reason archived_copy: when that capture was taken (UTC)."
    )
    live_reason: str | None = Field(
        default=None,
        description="reason archived_copy: what happened to the live page (http_404, soft_404, "
        "not_found, ...).",
    )
    archive_lookup: str | None = Field(
        default=None,
        description="An archive lookup that did not rescue the citation, and why (no capture, "
        "the capture is an error page, the archive is unavailable).",
    )
    recoveries: list[Recovery] = Field(
        default_factory=list,
        description="Steps taken to get past a wall (consent refused, browser, Crawling API), "
        "in order; the archive rescue is shown by archive_url / archive_lookup.",
    )
    retry_after_s: float | None = Field(
        default=None,
        description="rate_limited: the Retry-After the site asked for, in seconds, when it was "
        "too long to wait for within the request; at most 86400 (a day: a date years ahead is "
        "reported as a day), null when the site gave no usable value (inf, nan, 1e400).",
    )
    changed_since_cited: bool | None = Field(
        default=None,
        description="compare_archive: whether the capture closest to cited_at was judged "
        "differently from the live page (null: not compared).",
    )
    archived_verdict: ArchivedVerdict | None = Field(
        default=None, description="compare_archive: the verdict on the capture at cited_at."
    )
    needs_review: bool = Field(
        default=False,
        description="The confidence is under REVIEW_BELOW: the label stands, a person should "
        "look (review_reason says why).",
    )
    review_reason: str | None = Field(
        default=None,
        description="Why the verdict needs review, in words: model unsure, judges disagree, rule "
        "and model disagree, page only partly read, the claim's parts disagree.",
    )
    confidence_signals: dict[str, Any] | None = Field(
        default=None,
        exclude=True,
        description="What the confidence was computed from (calibration.Signals); kept in "
        "memory for eval and calibrate, never serialised.",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def could_not_read(self) -> str | None:
        """A wall stood in front of the page: what it was, in words (null otherwise)."""
        return could_not_read(self.reason) if self.label == Label.UNREACHABLE else None


class VerifyResult(BaseModel):
    """The claim's overall label and one verdict per cited URL, in request order."""

    claim: str
    overall: Label
    citations: list[UrlVerdict]
    credits: float = Field(default=0.0, ge=0, description="Crawling-API credits of all citations.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def needs_review(self) -> bool:
        """Whether any citation's verdict needs a person's look."""
        return any(c.needs_review for c in self.citations)

    # Judge totals are derived from the citations (never stored twice), serialised for API users.
    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_input_tokens(self) -> int:
        """LLM input tokens over all citations."""
        return sum(c.judge_input_tokens for c in self.citations)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_output_tokens(self) -> int:
        """LLM output tokens over all citations."""
        return sum(c.judge_output_tokens for c in self.citations)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_cost_usd(self) -> float | None:
        """LLM cost over all citations; null when a citation's model has no price."""
        costs = [c.judge_cost_usd for c in self.citations]
        return None if None in costs else round(sum(c or 0.0 for c in costs), 8)
