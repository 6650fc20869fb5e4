"""Verify a parsed answer: every distinct URL loaded once, then every (statement, URL) pair
judged through the same stages as a single claim, and the answer's figures computed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from citation_verifier.aggregate import aggregate
from citation_verifier.answers.models import (
    AnswerRequest,
    AnswerResult,
    MarkerResult,
    StatementLabel,
)
from citation_verifier.answers.models import StatementResult as StatementOutcome
from citation_verifier.answers.parse import Statement, parse_answer
from citation_verifier.deadline import Deadline, in_time, late_verdict
from citation_verifier.fetch.policy import Document, Settled
from citation_verifier.models import FAILURES, Label, UrlVerdict
from citation_verifier.verifier import Progress, Steps, Verifier
from citation_verifier.workers import one_at_a_time


def statement_outcome(statement: Statement, verdicts: Sequence[UrlVerdict]) -> StatementOutcome:
    """A statement's result from the verdicts on its URLs (in the statement's URL order)."""
    if statement.urls:
        overall = StatementLabel(aggregate(v.label for v in verdicts).value)
    elif statement.problems:
        overall = StatementLabel.UNRESOLVED
    else:
        overall = StatementLabel.UNCITED
    return StatementOutcome(
        text=statement.text,
        claim=statement.claim,
        overall=overall,
        citations=list(verdicts),
        markers=[
            MarkerResult(text=m.text, urls=list(m.urls), problems=list(m.problems))
            for m in statement.markers
        ],
        problems=list(statement.problems),
    )


def answer_result(statements: Sequence[StatementOutcome]) -> AnswerResult:
    """The answer's figures over its statements: citation precision is supported citations over
    all verified citations (uncited statements and unresolved markers are not citations, and a
    citation the judge failed on is not a result)."""
    verdicts = [v for s in statements for v in s.citations]
    supported = sum(v.label == Label.SUPPORTED for v in verdicts)
    judged = sum(v.reason not in FAILURES for v in verdicts)
    counts = {label.value: 0 for label in StatementLabel}
    for statement in statements:
        counts[statement.overall.value] += 1
    return AnswerResult(
        statements=list(statements),
        citation_precision=supported / judged if judged else None,
        citations=len(verdicts),
        supported_citations=supported,
        unique_urls=len({v.url for v in verdicts}),
        credits=sum(v.credits for v in verdicts),
        **counts,
    )


async def check_answer(
    verifier: Verifier,
    request: AnswerRequest,
    *,
    progress: Progress | None = None,
    deadline: Deadline | None = None,
) -> AnswerResult:
    """Parse ``request`` and verify every statement's citations with ``verifier`` (those
    unfinished at ``deadline`` are ``deadline_exceeded``)."""
    language = await asyncio.to_thread(verifier.languages.best, request.answer)
    statements = parse_answer(request.answer, request.citation_urls(), language)
    return await check_statements(
        verifier,
        statements,
        progress=progress,
        cited_at=request.cited_at,
        compare_archive=request.compare_archive,
        deadline=deadline,
    )


async def check_statements(
    verifier: Verifier,
    statements: Sequence[Statement],
    *,
    progress: Progress | None = None,
    cited_at: datetime | None = None,
    compare_archive: bool = False,
    deadline: Deadline | None = None,
) -> AnswerResult:
    """Verify already parsed ``statements``. Each distinct URL is loaded once (its credits and
    attempts booked on its first citation); pairs are judged concurrently, each as soon as its
    page is loaded. ``cited_at`` and ``compare_archive`` are as for a claim; a citation
    unfinished at ``deadline`` is ``deadline_exceeded``."""
    urls = list(dict.fromkeys(url for s in statements for url in s.urls))
    pairs = [(s.claim, url) for s in statements for url in s.urls]
    report = Steps(len(urls) + len(pairs), progress)

    async def load(url: str) -> None:
        loaded[url] = await verifier.load_page(url, cited_at)
        await report.step(f"loaded {url}")

    async def judged(claim: str, url: str) -> UrlVerdict:
        verdict = await verifier.verdict(claim, loaded[url])
        if compare_archive:
            verdict = await verifier.compare_archive(claim, loaded[url], verdict, cited_at)
        await report.step(f"judged {url}: {verdict.label.value}")
        return verdict

    async def judge(claim: str, url: str) -> UrlVerdict:
        await loading[url]
        verdict = await in_time(deadline, judged(claim, url)) if url in loaded else None
        if verdict is None:
            assert deadline is not None  # only a deadline leaves a citation unjudged
            return late_verdict(url, deadline, "judging" if url in loaded else "loading the page")
        return verdict

    async def load_in_time(url: str) -> None:
        await in_time(deadline, load(url))

    loaded: dict[str, Document | Settled] = {}
    async with one_at_a_time():  # this answer's pages are extracted one at a time
        loading = {url: asyncio.ensure_future(load_in_time(url)) for url in urls}
    try:
        verdicts = await asyncio.gather(*(judge(claim, url) for claim, url in pairs))
    finally:
        for task in loading.values():  # a cancelled answer leaves no page loading
            task.cancel()
    booked: set[str] = set()
    outcomes: list[StatementOutcome] = []
    position = 0
    for statement in statements:
        own = []
        for verdict in verdicts[position : position + len(statement.urls)]:
            if verdict.url in booked:  # the page was loaded, and paid for, once
                verdict = verdict.model_copy(update={"credits": 0.0, "attempts": []})
            booked.add(verdict.url)
            own.append(verdict)
        position += len(statement.urls)
        outcomes.append(statement_outcome(statement, own))
    return answer_result(outcomes)
