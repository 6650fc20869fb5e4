"""An answer's statements judged together: facts in two sources, misattributed citations, and
citation recall and precision as Liu et al. define them (docs/ANSWERS.md). Real pages on
127.0.0.1, the embedded checker."""

from __future__ import annotations

import asyncio
import csv
import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from citation_verifier.answers.check import check_answer
from citation_verifier.answers.models import AnswerRequest, AnswerResult
from citation_verifier.batch.checkpoint import Checkpoint
from citation_verifier.batch.engine import LocalRunner, run_batch
from citation_verifier.batch.records import read_input
from citation_verifier.batch.summary import summary_lines
from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.demo.site import answer_routes, attributed_answer
from citation_verifier.facts import FactSplitter
from citation_verifier.pipeline import build_verifier
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]


@pytest.fixture
def checker(settings: Settings) -> Settings:
    return settings.model_copy(update={"judge_provider": "checker"})


def check(settings: Settings, embedder: MiniLMEmbedder, answer: str) -> AnswerResult:
    async def go() -> AnswerResult:
        async with build_verifier(settings, embedder=embedder) as verifier:
            return await check_answer(verifier, AnswerRequest(answer=answer))

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("statement", "facts"),
    [
        (
            "The Eiffel Tower is 330 metres tall and was completed in 1889.",
            ["The Eiffel Tower is 330 metres tall.", "The Eiffel Tower was completed in 1889."],
        ),
        (
            "The bridge was designed by Halvorsen & Brook and built by Northgate Civil.",
            [
                "The bridge was designed by Halvorsen & Brook.",
                "The bridge was built by Northgate Civil.",
            ],
        ),
        (
            "Engineers from Halvorsen & Brook designed it, while the consortium was led by Northgate.",
            [
                "Engineers from Halvorsen & Brook designed it.",
                "The consortium was led by Northgate.",
            ],
        ),
        (
            "Paris is the capital of France, and it has about 2.1 million inhabitants.",
            ["Paris is the capital of France.", "Paris has about 2.1 million inhabitants."],
        ),
        (
            "The tram will open in 2027 and carry 20,000 passengers a day.",
            ["The tram will open in 2027.", "The tram will carry 20,000 passengers a day."],
        ),
        ("He was born in 1950 and died in 2000.", ["He was born in 1950.", "He died in 2000."]),
        ("Smith and Jones met in Paris.", ["Smith and Jones met in Paris."]),
        (
            "She won the prize in 1903 and again in 1911.",
            ["She won the prize in 1903 and again in 1911."],
        ),
    ],
)
def test_an_english_statement_splits_into_its_coordinated_facts(
    statement: str, facts: list[str]
) -> None:
    assert FactSplitter().facts(statement, "en") == facts


def test_a_statement_in_another_language_splits_at_semicolons_only() -> None:
    splitter = FactSplitter()
    assert splitter.facts("Die Brücke ist 4,2 km lang; sie wurde 2024 eröffnet.", "de") == [
        "Die Brücke ist 4,2 km lang.",
        "Sie wurde 2024 eröffnet.",
    ]
    whole = "Die Brücke ist 4,2 km lang und wurde 2024 eröffnet."
    assert splitter.facts(whole, "de") == [whole]


