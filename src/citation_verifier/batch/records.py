"""Batch input: JSONL records → citations, and line errors.

A record is ``{"id", "claim", "urls"}``, or ``{"id", "answer"}`` (optionally ``"citations"``)
for a whole LLM answer, which is parsed into statements here; either may carry ``cited_at``
and ``compare_archive``. Each claim–URL pair is one
citation, keyed by the record's id, the statement's position (answers only) and the URL's
position, so a rerun of the same input (``--resume``) finds the citations it already finished.
A line that cannot be used becomes a :class:`LineError` with its line number; reading never
stops early.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from citation_verifier.answers.models import AnswerRequest
from citation_verifier.answers.parse import Statement, parse_answer
from citation_verifier.errors import InputError, validation_message
from citation_verifier.language import LanguageIdentifier
from citation_verifier.limits import answer_length_problem, claim_length_problem
from citation_verifier.models import VerifyRequest
from citation_verifier.settings import Settings
from citation_verifier.utf8 import BOM, CONVERT_HINT, utf8_problem


@dataclass(frozen=True)
class Citation:
    """One claim–URL pair of the input, in input order."""

    record_id: str
    index: int
    """Position of the URL in the record's ``urls``."""
    claim: str
    url: str
    statement: int | None = None
    """Position of the statement in an answer record; None for a claim record."""
    cited_at: datetime | None = None
    """When the record's answer cited the URL (the archive looks for a capture near it)."""
    compare_archive: bool = False
    follow: str | None = None
    """An answer statement's follow-up (``answers/support.py``): ``fact<n>`` for its n-th
    fact on its ``index``-th URL, ``other`` for the statement on the answer's ``index``-th
    read URL; None for a citation of the input."""

    @property
    def key(self) -> str:
        """Identity across runs: the record id, the statement's and the URL's position (and
        the follow-up)."""
        return citation_key(self.record_id, self.statement, self.index, self.follow)


def citation_key(
    record_id: str, statement: int | None, index: int, follow: str | None = None
) -> str:
    """The key of a citation (and of its checkpoint row)."""
    if statement is None:
        return f"{record_id}\x1f{index}"
    key = f"{record_id}\x1f{statement}\x1f{index}"
    return key if follow is None else f"{key}\x1f{follow}"


@dataclass(frozen=True)
class AnswerRecord:
    """An answer record of the input: its id and its parsed statements."""

    record_id: str
    statements: list[Statement]
    language: str | None = None
    """The answer's language (ISO 639-1), as identified."""


@dataclass(frozen=True)
class LineError:
    """An input line that was skipped, and why."""

    line: int
    error: str
    record_id: str | None = None


@dataclass
class BatchInput:
    """Every citation of the input in order, and every line that could not be used."""

    citations: list[Citation]
    errors: list[LineError]
    records: int
    """Records accepted."""
    answers: list[AnswerRecord] = field(default_factory=list)
    """The answer records, in input order (their citations are in ``citations`` too)."""


def _record_id(value: Any) -> str:
    # bool is an int subclass in Python; true/false are not ids.
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError("id must be a string or an integer")
    text = str(value).strip()
    if not text:
        raise ValueError("id must not be empty")
    return text


class RecordError(ValueError):
    """A line that is not a usable record; ``record_id`` when its id could be read."""

    def __init__(self, message: str, record_id: str | None = None) -> None:
        super().__init__(message)
        self.record_id = record_id


def parse_line(
    text: str, settings: Settings | None = None
) -> tuple[str, VerifyRequest | AnswerRequest]:
    """The id and request of one JSONL line (a claim, or an answer); :class:`RecordError` with
    a readable message if the line is not a usable record (bad JSON, missing field, empty claim
    or answer, no URLs, bad URL, a claim or answer over the limits of ``settings``)."""
    record_id, request = _parse_line(text)
    limits = settings or Settings()
    if isinstance(request, VerifyRequest):
        problem = claim_length_problem(request.claim, limits)
        field_name = "claim"
    else:
        problem = answer_length_problem(request.answer, limits)
        field_name = "answer"
    if problem is not None:
        raise RecordError(f"{field_name}: {problem}", record_id)
    return record_id, request


