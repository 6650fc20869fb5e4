"""Helpers of the batch tests: run a batch in-process, and count what the real parts do."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from citation_verifier.batch.checkpoint import Checkpoint
from citation_verifier.batch.engine import BatchOutcome, LocalRunner, Runner, run_batch
from citation_verifier.batch.records import read_input
from citation_verifier.judge.base import Judge, Judgement
from citation_verifier.passages import Passage
from citation_verifier.retrieve import Embedder, Vectors
from citation_verifier.reuse.embeddings import CachingEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import make_judge


class CountingEmbedder:
    """A real embedder that records every text it was asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed through the real model, recording ``texts``."""
        self.texts.extend(texts)
        return self.inner.embed(texts)


class CountingJudge:
    """A real judge that records every claim it judged."""

    def __init__(self, inner: Judge) -> None:
        self.inner = inner
        self.claims: list[str] = []

    @property
    def name(self) -> str:
        """The inner judge's name."""
        return self.inner.name

    async def judge(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """Judge through the real judge, recording ``claim``."""
        self.claims.append(claim)
        return await self.inner.judge(claim, passages)


def counting_runner(settings: Settings, embedder: Embedder) -> tuple[LocalRunner, CountingJudge]:
    """A LocalRunner whose verifier's judge counts its calls."""
    cached = CachingEmbedder(embedder)
    judge = CountingJudge(make_judge(settings, cached))
    return LocalRunner(settings, embedder=cached, judge=judge), judge


async def score(
    input_path: Path,
    checkpoint_path: Path,
    runner: Runner,
    *,
    resume: bool = False,
    concurrency: int = 4,
    per_host: int = 8,
) -> BatchOutcome:
    """Run one batch in-process; the runner is closed afterwards."""
    try:
        return await run_batch(
            read_input(input_path),
            runner,
            Checkpoint(checkpoint_path),
            resume=resume,
            concurrency=concurrency,
            per_host=per_host,
        )
    finally:
        await runner.aclose()


def stable_csv(text: str) -> list[dict[str, str]]:
    """A CSV report's rows without ``audit_id``: that column names each run's own audit
    record, so two runs that reach the same verdicts differ in it by design."""
    import csv
    import io

    return [
        {k: v for k, v in row.items() if k != "audit_id"}
        for row in csv.DictReader(io.StringIO(text))
    ]
