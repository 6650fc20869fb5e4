"""Aggregate stage: one claim label from its citations' labels, by a fixed rule."""

from __future__ import annotations

from collections.abc import Iterable

from citation_verifier.models import Label


def aggregate(labels: Iterable[Label]) -> Label:
    """Any contradicted wins; else any supported; unreachable only when every citation is;
    every other mix, the empty one included, is not_found. Confidence plays no part."""
    seen = list(labels)
    if Label.CONTRADICTED in seen:
        return Label.CONTRADICTED
    if Label.SUPPORTED in seen:
        return Label.SUPPORTED
    if seen and all(label == Label.UNREACHABLE for label in seen):
        return Label.UNREACHABLE
    return Label.NOT_FOUND
