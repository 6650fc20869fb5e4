"""Token and cost accounting for LLM judge calls."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


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
