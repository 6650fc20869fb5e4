"""The longest claim and answer accepted: one limit each (``MAX_CLAIM_CHARS``,
``MAX_ANSWER_CHARS``), the same for ``verify``, ``check-answer``, ``batch``, the HTTP API and
MCP, so an input one front end accepts is never refused by another."""

from __future__ import annotations

from citation_verifier.settings import Settings


def claim_length_problem(claim: str, settings: Settings) -> str | None:
    """Why ``claim`` is too long (naming the limit and its variable); None when it is not."""
    if len(claim) > settings.max_claim_chars:
        return f"at most {settings.max_claim_chars} characters (MAX_CLAIM_CHARS), not {len(claim)}"
    return None


def answer_length_problem(answer: str, settings: Settings) -> str | None:
    """Why ``answer`` is too long (naming the limit and its variable); None when it is not."""
    if len(answer) > settings.max_answer_chars:
        return (
            f"at most {settings.max_answer_chars} characters (MAX_ANSWER_CHARS), not {len(answer)}"
        )
    return None