def test_two_halves_in_two_sources_are_supported_each_fact_quoted_from_its_source(
    serve: Serve, checker: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(answer_routes())
    result = check(checker, embedder, attributed_answer(site.base_url))
    joint = result.statements[0]
    assert [c.label.value for c in joint.citations] == ["not_found", "not_found"]
    assert joint.overall.value == "supported"
    assert [(f.label.value, f.url) for f in joint.facts] == [
        ("supported", site.url("/articles/orlen-bridge")),
        ("supported", site.url("/articles/orlen-bridge-design")),
    ]
    assert "4.2 kilometres long" in (joint.facts[0].evidence_quote or "")
    assert "Halvorsen & Brook designed" in (joint.facts[1].evidence_quote or "")
    assert joint.supporting_urls == [c.url for c in joint.citations]


def test_a_fact_only_another_cited_source_states_is_misattributed_to_it(
    serve: Serve, checker: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(answer_routes())
    result = check(checker, embedder, attributed_answer(site.base_url))
    wrong = result.statements[1]
    assert wrong.overall.value == "not_found"
    assert [(m.source, m.url) for m in wrong.misattributed] == [
        ("[1]", site.url("/articles/orlen-bridge"))
    ]
    assert "May 2024" in (wrong.misattributed[0].evidence_quote or "")
    assert result.misattributed == 1
    assert not result.statements[2].misattributed  # supported by its own citation


def test_recall_and_precision_follow_liu_et_al(
    serve: Serve, checker: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(answer_routes())
    answer = attributed_answer(site.base_url).replace("Sources:", "Bridges are useful.\n\nSources:")
    result = check(checker, embedder, answer)
    assert [s.overall.value for s in result.statements] == [
        "supported",
        "not_found",
        "supported",
        "uncited",
    ]
    # Recall: statements supported by their citations together, the uncited one counted.
    assert (result.supported, result.recall_statements, result.citation_recall) == (2, 4, 0.5)
    # Liu precision: both citations of the first statement state one fact each.
    assert (result.supporting_citations, result.judged_citations) == (3, 4)
    assert result.citation_precision_liu == 0.75
    assert result.citation_precision == 0.25  # ours: a citation that states it alone


def test_a_statement_one_citation_states_half_of_is_partial(
    serve: Serve, checker: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(answer_routes())
    answer = (
        "The Orlen Bridge is 4.2 kilometres long and was designed by Halvorsen & Brook [1].\n\n"
        f"[1] {site.url('/articles/orlen-bridge')}"
    )
    result = check(checker, embedder, answer)
    statement = result.statements[0]
    assert statement.overall.value == "partial"
    assert [f.label.value for f in statement.facts] == ["supported", "not_found"]
    assert statement.facts[1].url is None and statement.facts[1].evidence_quote is None
    assert (result.partial, result.citation_recall, result.citation_precision_liu) == (1, 0.0, 1.0)


def _cli(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "citation_verifier", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            "ALLOW_PRIVATE_URLS": "true",
            "JUDGE_PROVIDER": "checker",
            **(env or {}),
        },
        check=False,
    )


def test_check_answer_prints_facts_misattribution_recall_and_precision(
    serve: Serve, tmp_path: Path
) -> None:
    site = serve(answer_routes())
    path = tmp_path / "answer.md"
    path.write_text(attributed_answer(site.base_url), encoding="utf-8")
    done = _cli("check-answer", str(path))
    assert done.returncode == 0, done.stderr
    assert "   fact supported  " + site.url("/articles/orlen-bridge") in done.stdout
    assert (
        "   misattributed: [1] states it (" + site.url("/articles/orlen-bridge") + ")"
        in done.stdout
    )
    assert "citation_recall=0.6667 (2/3) citation_precision_liu=0.7500 (3/4)" in done.stdout
    assert "misattributed=1" in done.stdout


def test_check_answer_fail_on_misattributed_gates_on_a_misattributed_statement(
    serve: Serve, tmp_path: Path
) -> None:
    site = serve(answer_routes())
    path = tmp_path / "answer.md"
    path.write_text(attributed_answer(site.base_url), encoding="utf-8")
    done = _cli("check-answer", str(path), "--fail-on", "misattributed")
    assert done.returncode == 1, done.stderr
    assert "--fail-on: 1 statement(s) misattributed" in done.stderr
    # The verify command has no answers, hence no such gate.
    refused = _cli(
        "verify", "A claim.", site.url("/articles/orlen-bridge"), "--fail-on", "misattributed"
    )
    assert refused.returncode == 2 and "unknown label misattributed" in refused.stderr


async def test_a_batch_reports_recall_misattribution_and_resumes_its_follow_ups(
    serve: Serve, tmp_path: Path, checker: Settings, embedder: MiniLMEmbedder
) -> None:
    site = serve(answer_routes())
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(
        json.dumps({"id": "a1", "answer": attributed_answer(site.base_url)}) + "\n",
        encoding="utf-8",
    )
    checkpoint = Checkpoint(tmp_path / "cp.jsonl")
    runner = LocalRunner(checker, embedder=embedder)
    try:
        outcome = await run_batch(
            read_input(inputs), runner, checkpoint, resume=False, concurrency=2, per_host=2
        )
    finally:
        await runner.aclose()
    lines = summary_lines(outcome.summary)
    assert any("misattributed=1" in line for line in lines)
    assert "citation_recall=0.6667 (2/3) citation_precision_liu=0.7500 (3/4)" in lines
    statements = outcome.answers[0].result.statements
    assert [s.overall.value for s in statements] == ["supported", "not_found", "supported"]
    assert [m.source for m in statements[1].misattributed] == ["[1]"]
    follow = [json.loads(line) for line in checkpoint.path.read_text().splitlines()]
    assert sorted(r["follow"] for r in follow if r["follow"]) == [
        "fact0",
        "fact0",
        "fact1",
        "fact1",
        "other",
    ]

    # A resumed run judges nothing again: the follow-ups come from the checkpoint.
    calls: list[str] = []
    again = LocalRunner(checker, embedder=embedder)
    inner = again.verifier.verdict

    async def counted(claim, loaded):  # type: ignore[no-untyped-def]
        calls.append(claim)
        return await inner(claim, loaded)

    again.verifier.verdict = counted  # type: ignore[method-assign]
    try:
        resumed = await run_batch(
            read_input(inputs), again, checkpoint, resume=True, concurrency=2, per_host=2
        )
    finally:
        await again.aclose()
    assert calls == []
    assert resumed.answers[0].result.model_dump() == outcome.answers[0].result.model_dump()


def test_the_statements_csv_carries_facts_misattribution_and_the_answer_figures(
    serve: Serve, tmp_path: Path
) -> None:
    site = serve(answer_routes())
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(
        json.dumps({"id": "a1", "answer": attributed_answer(site.base_url)}) + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "report.csv"
    done = _cli(
        "batch", str(inputs), "--out", str(out), "--quiet", "--html", str(tmp_path / "r.html")
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((tmp_path / "report.csv.statements.csv").open(encoding="utf-8")))
    assert [json.loads(row["misattributed"]) for row in rows] == [[], ["[1]"], []]
    assert rows[0]["facts"].count("supported: ") == 2
    assert {row["answer_citation_recall"] for row in rows} == {str(2 / 3)}
    assert {row["answer_citation_precision_liu"] for row in rows} == {"0.75"}
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "misattributed: [1]" in html and "recall 0.6667" in html
