"""A judge whose every word is redacted: what a provider says back (a failure's detail, a
configuration error) never carries a configured secret past the judge stage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from citation_verifier.errors import ConfigurationError
from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.passages import Passage
from citation_verifier.redaction import Redactor


class RedactedJudge:
    """Wraps ``inner``: the detail of its judgements and the message of its configuration
    errors pass through ``redact``."""

    def __init__(self, inner: Judge, redact: Redactor) -> None:
        self._inner = inner
        self._redact = redact

    @property
    def name(self) -> str:
        """The wrapped judge's name."""
        return self._inner.name

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """The wrapped judge's judgement, its detail redacted."""
        try:
            judgement = await self._inner.judge(claim, passages)
        except ConfigurationError as error:
            error.args = (self._redact(str(error)),)  # same type and traceback, no secret
            raise
        if judgement.detail is None:
            return judgement
        return replace(judgement, detail=self._redact(judgement.detail))
