"""What every plug-in shares: one checker per run, which figure is the score, and the verdicts
in words and as data (:mod:`.text`, on the result's JSON shape).

A plug-in's checker is made once, when the plug-in is (a framework that copies its metrics per
sample hands the same checker on): the models load once per run, and a page cited by many
samples is fetched once, since the checker keeps pages for ``RUN_PAGE_TTL_S`` (an evaluation run
reads the web as of one moment) unless ``FETCH_CACHE_TTL_S`` is longer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citation_verifier.answers.models import AnswerResult
from citation_verifier.integrations import text
from citation_verifier.integrations.text import FIGURES, Figure, cited_urls
from citation_verifier.settings import Settings

if TYPE_CHECKING:  # imported when a checker is made
    from citation_verifier.checker_api import Checker

__all__ = ["FIGURES", "Figure", "cited_urls", "explain", "figure_of", "run_checker", "verdicts"]
RUN_PAGE_TTL_S = 3600.0


def run_checker(checker: Checker | None = None, **overrides: Any) -> Checker:
    """``checker``, or a new one from the environment's settings (with ``overrides``) that keeps
    pages for at least ``RUN_PAGE_TTL_S`` and loads its models in the background at once."""
    if checker is not None:
        return checker
    from citation_verifier.checker_api import Checker

    ttl = max(Settings().fetch_cache_ttl_s, RUN_PAGE_TTL_S)
    checker = Checker(**{"fetch_cache_ttl_s": ttl, **overrides})
    checker.warm_up(wait=False)  # while the framework starts
    return checker


def figure_of(result: AnswerResult, figure: Figure) -> float:
    """The answer's ``figure`` (:func:`.text.figure_of`)."""
    return text.figure_of(result.model_dump(mode="json", exclude={"statements"}), figure)


def explain(result: AnswerResult) -> str:
    """The verdicts in words (:func:`.text.explain`)."""
    return text.explain(result.model_dump(mode="json"))


def verdicts(result: AnswerResult) -> list[dict[str, Any]]:
    """Each statement's result as JSON data (``check-answer --json``'s statements)."""
    return [s.model_dump(mode="json") for s in result.statements]
