"""Token and cost accounting: pricing, per-verdict fields and the totals users see."""

from __future__ import annotations

import pytest

from citation_verifier.cli import judge_summary
from citation_verifier.judge.base import Judgement, judge_fields
from citation_verifier.judge.usage import JudgeUsage, price_for
from citation_verifier.models import Label, UrlVerdict, VerifyResult

PRICES = {"gpt-4.1": (2.0, 8.0), "gpt-4.1-mini": (0.4, 1.6)}


def test_price_lookup_prefers_exact_then_longest_prefix() -> None:
    assert price_for("gpt-4.1-mini", PRICES) == (0.4, 1.6)
    assert price_for("gpt-4.1-mini-2025-04-14", PRICES) == (0.4, 1.6)
    assert price_for("gpt-4.1-2025-04-14", PRICES) == (2.0, 8.0)
    assert price_for("llama3", PRICES) is None


def test_usage_accumulates_calls_and_prices_tokens() -> None:
    usage = JudgeUsage().plus(1000, 200).plus(500, 100)
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (2, 1500, 300)
    assert usage.priced((0.4, 1.6)).cost_usd == pytest.approx((1500 * 0.4 + 300 * 1.6) / 1e6)
    assert usage.priced(None).cost_usd is None


def test_verdict_fields_of_an_llm_and_of_the_embedded_judge() -> None:
    llm = Judgement(
        Label.SUPPORTED,
        "q",
        0.9,
        usage=JudgeUsage(1, 10, 5, 0.001),
        cross_check="agree",
        cross_check_score=0.8,
    )
    assert judge_fields("openai/m", llm) == {
        "judge": "openai/m",
        "judge_calls": 1,
        "judge_input_tokens": 10,
        "judge_output_tokens": 5,
        "judge_cost_usd": 0.001,
        "cross_check": "agree",
        "cross_check_score": 0.8,
    }
    local = judge_fields("local/lexical-minilm", Judgement(Label.NOT_FOUND, None, 1.0))
    assert (local["judge_calls"], local["judge_cost_usd"], local["cross_check"]) == (0, 0.0, None)


def verdict(label: Label, **fields: object) -> UrlVerdict:
    return UrlVerdict(url="https://e.com/a", label=label, confidence=0.5, **fields)


def test_result_totals_sum_the_citations_and_are_serialised() -> None:
    result = VerifyResult(
        claim="c",
        overall=Label.SUPPORTED,
        citations=[
            verdict(
                Label.SUPPORTED, judge_input_tokens=100, judge_output_tokens=20, judge_cost_usd=0.5
            ),
            verdict(
                Label.NOT_FOUND, judge_input_tokens=50, judge_output_tokens=10, judge_cost_usd=0.25
            ),
            verdict(Label.UNREACHABLE),
        ],
    )
    assert (result.judge_input_tokens, result.judge_output_tokens) == (150, 30)
    assert result.judge_cost_usd == 0.75
    data = result.model_dump(mode="json")
    assert {"claim", "overall", "citations"} <= set(data)
    assert (data["judge_input_tokens"], data["judge_output_tokens"]) == (150, 30)
    assert data["judge_cost_usd"] == 0.75


def test_total_cost_is_unknown_when_a_citation_has_no_price() -> None:
    result = VerifyResult(
        claim="c",
        overall=Label.NOT_FOUND,
        citations=[verdict(Label.NOT_FOUND, judge_cost_usd=None), verdict(Label.NOT_FOUND)],
    )
    assert result.judge_cost_usd is None


def test_summary_lists_totals_and_cross_check_disagreements() -> None:
    result = VerifyResult(
        claim="c",
        overall=Label.SUPPORTED,
        citations=[
            verdict(
                Label.SUPPORTED,
                judge_calls=2,
                judge_input_tokens=100,
                judge_output_tokens=20,
                judge_cost_usd=0.0001,
                cross_check="disagree",
                cross_check_score=0.01,
            )
        ],
    )
    lines = judge_summary(result)
    assert lines[0] == "Judge: 2 call(s), 100 input + 20 output tokens, $0.000100"
    assert "Cross-check disagrees (score 0.01) with the supported verdict" in lines[1]
    assert judge_summary(VerifyResult(claim="c", overall=Label.NOT_FOUND, citations=[])) == []
