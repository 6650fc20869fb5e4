"""Typed shapes of answer checking: the request (an answer and its optional ``citations``
array) and the result (one row per statement, and the answer's figures)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from citation_verifier.models import (
    CITED_AT_DESCRIPTION,
    COMPARE_ARCHIVE_DESCRIPTION,
    Label,
    UrlVerdict,
    as_utc,
    text_before,
)


class StatementLabel(StrEnum):
    """A statement's overall label: a claim label, or why it was not verified."""

    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    NOT_FOUND = "not_found"
    PARTIAL = "partial"
    """Its citations state some of its facts, not all (none contradicts it)."""
    UNREACHABLE = "unreachable"
    UNCITED = "uncited"
    """No citation marker or link: kept, not verified."""
    UNRESOLVED = "unresolved"
    """Only markers that match no source in the answer: nothing could be verified."""


class CitedSource(BaseModel):
    """One entry of a ``citations`` array given as an object (the shape some answer APIs
    return); only ``url`` is used."""

    model_config = ConfigDict(extra="allow")

    url: str

    @field_validator("url", mode="before")
    @classmethod
    def _url_text(cls, value: object) -> object:
        return text_before(value)


class AnswerRequest(BaseModel):
    """An LLM answer (Markdown or plain text with citation markers) and, optionally, the
    ``citations`` array that ``[n]`` markers index (``[1]`` is the first entry)."""

    model_config = ConfigDict(extra="forbid")

    answer: str = Field(min_length=1, description="The answer text, markers and links included.")
    citations: list[str | CitedSource] | None = Field(
        default=None,
        description="Sources that [n] markers refer to, in order: URLs, or objects with a url.",
    )
    cited_at: datetime | None = Field(default=None, description=CITED_AT_DESCRIPTION)
    compare_archive: bool = Field(default=False, description=COMPARE_ARCHIVE_DESCRIPTION)

    @field_validator("answer")
    @classmethod
    def _answer_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("answer must not be blank")
        return value

    @field_validator("answer", "citations", mode="before")
    @classmethod
    def _unicode_text(cls, value: object) -> object:
        return text_before(value)

    @field_validator("citations", mode="before")
    @classmethod
    def _sources_or_objects(cls, value: object) -> object:
        # Said once per entry here: the union's own errors name each type it tried ("str",
        # "CitedSource"), which means nothing to the person who wrote the array.
        if isinstance(value, list):
            for number, item in enumerate(value, start=1):
                has_url = isinstance(item, dict) and isinstance(item.get("url"), str)
                if not (isinstance(item, str | CitedSource) or has_url):
                    raise ValueError(f"[{number}] is neither a URL nor an object with a url")
        return value

    @field_validator("cited_at")
    @classmethod
    def _cited_at_utc(cls, value: datetime | None) -> datetime | None:
        return as_utc(value)

    @model_validator(mode="after")
    def _compare_needs_a_date(self) -> AnswerRequest:
        if self.compare_archive and self.cited_at is None:
            raise ValueError("compare_archive needs cited_at (the date the page was cited)")
        return self

    def citation_urls(self) -> list[str]:
        """The ``citations`` array as plain URL strings (empty when there is none)."""
        return [c if isinstance(c, str) else c.url for c in self.citations or []]


class MarkerResult(BaseModel):
    """A citation marker or link as written in the statement, and what it resolved to."""

    text: str = Field(description="The marker as written: [1], [^note], [text](URL), a URL.")
    urls: list[str] = Field(default_factory=list, description="The URLs it cites.")
    problems: list[str] = Field(
        default_factory=list, description="Why (part of) it resolves to no usable source."
    )


class FactResult(BaseModel):
    """One fact of a statement its citations were read for one by one (docs/ANSWERS.md)."""

    text: str = Field(description="The fact as judged: a claim of its own.")
    label: Label = Field(description="supported when one of the statement's citations states it.")
    url: str | None = Field(default=None, description="The citation that decided the label.")
    evidence_quote: str | None = Field(default=None, description="That citation's quote.")
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)


class Misattribution(BaseModel):
    """Another source of the same answer that states a statement its own citations do not."""

    source: str = Field(description='How the answer names it: "[2]", or its URL.')
    url: str
    evidence_quote: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)


class StatementResult(BaseModel):
    """One statement of the answer: as written, as checked, and what its citations found."""

    text: str = Field(description="The statement as written, markers and links included.")
    claim: str = Field(description="The claim sent to the verifier: markup and markers removed.")
    overall: StatementLabel
    citations: list[UrlVerdict] = Field(
        default_factory=list, description="One verdict per distinct cited URL, in citing order."
    )
    markers: list[MarkerResult] = Field(
        default_factory=list, description="The citation markers and links it carries, in order."
    )
    problems: list[str] = Field(
        default_factory=list, description="Markers that could not be resolved to a source."
    )
    facts: list[FactResult] = Field(
        default_factory=list,
        description="Its facts, each judged against its citations, when no citation alone "
        "supports the whole statement and it states several.",
    )
    misattributed: list[Misattribution] = Field(
        default_factory=list,
        description="Sources cited elsewhere in the answer that state it where its own "
        "citations do not.",
    )
    supporting_urls: list[str] = Field(
        default_factory=list,
        description="Its citations that state it or one of its facts (Liu et al.'s precise "
        "citations).",
    )


class AnswerResult(BaseModel):
    """Every statement of the answer in order, and the answer's figures."""

    statements: list[StatementResult]
    citation_precision: float | None = Field(
        description="Supported citations / all verified citations; null when nothing was cited."
    )
    citations: int = Field(ge=0, description="Statement–URL pairs verified.")
    supported_citations: int = Field(ge=0, description="Those whose verdict is supported.")
    citation_recall: float | None = Field(
        default=None,
        description="Liu et al. 2023: statements their citations support, together / every "
        "statement (uncited ones included; those no citation of could be judged left out); "
        "null when none counts.",
    )
    recall_statements: int = Field(default=0, ge=0, description="Statements recall counts.")
    citation_precision_liu: float | None = Field(
        default=None,
        description="Liu et al. 2023: citations that support their statement in full or one of "
        "its facts / all judged citations; null when nothing was judged.",
    )
    supporting_citations: int = Field(
        default=0, ge=0, description="Citations that support their statement or a fact of it."
    )
    judged_citations: int = Field(default=0, ge=0, description="Citations a judge read.")
    supported: int = Field(ge=0, description="Statements whose overall label is supported.")
    partial: int = Field(default=0, ge=0, description="Statements whose citations state part.")
    contradicted: int = Field(ge=0, description="Statements contradicted by a citation.")
    not_found: int = Field(ge=0, description="Statements whose citations do not say it.")
    unreachable: int = Field(ge=0, description="Statements whose every citation is unreachable.")
    uncited: int = Field(ge=0, description="Statements with no citation (not verified).")
    unresolved: int = Field(ge=0, description="Statements whose markers match no source.")
    misattributed: int = Field(
        default=0, ge=0, description="Statements another source of the answer states instead."
    )
    unique_urls: int = Field(ge=0, description="Distinct URLs fetched (each once per answer).")
    credits: float = Field(default=0.0, ge=0, description="Crawling-API credits of the answer.")
