"""The batch driver: dedup by URL, bounded concurrency, per-host politeness, checkpointing.

Pending citations are grouped by URL; each group is one :class:`UrlJob` (the URL and its
distinct claims). A :class:`Runner` loads the URL once and judges it once per claim; this
driver hands jobs to ``concurrency`` workers, keeps at most ``per_host`` jobs per host in
flight, and writes every finished citation to the checkpoint before moving on. The same driver
serves every engine (in-process asyncio, Ray), so outputs and resume semantics are the same.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

from citation_verifier.answers.parse import source_names
from citation_verifier.answers.support import (
    FollowUp,
    answer_result,
    follow_ups,
    needs_follow_up,
    read_urls,
    statement_outcome,
)
from citation_verifier.batch.checkpoint import Checkpoint, ResultRow
from citation_verifier.batch.records import (
    AnswerRecord,
    BatchInput,
    Citation,
    LineError,
    citation_key,
)
from citation_verifier.batch.summary import AnswerRow, Summary, summarize
from citation_verifier.deadline import in_time, late_verdict, request_deadline
from citation_verifier.facts import FactSplitter
from citation_verifier.fetch.outcomes import Document, Settled
from citation_verifier.judge.base import Judge
from citation_verifier.models import FAILURES, UrlVerdict
from citation_verifier.pipeline import build_verifier, reuse_caches
from citation_verifier.retrieve import Embedder, MiniLMEmbedder
from citation_verifier.reuse.embeddings import CachingEmbedder
from citation_verifier.settings import Settings


@dataclass(frozen=True)
class UrlJob:
    """One unique URL of the batch (per citation day: an archived copy depends on it) and the
    distinct claims that cite it."""

    url: str
    claims: tuple[str, ...]
    cited_at: datetime | None = None
    compare_archive: bool = False


class Runner(ABC):
    """Base of the engines: turns a :class:`UrlJob` into one verdict per claim, in order."""

    @abstractmethod
    async def run(
        self, job: UrlJob, host_slot: AbstractAsyncContextManager[object]
    ) -> list[UrlVerdict]:
        """Load ``job.url`` once (holding ``host_slot`` while it talks to the host) and judge
        it for each claim."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release what the runner holds."""


class LocalRunner(Runner):
    """The in-process engine: one :class:`Verifier`, a caching embedder in front of MiniLM."""

    def __init__(
        self, settings: Settings, *, embedder: Embedder | None = None, judge: Judge | None = None
    ) -> None:
        """``embedder`` defaults to MiniLM and is put behind a cache unless it is one already;
        ``judge`` defaults to the one ``JUDGE_PROVIDER`` names."""
        inner = embedder or MiniLMEmbedder(threads=settings.batch_embed_threads)
        self.embedder = (
            inner
            if isinstance(inner, CachingEmbedder)
            else CachingEmbedder(inner, settings.batch_embed_cache)
        )
        # A page an answer's follow-ups read again comes from the page cache, not the host.
        caches = reuse_caches(settings)
        self.verifier = build_verifier(
            settings, embedder=self.embedder, judge=judge, page_cache=caches["page_cache"]
        )

    async def run(
        self, job: UrlJob, host_slot: AbstractAsyncContextManager[object]
    ) -> list[UrlVerdict]:
        """Load once, judge per claim (CPU work runs in threads inside the verifier). With
        ``REQUEST_DEADLINE_S`` set, the load and each claim's judging get that long each."""
        settings = self.verifier.settings
        async with host_slot:
            load_by = request_deadline(settings, unless_unset=True)
            loaded = await in_time(load_by, self.verifier.load_page(job.url, job.cited_at))
        verdicts = []
        for claim in job.claims:
            if loaded is None:
                assert load_by is not None  # only a deadline leaves a page unloaded
                verdicts.append(late_verdict(job.url, load_by, "loading the page"))
                continue
            judge_by = request_deadline(settings, unless_unset=True)
            verdict = await in_time(judge_by, self._judged(claim, loaded, job))
            if verdict is None:
                assert judge_by is not None
                verdict = late_verdict(job.url, judge_by, "judging")
            verdicts.append(verdict)
        return verdicts

    async def _judged(self, claim: str, loaded: Document | Settled, job: UrlJob) -> UrlVerdict:
        verdict = await self.verifier.verdict(claim, loaded)
        if job.compare_archive:
            verdict = await self.verifier.compare_archive(claim, loaded, verdict, job.cited_at)
        return verdict

    async def aclose(self) -> None:
        """Close the verifier's connections."""
        await self.verifier.aclose()


