"""Prometheus metrics of one app instance, in its own registry (no process-global state, so
several apps, e.g. in tests, never share counters)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily

from citation_verifier.answers.models import AnswerResult
from citation_verifier.fetch.archive import ArchiveClient
from citation_verifier.models import Reason, UrlVerdict, VerifyResult

_STAGE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
# Reasons the fetch stage gives; the other two come from the judge/guard.
_NOT_FETCH_REASONS = frozenset(
    {
        Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE,
        Reason.JUDGE_ERROR,
        Reason.INTERNAL_ERROR,
        Reason.ARCHIVED_COPY,
    }
)


class ArchiveLookups:
    """Reads an archive client's counters at scrape time (the client counts; nothing is
    counted twice)."""

    def __init__(self, client: ArchiveClient) -> None:
        self.client = client

    def collect(self) -> Iterator[CounterMetricFamily]:
        """The lookups by outcome, and the HTTP requests they sent."""
        lookups = CounterMetricFamily(
            "cv_archive_lookups",
            "Wayback Machine lookups by outcome: hit (a capture found), miss (nothing archived), "
            "failure (the archive could not answer), cached (answered from the cache; also "
            "counted as its hit or miss).",
            labels=["outcome"],
        )
        client = self.client
        for outcome, count in (
            ("hit", client.hits),
            ("miss", client.misses),
            ("failure", client.failures),
            ("cached", client.cached),
        ):
            lookups.add_metric([outcome], count)
        yield lookups
        requests = CounterMetricFamily("cv_archive_requests", "HTTP requests sent to the archive.")
        requests.add_metric([], self.client.requests)
        yield requests


class ServiceMetrics:
    """Requests, latency per route and per stage, verdict counts, fetch failures by reason."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "cv_http_requests",
            "HTTP requests answered, by route and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            "cv_http_request_duration_seconds",
            "Time to answer an HTTP request, by route.",
            ["route"],
            buckets=_STAGE_BUCKETS,
            registry=self.registry,
        )
        self.stage_seconds = Histogram(
            "cv_stage_duration_seconds",
            "Time per pipeline stage call (fetch attempt, embedding, judge, whole verification).",
            ["stage"],
            buckets=_STAGE_BUCKETS,
            registry=self.registry,
        )
        self.verdicts = Counter(
            "cv_verdicts",
            "Per-citation verdicts, by label.",
            ["label"],
            registry=self.registry,
        )
        self.overall = Counter(
            "cv_claims",
            "Per-claim overall labels (an answer's statements count as claims; uncited too).",
            ["label"],
            registry=self.registry,
        )
        self.archive_rescues = Counter(
            "cv_archive_rescues",
            "Citations judged on their archived copy because the live page could not back them.",
            registry=self.registry,
        )
        self.changed_since_cited = Counter(
            "cv_changed_since_cited",
            "Citations whose page was judged differently on its capture at the citation date.",
            registry=self.registry,
        )
        self.fetch_failures = Counter(
            "cv_fetch_failures",
            "Citations the fetch stage settled without judging, by reason.",
            ["reason"],
            registry=self.registry,
        )
        self.unreadable = Counter(
            "cv_unreadable",
            "Citations we could not read because a wall stood in front of the page, by reason "
            "(bot_challenge, consent_wall, login_required, paywalled, ...).",
            ["reason"],
            registry=self.registry,
        )
        self.wall_recoveries = Counter(
            "cv_wall_recoveries",
            "Steps taken to get past a wall, by step and outcome (read, or the wall that stayed).",
            ["step", "outcome"],
            registry=self.registry,
        )
        self.rejected = Counter(
            "cv_rejected_requests",
            "Verify requests refused before running (overloaded, unauthorized, not_configured) "
            "or given up when the client went away (client_gone).",
            ["why"],
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "cv_verifications_in_flight", "Verifications running now.", registry=self.registry
        )
        self.waiting = Gauge(
            "cv_verifications_waiting",
            "Verify requests waiting for a slot.",
            registry=self.registry,
        )

    def watch_archive(self, client: ArchiveClient) -> None:
        """Export ``client``'s lookup counters."""
        self.registry.register(ArchiveLookups(client))

    def observe_stage(self, stage: str, seconds: float) -> None:
        """Record one timed stage call."""
        self.stage_seconds.labels(stage=stage).observe(seconds)

    def record_result(self, result: VerifyResult) -> None:
        """Count a finished verification's labels and fetch-stage reasons."""
        self.record_verdicts(result.overall.value, result.citations)

    def record_answer(self, result: AnswerResult) -> None:
        """Count a checked answer: each statement as a claim (uncited ones by their label)."""
        for statement in result.statements:
            self.record_verdicts(statement.overall.value, statement.citations)

    def record_verdicts(self, overall: str, citations: Sequence[UrlVerdict]) -> None:
        """Count one claim's overall label, its citations' labels and fetch-stage reasons."""
        self.overall.labels(label=overall).inc()
        for citation in citations:
            if citation.reason == Reason.ARCHIVED_COPY:
                self.archive_rescues.inc()
            if citation.changed_since_cited:
                self.changed_since_cited.inc()
            self.verdicts.labels(label=citation.label.value).inc()
            if citation.reason and citation.reason not in _NOT_FETCH_REASONS:
                self.fetch_failures.labels(reason=citation.reason).inc()
            if citation.could_not_read is not None:
                self.unreadable.labels(reason=citation.reason).inc()
            for step in citation.recoveries:
                self.wall_recoveries.labels(step=step.step, outcome=step.outcome).inc()

    def render(self) -> bytes:
        """The text exposition format of every metric."""
        return generate_latest(self.registry)
