"""The batch checkpoint: one JSON line per finished citation, appended as it completes.

A process killed at any point leaves at most one torn last line; resuming drops it, keeps every
complete line, and appends after them. A row is reused only for the same citation (id, statement
and URL position) with the same claim and URL, so an edited input never inherits a stale
verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ValidationError

from citation_verifier.batch.files import write_atomically
from citation_verifier.batch.records import Citation, citation_key
from citation_verifier.models import UrlVerdict


class ResultRow(BaseModel):
    """A finished citation: which one it is and its verdict."""

    id: str
    index: int
    claim: str
    verdict: UrlVerdict
    statement: int | None = None
    """Position of the statement in an answer record; None for a claim record."""
    cited_at: datetime | None = None
    follow: str | None = None
    """An answer statement's follow-up (:attr:`Citation.follow`); None for an input citation."""

    @property
    def key(self) -> str:
        """Same identity as :attr:`Citation.key`."""
        return citation_key(self.id, self.statement, self.index, self.follow)

    def matches(self, citation: Citation) -> bool:
        """Whether this row is the finished form of ``citation``."""
        return (
            self.key == citation.key
            and self.claim == citation.claim
            and self.verdict.url == citation.url
            and self.cited_at == citation.cited_at
            and (self.verdict.archived_verdict is not None or not citation.compare_archive)
        )


class Checkpoint:
    """Append-only JSONL of :class:`ResultRow`. Read with :meth:`read`, then :meth:`open`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def read(self) -> dict[str, ResultRow]:
        """The rows of an earlier run, by key; torn or invalid lines are dropped."""
        rows: dict[str, ResultRow] = {}
        if not self.path.exists():
            return rows
        with self.path.open("r", encoding="utf-8") as handle:
            for line in handle:
                try:
                    row = ResultRow.model_validate_json(line)
                except ValidationError:
                    continue  # the torn last line of a killed run
                rows[row.key] = row
        return rows

    def open(self, keep: Iterable[ResultRow]) -> None:
        """Rewrite the file with just ``keep`` (atomically), then open it for appending."""
        write_atomically(self.path, (row.model_dump_json() + "\n" for row in keep))
        self._handle = self.path.open("a", encoding="utf-8")

    def append(self, row: ResultRow) -> None:
        """Record one finished citation; flushed at once so a kill cannot lose it."""
        if self._handle is None:
            raise RuntimeError("checkpoint not started")
        self._handle.write(row.model_dump_json() + "\n")
        self._handle.flush()

    def close(self) -> None:
        """Close the file (rows stay for a later ``--resume``)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
