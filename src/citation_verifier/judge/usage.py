"""Token and cost accounting for LLM judge calls."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citation_verifier.judge.base import Judgement
    from citation_verifier.models import VerifyResult


@dataclass(frozen=True)
class JudgeUsage:
    """What judging one citation cost: HTTP calls, tokens and US dollars.

    ``cost_usd`` is None when the model has no entry in the price table (JUDGE_PRICES).
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0

    def plus(self, input_tokens: int, output_tokens: int) -> JudgeUsage:
        """This usage with one more call's tokens added (cost is priced at the end)."""
        return JudgeUsage(
            self.calls + 1,
            self.input_tokens + input_tokens,
            self.output_tokens + output_tokens,
            self.cost_usd,
        )

    def priced(self, price: tuple[float, float] | None) -> JudgeUsage:
        """This usage with its cost from ``price`` = (input, output) USD per million tokens."""
        if price is None:
            return JudgeUsage(self.calls, self.input_tokens, self.output_tokens, None)
        cost = (self.input_tokens * price[0] + self.output_tokens * price[1]) / 1_000_000
        return JudgeUsage(self.calls, self.input_tokens, self.output_tokens, round(cost, 8))


def price_for(model: str, prices: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    """The price of ``model``: an exact entry, else the longest entry that prefixes it (dated
    snapshots such as ``gpt-4.1-mini-2025-04-14`` are priced like ``gpt-4.1-mini``)."""
    if model in prices:
        return prices[model]
    prefixes = [name for name in prices if model.startswith(name)]
    return prices[max(prefixes, key=len)] if prefixes else None


def judge_fields(judge_name: str, judgement: Judgement) -> dict[str, Any]:
    """The UrlVerdict fields that record who judged and what it cost."""
    usage = judgement.usage or JudgeUsage()
    return {
        "judge": judge_name,
        "judge_calls": usage.calls,
        "judge_input_tokens": usage.input_tokens,
        "judge_output_tokens": usage.output_tokens,
        "judge_cost_usd": usage.cost_usd,
        "cross_check": judgement.cross_check,
        "cross_check_score": judgement.cross_check_score,
    }


def judge_summary(result: VerifyResult) -> list[str]:
    """Lines for the CLI under the verdict table: LLM totals and cross-check disagreements."""
    lines: list[str] = []
    calls = sum(c.judge_calls for c in result.citations)
    if calls:
        cost = result.judge_cost_usd
        lines.append(
            f"Judge: {calls} call(s), {result.judge_input_tokens} input + "
            f"{result.judge_output_tokens} output tokens, "
            + ("cost unknown (no price for the model)" if cost is None else f"${cost:.6f}")
        )
    for c in result.citations:
        if c.cross_check == "disagree":
            lines.append(
                f"Cross-check disagrees (score {c.cross_check_score:.2f}) with the "
                f"{c.label.value} verdict on {c.url}: review it"
                if c.label.value != "not_found"
                else f"Cross-check disagreed (score {c.cross_check_score:.2f}) on {c.url}: "
                f"downgraded to not_found"
            )
    return lines
