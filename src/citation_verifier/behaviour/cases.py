"""One behavioural case and what counts as passing it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from citation_verifier.models import Label

Half = Literal["measure", "train"]

CATEGORIES = (
    "verbatim",
    "paraphrase",
    "negation",
    "negative_verbs",
    "antonyms",
    "numbers",
    "dates",
    "roles",
    "entities",
    "quantifiers",
    "hedges",
    "partial",
    "tense",
    "comparatives",
)


@dataclass(frozen=True)
class Case:
    """A claim, the page text it is checked against, and the label a sound judge gives."""

    id: str
    category: str
    claim: str
    evidence: str
    expected: Label
    template: str
    """The template or edit that made it (held out as a whole)."""
    source: str
    """Where the evidence came from: ``template`` or the dataset of the real sentence."""

    def passes(self, predicted: Label) -> bool:
        """Supported cases must be supported; every other case must not be (calling a
        contradiction not_found is imprecise, calling it supported is the failure this suite
        exists for). ``strictly_passes`` asks for the exact label."""
        if self.expected == Label.SUPPORTED:
            return predicted == Label.SUPPORTED
        return predicted != Label.SUPPORTED

    def strictly_passes(self, predicted: Label) -> bool:
        """The exact expected label."""
        return predicted == self.expected