def _parse_line(text: str) -> tuple[str, VerifyRequest | AnswerRequest]:
    text = text.rstrip("\r\n")  # a truncated line's error is on this line, not the next
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"invalid JSON at column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise RecordError(f"expected a JSON object, got {type(data).__name__}")
    record_id = None
    if "id" in data:
        try:
            record_id = _record_id(data["id"])
        except ValueError as error:
            raise RecordError(str(error)) from None
    if "answer" in data:
        if "claim" in data or "urls" in data:
            raise RecordError(
                "a record holds either claim and urls, or answer; not both", record_id
            )
        fields: tuple[str, ...] = ("id", "answer")
    else:
        fields = ("id", "claim", "urls")
    missing = [name for name in fields if name not in data]
    if missing or record_id is None:
        raise RecordError(f"missing field(s): {', '.join(missing)}", record_id)
    archive = {k: data[k] for k in ("cited_at", "compare_archive") if k in data}
    try:
        if "answer" in data:
            fields_given = {k: data[k] for k in ("answer", "citations") if k in data}
            return record_id, AnswerRequest.model_validate({**fields_given, **archive})
        return record_id, VerifyRequest(claim=data["claim"], urls=data["urls"], **archive)
    except ValidationError as error:
        raise RecordError(validation_message(error, "record"), record_id) from None


STDIN = Path("-")


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """Numbered lines of ``path`` as bytes, each with the file offset it starts at: ``-`` is
    standard input, ``.gz`` is read through gzip (offsets then count unpacked bytes)."""
    if path == STDIN:
        yield from _numbered(sys.stdin.buffer)
        return
    if path.suffix == ".gz":
        with gzip.open(path, "rb") as packed:
            yield from _numbered(packed)
        return
    with path.open("rb") as handle:
        yield from _numbered(handle)


def _numbered(handle: Iterable[bytes]) -> Iterator[tuple[int, int, bytes]]:
    offset = 0
    for number, line in enumerate(handle, start=1):
        yield number, offset, line
        offset += len(line)


def _text(number: int, offset: int, line: bytes) -> str:
    """A line's text; :class:`RecordError` naming the byte when it is not UTF-8 (each line
    on its own: one bad line is an error of its own, never mojibake, never the end)."""
    if number == 1 and line.startswith(BOM):
        line, offset = line[len(BOM) :], offset + len(BOM)
    problem = utf8_problem(line, offset)
    if problem is not None:
        raise RecordError(f"{problem}; {CONVERT_HINT}")
    return line.decode("utf-8")


def read_input(path: Path, settings: Settings | None = None) -> BatchInput:
    """Read ``path`` (JSONL). Blank lines are skipped silently; every other unusable line (a
    claim or answer over the limits of ``settings`` too), and a record whose id was already
    used, becomes a :class:`LineError`."""
    try:
        return _read(path, settings or Settings())
    except (OSError, EOFError, UnicodeError, zlib.error) as error:  # unreadable, corrupt .gz
        raise InputError(f"cannot read {path}: {error}") from None


def _read(path: Path, settings: Settings) -> BatchInput:
    citations: list[Citation] = []
    errors: list[LineError] = []
    answers: list[AnswerRecord] = []
    seen: dict[str, int] = {}
    records = 0
    languages = LanguageIdentifier()  # each answer's sentences are split in its language
    for number, offset, raw in _lines(path):
        if not raw.strip():
            continue
        try:
            record_id, request = parse_line(_text(number, offset, raw), settings)
        except RecordError as exc:
            errors.append(LineError(number, str(exc), exc.record_id))
            continue
        if record_id in seen:
            errors.append(
                LineError(number, f"duplicate id (first used on line {seen[record_id]})", record_id)
            )
            continue
        seen[record_id] = number
        records += 1
        if isinstance(request, AnswerRequest):
            language = languages.best(request.answer)
            statements = parse_answer(request.answer, request.citation_urls(), language)
            answers.append(AnswerRecord(record_id, statements, language))
            citations.extend(
                Citation(
                    record_id,
                    index,
                    statement.claim,
                    url,
                    position,
                    request.cited_at,
                    request.compare_archive,
                )
                for position, statement in enumerate(statements)
                for index, url in enumerate(statement.urls)
            )
            continue
        citations.extend(
            Citation(
                record_id,
                index,
                request.claim,
                url,
                cited_at=request.cited_at,
                compare_archive=request.compare_archive,
            )
            for index, url in enumerate(request.urls)
        )
    return BatchInput(citations, errors, records, answers)


def with_archive_options(
    batch: BatchInput, cited_at: datetime | None, compare_archive: bool
) -> BatchInput:
    """``batch`` with ``cited_at`` for citations whose record gave none, and the archive
    comparison on for every citation that has a date when ``compare_archive``."""
    citations = [
        dataclasses.replace(
            c,
            cited_at=c.cited_at or cited_at,
            compare_archive=c.compare_archive
            or (compare_archive and (c.cited_at or cited_at) is not None),
        )
        for c in batch.citations
    ]
    return dataclasses.replace(batch, citations=citations)
