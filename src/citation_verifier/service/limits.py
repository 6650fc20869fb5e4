"""The request limits the HTTP API and the MCP server share (``SERVICE_MAX_*``): each check
gives ``(field, message)`` when a request is over a limit, and each front end words the error
its own way (a 422, a tool error)."""

from __future__ import annotations

from collections.abc import Sequence

from citation_verifier.answers.parse import Statement
from citation_verifier.models import VerifyRequest
from citation_verifier.settings import Settings

Problem = tuple[str, str] | None
"""``(field, message)`` of a limit the request is over; None when it is within them."""


def claim_problem(request: VerifyRequest, settings: Settings) -> Problem:
    """Too many URLs, or too long a claim."""
    if len(request.urls) > settings.service_max_urls:
        return "urls", f"at most {settings.service_max_urls} URLs"
    if len(request.claim) > settings.service_max_claim_chars:
        return "claim", f"at most {settings.service_max_claim_chars} characters"
    return None


def answer_length_problem(answer: str, settings: Settings) -> Problem:
    """Too long an answer (checked before the answer is parsed)."""
    if len(answer) > settings.service_max_answer_chars:
        return "answer", f"at most {settings.service_max_answer_chars} characters"
    return None


def answer_urls_problem(statements: Sequence[Statement], settings: Settings) -> Problem:
    """An answer citing more distinct URLs than one request may."""
    urls = {url for statement in statements for url in statement.urls}
    if len(urls) > settings.service_max_urls:
        return "answer", f"cites {len(urls)} URLs; at most {settings.service_max_urls}"
    return None
