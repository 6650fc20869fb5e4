"""The request limits the HTTP API and the MCP server share (``SERVICE_MAX_URLS``, and the
claim and answer lengths every front end shares, :mod:`citation_verifier.limits`): each check
gives ``(field, message)`` when a request is over a limit, and each front end words the error
its own way (a 422, a tool error)."""

from __future__ import annotations

from collections.abc import Sequence

from citation_verifier import limits
from citation_verifier.answers.parse import Statement
from citation_verifier.limits import claim_length_problem
from citation_verifier.models import VerifyRequest
from citation_verifier.settings import Settings

Problem = tuple[str, str] | None
"""``(field, message)`` of a limit the request is over; None when it is within them."""


def claim_problem(request: VerifyRequest, settings: Settings) -> Problem:
    """Too many URLs, or too long a claim."""
    if len(request.urls) > settings.service_max_urls:
        return "urls", f"at most {settings.service_max_urls} URLs"
    problem = claim_length_problem(request.claim, settings)
    return None if problem is None else ("claim", problem)


def answer_length_problem(answer: str, settings: Settings) -> Problem:
    """Too long an answer (checked before the answer is parsed)."""
    problem = limits.answer_length_problem(answer, settings)
    return None if problem is None else ("answer", problem)


def answer_urls_problem(statements: Sequence[Statement], settings: Settings) -> Problem:
    """An answer citing more distinct URLs than one request may."""
    urls = {url for statement in statements for url in statement.urls}
    if len(urls) > settings.service_max_urls:
        return "answer", f"cites {len(urls)} URLs; at most {settings.service_max_urls}"
    return None
