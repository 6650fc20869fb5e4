"""Verify a parsed answer: every distinct URL loaded once, then every (statement, URL) pair
judged through the same stages as a single claim, and the answer's figures computed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from citation_verifier.answers.models import AnswerRequest, AnswerResult
from citation_verifier.answers.parse import Statement, parse_answer, source_names
from citation_verifier.answers.support import (
    FollowUp,
    answer_result,
    follow_ups,
    needs_follow_up,
    read_urls,
    statement_outcome,
)
from citation_verifier.deadline import Deadline, in_time, late_verdict
from citation_verifier.fetch.policy import Document, Settled
from citation_verifier.models import UrlVerdict
from citation_verifier.verifier import Progress, Steps, Verifier
from citation_verifier.workers import one_at_a_time


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
        language=language,
    )


async def check_statements(
    verifier: Verifier,
    statements: Sequence[Statement],
    *,
    progress: Progress | None = None,
    cited_at: datetime | None = None,
    compare_archive: bool = False,
    deadline: Deadline | None = None,
    language: str | None = None,
) -> AnswerResult:
    """Verify already parsed ``statements``. Each distinct URL is loaded once (its credits and
    attempts booked on its first citation); pairs are judged concurrently, each as soon as its
    page is loaded. A statement no citation supports alone is then judged fact by fact and
    against the answer's other pages (``answers/support.py``; ``language`` is the answer's).
    ``cited_at`` and ``compare_archive`` are as for a claim; a citation unfinished at
    ``deadline`` is ``deadline_exceeded``."""
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
    owns: list[list[UrlVerdict]] = []
    position = 0
    for statement in statements:
        own = []
        for verdict in verdicts[position : position + len(statement.urls)]:
            if verdict.url in booked:  # the page was loaded, and paid for, once
                verdict = verdict.model_copy(update={"credits": 0.0, "attempts": []})
            booked.add(verdict.url)
            own.append(verdict)
        position += len(statement.urls)
        owns.append(own)
    read = [url for url in read_urls(verdicts) if url in loaded]
    facts = [
        await asyncio.to_thread(verifier.facts.facts, s.claim, language)
        if needs_follow_up(s, own) and read
        else [s.claim]
        for s, own in zip(statements, owns, strict=True)
    ]
    plans = [
        follow_ups(s, own, parts, read)
        for s, own, parts in zip(statements, owns, facts, strict=True)
    ]

    async def follow(step: FollowUp) -> tuple[FollowUp, UrlVerdict] | None:
        verdict = await in_time(deadline, verifier.verdict(step.claim, loaded[step.url]))
        return None if verdict is None else (step, verdict)

    followed = await asyncio.gather(*(follow(step) for plan in plans for step in plan))
    names = source_names(statements)
    outcomes = []
    position = 0
    for statement, own, plan, parts in zip(statements, owns, plans, facts, strict=True):
        mine = [f for f in followed[position : position + len(plan)] if f is not None]
        position += len(plan)
        outcomes.append(statement_outcome(statement, own, mine, parts, names))
    return answer_result(outcomes)