@dataclass
class BatchOutcome:
    """Every citation's row in input order, with the totals and the skipped lines."""

    rows: list[ResultRow]
    summary: Summary
    errors: list[LineError]
    reused: int
    """Citations taken from the checkpoint instead of being scored again."""
    scored: int
    """Citations scored in this run."""
    jobs: int
    """Unique URLs loaded in this run for the input's citations (answers' follow-ups read
    pages already loaded, from the page cache)."""
    answers: list[AnswerRow] = field(default_factory=list)
    """Each answer record's statements and figures, in input order."""


JobKey = tuple[str, datetime | None, bool]
"""A job's identity: the URL, the citation date and whether to compare with the archive."""
Owners = dict[tuple[JobKey, str], list[Citation]]
"""The citations behind each (job, claim) pair of a plan."""


def plan_jobs(pending: Sequence[Citation]) -> tuple[list[UrlJob], Owners]:
    """Group ``pending`` by URL and citation date (first-seen order) and, within that, by
    distinct claim."""
    by_job: dict[JobKey, dict[str, list[Citation]]] = {}
    for citation in pending:
        key = (citation.url, citation.cited_at, citation.compare_archive)
        by_job.setdefault(key, {}).setdefault(citation.claim, []).append(citation)
    jobs = [
        UrlJob(url, tuple(claims), when, compare) for (url, when, compare), claims in by_job.items()
    ]
    owners = {
        (key, claim): citations
        for key, claims in by_job.items()
        for claim, citations in claims.items()
    }
    return jobs, owners


def host_of(url: str) -> str:
    """The politeness key of ``url``: its host name, lower case."""
    return (urlsplit(url).hostname or "").lower()


def _rows_for(job: UrlJob, verdicts: Sequence[UrlVerdict], owners: Owners) -> Iterator[ResultRow]:
    """One row per citation of ``job``. The page's cost (credits) is booked once, on the job's
    first citation: a URL cited by many claims is loaded, and paid for, once."""
    first = True
    for claim, verdict in zip(job.claims, verdicts, strict=True):
        for citation in owners[((job.url, job.cited_at, job.compare_archive), claim)]:
            booked = verdict if first else verdict.model_copy(update={"credits": 0.0})
            first = False
            yield ResultRow(
                id=citation.record_id,
                index=citation.index,
                claim=claim,
                verdict=booked,
                statement=citation.statement,
                cited_at=citation.cited_at,
                follow=citation.follow,
            )


