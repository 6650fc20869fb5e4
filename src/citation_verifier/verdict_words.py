"""How a verdict's ``detail`` reads to people: the exact check or quote rule that decided it is
an internal name, so it is labelled as a rule, never shown where the page's quote belongs."""

from __future__ import annotations

from citation_verifier.judge.base import exact_check_rule
from citation_verifier.quote_rules import RULE_DETAIL, rule_of


def rule_words(detail: str | None) -> str | None:
    """``decided by rule: …`` for a ``detail`` that names the exact check or quote rule that
    decided the verdict; None for any other detail."""
    quote_rule = rule_of(detail)
    if quote_rule is not None and detail is not None:
        why = detail.removeprefix(RULE_DETAIL).partition(":")[2].strip()
        return f"decided by rule: quote rule “{quote_rule}”" + (f" ({why})" if why else "")
    check = exact_check_rule(detail)
    return None if check is None else f"decided by rule: exact check “{check}”"


def detail_words(detail: str | None) -> str:
    """The ``detail`` as a reader sees it: a deciding rule labelled, anything else as it is."""
    return rule_words(detail) or detail or ""
