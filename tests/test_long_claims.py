"""Claims of any accepted length: a long claim is judged part by part (judge/parts.py), the
checker's input never overflows, and every front end gives a 5,000-character claim a verdict
within one limit (MAX_CLAIM_CHARS)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from itertools import pairwise
from pathlib import Path

import httpx
import pytest

from citation_verifier.demo.loopback import LoopbackSite, Route
from citation_verifier.demo.site import demo_routes
from citation_verifier.judge.base import Judgement
from citation_verifier.judge.checker_model import CheckerModel
from citation_verifier.judge.parts import PART_CHARS, claim_parts, combine, over_budget
from citation_verifier.models import Label, Reason
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.service.app import create_app
from citation_verifier.service.server import BackgroundServer
from citation_verifier.settings import Settings
from citation_verifier.terminal import ExitCode
from long_claim import long_claim
from test_cli import run
from test_mcp_server import Transcript, _text, stdio_session

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
PAGE = "/articles/water-boiling-point"
JUDGED = {"supported", "contradicted", "not_found"}


@pytest.fixture
def site(serve: Serve) -> LoopbackSite:
    return serve(demo_routes())


def test_a_claim_within_a_part_is_judged_whole() -> None:
    claim = "Water boils at 100 degrees Celsius at sea level. Salt raises it slightly."
    assert claim_parts(claim) == [claim]


def test_a_long_claim_is_split_into_sentences_each_a_slice_of_it() -> None:
    sentences = [f"Fact number {i} is stated here in a sentence of its own." for i in range(12)]
    claim = " ".join(sentences)
    assert len(claim) > PART_CHARS
    assert claim_parts(claim) == sentences


def test_a_sentence_longer_than_a_part_is_cut_at_clause_breaks_within_the_limit() -> None:
    claim = long_claim(5000)
    parts = claim_parts(claim)
    assert len(parts) > 1
    assert all(0 < len(part) <= PART_CHARS for part in parts)
    assert all(part in claim for part in parts)
    assert all(part.split(";")[0].strip() for part in parts)  # no part starts at a bare break


def test_a_short_fragment_joins_the_next_part() -> None:
    tail = " ".join(f"Sentence {i} adds one more fact to the long claim." for i in range(10))
    claim = f"Dr. Smith measured the boiling point. {tail}"
    assert claim_parts(claim)[0] == "Dr. Smith measured the boiling point."


def test_a_word_longer_than_a_part_is_cut_without_losing_characters() -> None:
    claim = "x" * (2 * PART_CHARS + 7)
    assert "".join(claim_parts(claim)) == claim


def test_chinese_and_japanese_claims_are_split_at_their_own_marks() -> None:
    sentences = [f"第{i}座长江大桥于今年五月正式通车,全长1670米,耗资二十亿元。" for i in range(20)]
    claim = "".join(sentences)
    assert len(claim) > PART_CHARS
    parts = claim_parts(claim)
    assert "".join(parts) == claim
    assert all(part.endswith("。") for part in parts)
    clauses = "東京の新しい橋は全長1670メートルで、" * 40
    assert all(part.endswith("、") for part in claim_parts(clauses))


def test_text_without_any_break_is_never_cut_inside_a_number() -> None:
    # no mark at all, only cuts between characters; a plain cut at 500 would split "1670"
    claim = "根据最新新闻报道" + "长江大桥全长1670米" * 60
    assert claim[PART_CHARS - 1 : PART_CHARS + 1].isdigit()
    parts = claim_parts(claim)
    assert "".join(parts) == claim
    assert all(not (a[-1].isdigit() and b[0].isdigit()) for a, b in pairwise(parts))


def _j(label: Label, confidence: float, quote: str | None = None, **extra: object) -> Judgement:
    return Judgement(label, quote, confidence, **extra)  # type: ignore[arg-type]


PARTS = ["The bridge opened in 1932.", "The tower is 120 metres tall.", "The river floods."]


def test_any_part_contradicted_makes_the_claim_contradicted_with_its_quote() -> None:
    judged = combine(
        PARTS,
        [
            _j(Label.SUPPORTED, 0.9, "a"),
            _j(Label.CONTRADICTED, 0.6, "The tower is 90 metres tall."),
            _j(Label.CONTRADICTED, 0.8, "The river never floods."),
        ],
    )
    assert (judged.label, judged.evidence_quote, judged.confidence) == (
        Label.CONTRADICTED,
        "The river never floods.",
        0.8,
    )
    assert judged.detail is not None and "3 parts" in judged.detail and "part 3" in judged.detail


def test_a_part_contradicted_by_a_sentence_about_another_fact_is_not_a_contradiction() -> None:
    judged = combine(
        PARTS,
        [
            _j(Label.SUPPORTED, 0.9, "The bridge opened in 1932."),
            _j(Label.CONTRADICTED, 0.7, "Parking is free on Sundays."),
            _j(Label.SUPPORTED, 0.8, "The river floods."),
        ],
    )
    assert judged.label == Label.NOT_FOUND and judged.evidence_quote is None


def test_every_part_supported_quotes_the_least_confident_part() -> None:
    judged = combine(
        PARTS,
        [
            _j(Label.SUPPORTED, 0.9, "a"),
            _j(Label.SUPPORTED, 0.5, "b"),
            _j(Label.SUPPORTED, 0.7, "c"),
        ],
    )
    assert (judged.label, judged.evidence_quote, judged.confidence) == (Label.SUPPORTED, "b", 0.5)


def test_a_part_not_found_and_none_contradicted_makes_the_claim_not_found() -> None:
    judged = combine(
        PARTS,
        [_j(Label.SUPPORTED, 0.9, "a"), _j(Label.NOT_FOUND, 0.6), _j(Label.NOT_FOUND, 0.8)],
    )
    assert (judged.label, judged.evidence_quote, judged.confidence) == (Label.NOT_FOUND, None, 0.8)


def test_a_part_the_judge_failed_on_makes_the_claim_a_judge_failure() -> None:
    failed = _j(Label.NOT_FOUND, 0.0, reason=Reason.JUDGE_ERROR, detail="provider down")
    judged = combine(PARTS, [_j(Label.CONTRADICTED, 0.9, "a"), failed, _j(Label.SUPPORTED, 0.5)])
    assert judged.reason == Reason.JUDGE_ERROR
    assert judged.detail is not None and judged.detail.endswith("provider down")


SHORT_FACTS = [f"Gate {n} opens daily at {n} am." for n in range(1, 141)]
"""140 short sentences: a 4,263-character claim of 140 parts, the attack on a part budget."""


def _judged_parts(max_parts: int, claim: str) -> tuple[Judgement, list[str]]:
    from batch_helpers import CountingJudge
    from citation_verifier.judge.lexical import LexicalJudge
    from citation_verifier.judge.parts import PartsJudge
    from citation_verifier.passages import split_passages
    from citation_verifier.retrieve import TermsEmbedder

    lexical = LexicalJudge(TermsEmbedder(), support_threshold=0.5, relevance_threshold=0.3)
    counting = CountingJudge(lexical)
    judge = PartsJudge(counting, TermsEmbedder(), k=3, retrieval="lexical", max_parts=max_parts)
    page = split_passages("The bridge has gates along both banks of the river.", 40)
    return asyncio.run(judge.judge(claim, page)), counting.claims


def test_near_identical_parts_are_judged_once() -> None:
    sentence = "The bridge over the river Elm opened to traffic in March 1932."
    variants = [sentence, sentence.upper(), sentence.replace(" ", "  "), sentence[:-1] + "!"]
    claim = " ".join(variants * 3) + " Its towers are 120 metres tall."
    _, judged = _judged_parts(24, claim)
    assert len(judged) == 2 and judged[0] == sentence


def test_a_claim_over_the_part_budget_is_reported_with_its_counts_never_supported() -> None:
    claim = " ".join(SHORT_FACTS)
    assert len(claim) < 5000 and len(claim_parts(claim)) == 140
    judgement, judged = _judged_parts(24, claim)
    assert judged == SHORT_FACTS[:24]  # the first parts, in claim order, and no more
    assert (judgement.label, judgement.reason) == (Label.NOT_FOUND, Reason.PARTS_OVER_BUDGET)
    assert judgement.evidence_quote is None
    assert judgement.detail is not None
    assert judgement.detail.startswith("only the first 24 of the claim's 140 distinct parts")
    assert "116 were not" in judgement.detail


def test_every_judged_part_supported_is_still_not_supported_over_the_budget() -> None:
    judged = over_budget(_j(Label.SUPPORTED, 0.9, "Gate 1 opens daily at 1 am."), 24, 140)
    assert (judged.label, judged.reason) == (Label.NOT_FOUND, Reason.PARTS_OVER_BUDGET)
    assert judged.evidence_quote is None


def test_a_contradicted_part_within_the_budget_still_contradicts_an_over_budget_claim() -> None:
    judged = over_budget(_j(Label.CONTRADICTED, 0.8, "Gate 1 opens at noon."), 24, 140)
    assert (judged.label, judged.evidence_quote) == (Label.CONTRADICTED, "Gate 1 opens at noon.")
    assert judged.detail is not None and "24 of the claim's 140" in judged.detail


def test_verify_of_a_claim_of_140_sentences_judges_the_budget_and_says_so(
    site: LoopbackSite,
) -> None:
    claim = " ".join(SHORT_FACTS)
    done = run("verify", "--json", claim, site.url(PAGE), JUDGE_PROVIDER="checker")
    assert done.returncode == 0, done.stderr
    citation = json.loads(done.stdout)["citations"][0]
    assert (citation["label"], citation["reason"]) == ("not_found", "parts_over_budget")
    assert "only the first 24 of the claim's 140 distinct parts were judged" in citation["detail"]


def test_the_checker_reads_a_claim_longer_than_its_input_without_error() -> None:
    probabilities = CheckerModel().probabilities(long_claim(5000), ["Water boils at 100 °C."])
    assert probabilities.shape == (1, 3)


def test_verify_gives_a_5000_character_claim_a_verdict(site: LoopbackSite) -> None:
    claim = long_claim(5000)
    done = run("verify", "--json", claim, site.url(PAGE), JUDGE_PROVIDER="checker")
    assert done.returncode == 0, done.stderr
    citation = json.loads(done.stdout)["citations"][0]
    assert citation["label"] in JUDGED and "parts" in citation["detail"]


def test_verify_refuses_a_claim_over_the_limit_naming_it(site: LoopbackSite) -> None:
    done = run("verify", "x" * 5001, site.url(PAGE))
    assert done.returncode == ExitCode.INPUT
    assert "at most 5000 characters (MAX_CLAIM_CHARS)" in done.stderr


def test_post_verify_gives_a_5000_character_claim_a_verdict_and_a_longer_one_422(
    site: LoopbackSite, embedder: MiniLMEmbedder
) -> None:
    settings = Settings(allow_private_urls=True, judge_provider="checker")
    server = BackgroundServer(create_app(settings, embedder=embedder)).start()
    try:
        url = site.url(PAGE)
        ok = httpx.post(
            server.url + "/verify", json={"claim": long_claim(5000), "urls": [url]}, timeout=120
        )
        over = httpx.post(
            server.url + "/verify", json={"claim": long_claim(5001), "urls": [url]}, timeout=30
        )
    finally:
        server.stop()
    assert ok.status_code == 200, ok.text
    assert ok.json()["citations"][0]["label"] in JUDGED
    assert over.status_code == 422
    assert "at most 5000 characters (MAX_CLAIM_CHARS)" in over.json()["detail"]


def test_batch_gives_a_5000_character_claim_a_verdict(site: LoopbackSite, tmp_path: Path) -> None:
    inputs = tmp_path / "in.jsonl"
    records = [
        {"id": "long", "claim": long_claim(5000), "urls": [site.url(PAGE)]},
        {"id": "over", "claim": long_claim(5001), "urls": [site.url(PAGE)]},
    ]
    inputs.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "report.json"
    done = run("batch", str(inputs), "--out", str(out), "--quiet", JUDGE_PROVIDER="checker")
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text(encoding="utf-8"))["citations"]
    assert [r["id"] for r in rows] == ["long"]
    assert rows[0]["label"] in JUDGED
    errors = Path(f"{out}.errors.jsonl").read_text(encoding="utf-8")
    assert '"over"' in errors and "at most 5000 characters (MAX_CLAIM_CHARS)" in errors


def test_check_answer_gives_a_5000_character_statement_a_verdict(
    site: LoopbackSite, tmp_path: Path
) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(
        f"{long_claim(5000)[:-1]} [1].\n\nSources:\n[1] {site.url(PAGE)}\n", encoding="utf-8"
    )
    done = run("check-answer", "--json", str(answer), JUDGE_PROVIDER="checker")
    assert done.returncode == 0, done.stderr
    statements = json.loads(done.stdout)["statements"]
    assert len(statements) == 1 and len(statements[0]["claim"]) >= 4990
    assert statements[0]["overall"] in JUDGED


async def test_the_mcp_tool_gives_a_5000_character_claim_a_verdict(
    site: LoopbackSite, tmp_path: Path
) -> None:
    transcript = Transcript()
    async with stdio_session(
        tmp_path / "stderr.log", transcript, JUDGE_PROVIDER="checker"
    ) as session:
        result = await session.call_tool(
            "verify_claim", {"claim": long_claim(5000), "urls": [site.url(PAGE)]}
        )
    assert not result.is_error, _text(result)
    body = result.structured_content
    assert isinstance(body, dict) and body["citations"][0]["label"] in JUDGED
