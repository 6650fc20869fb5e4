"""``POST /promptfoo``: promptfoo's ``webhook`` assertion answered by the service.

promptfoo posts ``{"output": ..., "context": {"prompt": ..., "vars": {...}}}`` and keeps the
``pass``, ``score`` and ``reason`` of the answer (a grading result). A webhook runs inside
promptfoo's own process, where a Python assertion costs a new Python process per test; the
grading result is the Python assertion's (:func:`~citation_verifier.integrations.promptfoo.
grading_result`), so both say the same.

promptfoo reads nothing of a non-2xx answer but its status, so an output that cannot be
checked (blank, over the length limit, a ``citations`` var that is no list of URLs) is a
failing grade whose reason says why; only a body that is not promptfoo's shape is a 422.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from citation_verifier.answers.models import AnswerRequest
from citation_verifier.errors import plain_message


class PromptfooContext(BaseModel):
    """The test's context as promptfoo sends it; only ``vars`` is read."""

    model_config = ConfigDict(extra="ignore")

    vars: dict[str, Any] = Field(
        default_factory=dict,
        description="The test's vars: `citations` (the URLs [n] indexes), `threshold`.",
    )


class PromptfooWebhook(BaseModel):
    """The body of promptfoo's ``webhook`` assertion."""

    model_config = ConfigDict(extra="ignore")

    output: str = Field(description="The model's output: the answer to check.")
    context: PromptfooContext = Field(default_factory=PromptfooContext)


class PromptfooGrade(BaseModel):
    """promptfoo's GradingResult: the webhook keeps ``pass``, ``score`` and ``reason``."""

    model_config = ConfigDict(populate_by_name=True)

    pass_: bool = Field(alias="pass", description="The figure reached the threshold.")
    score: float
    reason: str
    componentResults: list[dict[str, Any]] = Field(default_factory=list)
    namedScores: dict[str, float] = Field(default_factory=dict)


def answer_request(body: PromptfooWebhook) -> AnswerRequest | str:
    """The answer check the webhook asks for, or why its output and vars cannot be checked."""
    try:
        return AnswerRequest(answer=body.output, citations=body.context.vars.get("citations"))
    except ValidationError as error:
        problems = []
        for item in error.errors():
            field, *rest = [str(part) for part in item["loc"]] or ["answer"]
            where = ".".join(["output" if field == "answer" else field, *rest])
            problems.append(f"{where}: {plain_message(item)}")
        return "; ".join(problems)


def threshold_of(body: PromptfooWebhook, default: float) -> float | str:
    """The test's ``threshold`` var, else ``default``; or why the var is no number in 0..1."""
    value = body.context.vars.get("threshold", default)
    try:
        threshold = float(value)
    except (TypeError, ValueError):
        return f"threshold: {value!r} is not a number"
    if not 0.0 <= threshold <= 1.0:
        return f"threshold: {threshold} is not between 0 and 1"
    return threshold


def failing(reason: str) -> dict[str, Any]:
    """A failing grade for an output that could not be checked, saying why."""
    return {"pass": False, "score": 0.0, "reason": f"not checked: {reason}"}
