"""An Inspect AI scorer (``pip install 'citation-verifier[inspect]'``): checks the pages the
model's answer cites.

>>> Task(dataset=..., solver=generate(), scorer=citation_verification())   # doctest: +SKIP

The answer is the model output's text. Where the model returned URL citations (OpenAI's
``url_citation`` annotations, Anthropic's web-search citations: ``UrlCitation`` in a text
block), each becomes a numbered marker on the text it annotates (at the end of its range, or of
its block) and a source of the answer; where the text already links the URL, it stays as it is.
Without URL citations the text's own markers and Sources list are read. The score's value is
the figure ``figure`` names (citation recall by default), its explanation every statement's
verdict with its quote, its metadata the answer's figures and statements (``check-answer
--json``'s shape).
"""

from __future__ import annotations

from inspect_ai._util.citation import UrlCitation
from inspect_ai._util.content import ContentText
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from citation_verifier.answers.models import AnswerResult
from citation_verifier.checker_api import Checker
from citation_verifier.integrations.common import (
    Figure,
    explain,
    figure_of,
    run_checker,
    verdicts,
)


def _block_with_markers(block: ContentText, sources: list[str]) -> str:
    """The block's text with ``[n]`` markers for the URL citations the text does not link, each
    where its range ends (the block's end without one), several at one place together."""
    text: str = block.text
    at_place: dict[int, str] = {}
    for citation in block.citations or []:
        if not isinstance(citation, UrlCitation) or citation.url in text:
            continue
        if citation.url not in sources:
            sources.append(citation.url)
        span = citation.cited_text
        at = span[1] if isinstance(span, tuple) else len(text.rstrip())
        at = min(max(at, 0), len(text))
        # A marker goes before the full stop its range ends on, as answers write them.
        if at and text[at - 1] in ".!?":
            at -= 1
        at_place[at] = at_place.get(at, " ") + f"[{sources.index(citation.url) + 1}]"
    for at in sorted(at_place, reverse=True):
        text = text[:at] + at_place[at] + text[at:]
    return text


def answer_text(output: ModelOutput) -> str:
    """The answer to check: the output's text, its URL citations as numbered markers and a
    Sources list (module docstring)."""
    content = output.message.content if output.choices else output.completion
    if isinstance(content, str):
        return content
    sources: list[str] = []
    text = "".join(
        _block_with_markers(block, sources) for block in content if isinstance(block, ContentText)
    )
    if not sources:
        return text
    listed = "\n".join(f"[{number}] {url}" for number, url in enumerate(sources, start=1))
    return f"{text}\n\nSources:\n{listed}\n"


@scorer(metrics=[mean(), stderr()])  # type: ignore[untyped-decorator]
def citation_verification(
    figure: Figure = "citation_recall", checker: Checker | None = None
) -> Scorer:
    """Score each sample by whether the pages its answer cites say what it claims."""
    run = run_checker(checker)

    async def score(state: TaskState, target: Target) -> Score:
        answer = answer_text(state.output)
        result: AnswerResult = await run.acheck_answer(answer)
        return Score(
            value=figure_of(result, figure),
            answer=answer,
            explanation=explain(result),
            metadata={
                **result.model_dump(mode="json", exclude={"statements"}),
                "statements": verdicts(result),
            },
        )

    return score
