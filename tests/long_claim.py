"""A claim of 5,000 characters about the demo site's boiling-water page: one sentence of
clauses the page states (so it is also one statement of an answer)."""

from __future__ import annotations

CLAUSES = (
    "water boils at 100 degrees Celsius at sea level",
    "this is the standard boiling point, measured at a pressure of one standard atmosphere",
    "at higher altitudes the air pressure is lower, so water boils at a lower temperature",
    "in Denver, about 1,600 metres above sea level, water boils at roughly 95 degrees Celsius",
    "dissolving salt in water raises its boiling point slightly",
)


def long_claim(chars: int = 5000) -> str:
    """The page's clauses, repeated and joined by semicolons, to exactly ``chars`` characters
    (a final period included)."""
    text = ""
    while len(text) < chars:
        for clause in CLAUSES:
            text += ("; " if text else "") + clause
    return text[: chars - 1] + "."