async def run_batch(
    batch: BatchInput,
    runner: Runner,
    checkpoint: Checkpoint,
    *,
    resume: bool,
    concurrency: int,
    per_host: int,
    advance: Callable[[int], None] | None = None,
    started: Callable[[int, int], None] | None = None,
    splitter: FactSplitter | None = None,
) -> BatchOutcome:
    """Score every citation of ``batch`` not already in the checkpoint (with ``resume``), then
    the follow-ups of answer statements no citation supports alone (:func:`follow_up_plan`,
    facts split by ``splitter``), checkpointed the same way.

    ``started(done, total)`` is called before work begins, and again with the larger total
    when there are follow-ups; ``advance(n)`` after each finished URL with the number of
    citations it completed. Cancelling (Ctrl-C) stops the workers; every row written before
    that stays in the checkpoint.
    """
    if concurrency < 1 or per_host < 1:
        raise ValueError("concurrency and per_host must be at least 1")
    previous = checkpoint.read() if resume else {}
    done: dict[str, ResultRow] = {}

    def reuse(citations: Sequence[Citation]) -> None:
        for citation in citations:
            row = previous.get(citation.key)
            # A citation the judge failed on is not a result: a resumed run judges it again.
            if row is not None and row.matches(citation) and row.verdict.reason not in FAILURES:
                done[citation.key] = row

    reuse(batch.citations)
    reused = len(done)
    # Rows of citations no longer in the input (an edited input) are dropped here; an answer's
    # follow-ups are kept until the second round says which still apply.
    answer_ids = {record.record_id for record in batch.answers}
    kept = [r for r in previous.values() if r.follow is not None and r.id in answer_ids]
    checkpoint.open([*done.values(), *kept])
    slots: defaultdict[str, asyncio.Semaphore] = defaultdict(lambda: asyncio.Semaphore(per_host))

    async def score(citations: Sequence[Citation]) -> int:
        """Score ``citations`` (none of them done); the number of URLs loaded."""
        jobs, owners = plan_jobs(citations)
        queue = iter(jobs)

        async def worker() -> None:
            for job in queue:  # a shared iterator: each job goes to exactly one worker
                verdicts = await runner.run(job, slots[host_of(job.url)])
                count = 0
                for row in _rows_for(job, verdicts, owners):
                    checkpoint.append(row)
                    done[row.key] = row
                    count += 1
                if advance is not None:
                    advance(count)

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(concurrency, len(jobs))):
                    group.create_task(worker())
        except BaseExceptionGroup as failed:
            # The first failure (e.g. a ConfigurationError), not the group: callers catch it.
            raise failed.exceptions[0] from None
        return len(jobs)

    try:
        if started is not None:
            started(reused, len(batch.citations))
        loaded = await score([c for c in batch.citations if c.key not in done])
        plan = follow_up_plan(batch, done, splitter or FactSplitter())
        follow = [citation for _, steps in plan.values() for _, citation in steps]
        reuse(follow)
        if started is not None and follow:
            started(
                len(batch.citations) + sum(c.key in done for c in follow),
                len(batch.citations) + len(follow),
            )
        await score([c for c in follow if c.key not in done])  # pages the cache holds
    finally:
        checkpoint.close()
    rows = [done[c.key] for c in batch.citations]
    answers = answer_rows(batch, done, plan)
    return BatchOutcome(
        rows=rows,
        summary=summarize(rows, len(batch.errors), answers),
        answers=answers,
        errors=batch.errors,
        reused=reused,
        scored=len(rows) - reused,
        jobs=loaded,
    )


FollowUpPlan = dict[tuple[str, int], tuple[list[str], list[tuple[FollowUp, Citation]]]]
"""Per (answer record, statement position): its facts and its follow-ups as citations."""


def _own(record: AnswerRecord, position: int, done: dict[str, ResultRow]) -> list[UrlVerdict]:
    statement = record.statements[position]
    return [
        done[citation_key(record.record_id, position, index)].verdict
        for index in range(len(statement.urls))
    ]


def follow_up_plan(
    batch: BatchInput, done: dict[str, ResultRow], splitter: FactSplitter
) -> FollowUpPlan:
    """The follow-ups of every answer statement no citation supports alone, judged on the
    answer's pages a judge read (``answers/support.py``), as batch citations."""
    plan: FollowUpPlan = {}
    for record in batch.answers:
        owns = [_own(record, p, done) for p in range(len(record.statements))]
        read = read_urls([v for own in owns for v in own])
        for position, (statement, own) in enumerate(zip(record.statements, owns, strict=True)):
            if not read or not needs_follow_up(statement, own):
                continue
            facts = splitter.facts(statement.claim, record.language)
            first = done[citation_key(record.record_id, position, 0)]
            steps = [
                (
                    step,
                    Citation(
                        record.record_id,
                        statement.urls.index(step.url)
                        if step.fact is not None
                        else read.index(step.url),
                        step.claim,
                        step.url,
                        position,
                        cited_at=first.cited_at,
                        follow="other" if step.fact is None else f"fact{step.fact}",
                    ),
                )
                for step in follow_ups(statement, own, facts, read)
            ]
            plan[(record.record_id, position)] = (facts, steps)
    return plan


def answer_rows(
    batch: BatchInput, done: dict[str, ResultRow], plan: FollowUpPlan | None = None
) -> list[AnswerRow]:
    """Each answer record's result, assembled from its finished citations and follow-ups
    exactly as ``check-answer`` assembles it."""
    out = []
    for record in batch.answers:
        names = source_names(record.statements)
        statements = []
        for position, statement in enumerate(record.statements):
            facts, steps = (plan or {}).get((record.record_id, position), ([statement.claim], []))
            followed = [(step, done[c.key].verdict) for step, c in steps if c.key in done]
            statements.append(
                statement_outcome(statement, _own(record, position, done), followed, facts, names)
            )
        out.append(AnswerRow(id=record.record_id, result=answer_result(statements)))
    return out
