"""Which judge reads which language: every (claim, page) pair goes to the first judge that reads
both languages, and a pair no judge reads is reported, never guessed (``unsupported_language``).

The trained checker and the lexical judge read English only (an English tokenizer, English
training data, English stemming and negation words). The embedded LLM reads the languages of
``LOCAL_JUDGE_LANGUAGES`` (those it was measured on, docs/LANGUAGES.md); an API judge reads any.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from threading import Lock

from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.language import ENGLISH, Languages, language_name
from citation_verifier.passages import Passage


class LazyJudge:
    """A judge built at its first judgement: the embedded LLM's model file is assembled (1 GB)
    only when a pair in another language turns up, not at every start."""

    def __init__(self, name: str, build: Callable[[], Judge]) -> None:
        self._name = name
        self._build = build
        self._judge: Judge | None = None
        self._lock = Lock()

    @property
    def name(self) -> str:
        """Provider and model, recorded with each verdict."""
        return self._name

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The built judge's judgement."""
        with self._lock:
            if self._judge is None:
                self._judge = self._build()
        return await self._judge.judge(claim, passages)


@dataclass(frozen=True)
class Route:
    """A judge and the languages it reads (None: any)."""

    judge: Judge
    reads: frozenset[str] | None
    across: bool = True
    """Whether it judges a claim in one language on a page in another. The embedded LLM does
    not: its evidence sentences are chosen by the words they share with the claim."""

    def covers(self, languages: Languages) -> bool:
        """Whether this judge reads the claim's and the page's language."""
        if not self.across and len(languages.codes) > 1:
            return False
        return self.reads is None or languages.codes <= self.reads

    def describe(self) -> str:
        """``name reads …`` for the run's first line."""
        if self.reads is None:
            return f"{self.judge.name} reads any language"
        one = "" if self.across else " (claim and page in the same one)"
        return f"{self.judge.name} reads {', '.join(sorted(self.reads))}{one}"


@dataclass(frozen=True)
class LanguageRouter:
    """Judges in order of preference; the first that reads a pair's languages judges it."""

    routes: Sequence[Route]
    hint: str = field(default="")
    """What to install or configure so that more languages can be judged."""

    @property
    def name(self) -> str:
        """The main judge's name (the verdict records the judge that actually judged)."""
        return self.routes[0].judge.name

    def route(self, languages: Languages) -> Route | None:
        """The route of a pair, or None when no judge reads its languages."""
        return next((r for r in self.routes if r.covers(languages)), None)

    def unsupported(self, languages: Languages) -> str:
        """Why a pair has no judge, and what would give it one."""
        claim, page = language_name(languages.claim), language_name(languages.page)
        pair = (
            f"the claim and the page are in {claim}"
            if languages.claim == languages.page
            else f"the claim is in {claim} and the page in {page}"
        )
        readers = "; ".join(r.describe() for r in self.routes)
        which = "both" if claim != page else "it"
        hint = f": {self.hint}" if self.hint else ""
        return f"{pair}, and no configured judge reads {which} ({readers}){hint}"

    def wrapped(self, wrap: Callable[[Judge], Judge]) -> LanguageRouter:
        """The same routes with every judge wrapped (timing, redaction)."""
        routes = [Route(wrap(r.judge), r.reads, r.across) for r in self.routes]
        return LanguageRouter(routes, self.hint)


def only(judge: Judge) -> LanguageRouter:
    """A router with one judge that reads any language (a judge given by the caller)."""
    return LanguageRouter([Route(judge, None)])


ENGLISH_ONLY = frozenset({ENGLISH})
