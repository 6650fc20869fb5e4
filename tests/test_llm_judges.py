"""Every LLM provider against its loopback fake: success, the failure modes of the issue, and
what becomes of each (a verdict with a named reason, or a configuration error)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from citation_verifier.errors import ConfigurationError
from citation_verifier.guard import apply_guard
from citation_verifier.judge.base import Judge
from citation_verifier.judge.prompt import REPAIR_NOTE
from citation_verifier.judge.providers import make_llm_judge
from citation_verifier.models import Label, Reason
from citation_verifier.passages import split_passages
from fake_llm import USAGE_IN, USAGE_OUT, FakeLLM, RawBody, Slow, Status, Text, Verdict
from llm_setup import PROVIDERS, llm_settings, make_fake

PAGE = (
    "Water boils at 100 degrees Celsius at sea level. This is the standard boiling point.\n\n"
    "At higher altitudes water boils at a lower temperature."
)
PASSAGES = split_passages(PAGE, 200)
CLAIM = "Water boils at 100 degrees Celsius at sea level."
QUOTE = "Water boils at 100 degrees Celsius at sea level."


@pytest.fixture(scope="module", params=PROVIDERS)
def running_fake(request: pytest.FixtureRequest) -> Iterator[FakeLLM]:
    """One fake server per provider for the whole module (starting one costs ~0.5 s)."""
    with make_fake(str(request.param)) as server:
        yield server


@pytest.fixture
def fake(running_fake: FakeLLM) -> FakeLLM:
    """The provider's fake with no recorded requests and nothing scripted."""
    running_fake.reset()
    return running_fake


def judge_for(fake: FakeLLM, **overrides: object) -> Judge:
    return make_llm_judge(llm_settings(fake.provider, fake, **overrides), fake.provider)


async def test_supported_verdict_with_real_quote_stands_with_usage(fake: FakeLLM) -> None:
    fake.script(Verdict("supported", QUOTE, 0.93))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.evidence_quote, judgement.confidence) == (
        Label.SUPPORTED,
        QUOTE,
        0.93,
    )
    assert judgement.usage is not None
    assert (judgement.usage.calls, judgement.usage.input_tokens) == (1, USAGE_IN)
    assert judgement.usage.output_tokens == USAGE_OUT
    assert apply_guard(judgement, PASSAGES).label == Label.SUPPORTED


async def test_cost_is_priced_from_the_table(fake: FakeLLM) -> None:
    fake.script(Verdict("not_found", None, 0.7))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert judgement.usage is not None
    expected = {"openai": (120 * 1.0 + 30 * 2.0) / 1e6, "anthropic": (120 * 3.0 + 30 * 4.0) / 1e6}
    assert judgement.usage.cost_usd == pytest.approx(expected.get(fake.provider, 0.0))


async def test_invented_quote_is_downgraded_by_the_guard(fake: FakeLLM) -> None:
    fake.script(Verdict("supported", "Water boils at 50 degrees Celsius at sea level.", 0.99))
    guarded = apply_guard(await judge_for(fake).judge(CLAIM, PASSAGES), PASSAGES)
    assert (guarded.label, guarded.reason) == (Label.NOT_FOUND, Reason.EVIDENCE_QUOTE_NOT_IN_SOURCE)


async def test_malformed_json_is_retried_once_then_judge_error(fake: FakeLLM) -> None:
    fake.script(Text('{"label": "supported", "evidence_quote": '), Text("I think it is supported"))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.reason) == (Label.NOT_FOUND, Reason.JUDGE_ERROR)
    assert judgement.evidence_quote is None and judgement.confidence == 0.0
    assert judgement.detail and "no valid verdict after 2 answers" in judgement.detail
    assert len(fake.requests) == 2
    assert REPAIR_NOTE not in fake.user_text(fake.requests[0])
    assert REPAIR_NOTE in fake.user_text(fake.requests[1])
    assert judgement.usage is not None and judgement.usage.calls == 2


async def test_a_valid_second_answer_after_malformed_output_is_used(fake: FakeLLM) -> None:
    fake.script(Text("not json at all"), Verdict("contradicted", "At higher altitudes", 0.6))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.evidence_quote) == (
        Label.CONTRADICTED,
        "At higher altitudes",
    )


async def test_truncated_output_is_retried_once_then_judge_error(fake: FakeLLM) -> None:
    fake.script(Text('{"label": "supp', truncated=True), Text('{"label"', truncated=True))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert judgement.reason == Reason.JUDGE_ERROR
    assert judgement.detail and "truncated" in judgement.detail
    assert len(fake.requests) == 2


@pytest.mark.parametrize(
    "output",
    [
        '{"label": "supported", "evidence_quote": "x", "confidence": 1.5}',
        '{"label": "true", "evidence_quote": null, "confidence": 0.5}',
        '{"label": "supported", "evidence_quote": "x", "confidence": 0.5, "note": "hi"}',
        '["supported", "x", 0.5]',
    ],
)
async def test_output_that_breaks_the_schema_ends_as_judge_error(
    fake: FakeLLM, output: str
) -> None:
    fake.script(Text(output), Text(output))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.reason) == (Label.NOT_FOUND, Reason.JUDGE_ERROR)


async def test_a_body_that_is_not_json_ends_as_judge_error(fake: FakeLLM) -> None:
    fake.script(RawBody("<html>gateway</html>"), RawBody("{"))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert judgement.reason == Reason.JUDGE_ERROR
    assert judgement.detail and "not JSON" in judgement.detail


async def test_429_retry_after_is_honoured(fake: FakeLLM) -> None:
    fake.script(Status(429, {"Retry-After": "0.4"}, "rate limited"), Verdict("supported", QUOTE))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert judgement.label == Label.SUPPORTED
    assert len(fake.times) == 2 and fake.times[1] - fake.times[0] >= 0.35


async def test_retry_after_beyond_the_cap_fails_without_waiting(fake: FakeLLM) -> None:
    fake.script(Status(429, {"Retry-After": "3600"}))
    started = time.monotonic()
    judgement = await judge_for(fake, judge_retry_after_max_s=5).judge(CLAIM, PASSAGES)
    assert time.monotonic() - started < 2
    assert judgement.reason == Reason.JUDGE_ERROR
    assert judgement.detail and "3600" in judgement.detail


async def test_500_is_retried_with_bounded_backoff_then_judge_error(fake: FakeLLM) -> None:
    fake.script(Status(500), Status(503), Status(529))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert (judgement.label, judgement.reason) == (Label.NOT_FOUND, Reason.JUDGE_ERROR)
    assert len(fake.requests) == 3  # the first attempt and JUDGE_MAX_RETRIES=2
    assert judgement.detail and "HTTP 529 (after 3 attempts)" in judgement.detail


async def test_500_then_success_recovers(fake: FakeLLM) -> None:
    fake.script(Status(500), Verdict("supported", QUOTE))
    assert (await judge_for(fake).judge(CLAIM, PASSAGES)).label == Label.SUPPORTED


async def test_timeout_is_retried_then_judge_error(fake: FakeLLM) -> None:
    slow = Slow(1.0, Verdict("supported", QUOTE))
    fake.script(slow, slow)
    judgement = await judge_for(fake, judge_timeout_s=0.3, judge_max_retries=1).judge(
        CLAIM, PASSAGES
    )
    assert judgement.reason == Reason.JUDGE_ERROR
    assert judgement.detail and "timed out" in judgement.detail
    assert len(fake.requests) == 2


async def test_other_4xx_is_a_judge_error_not_a_crash(fake: FakeLLM) -> None:
    fake.script(Status(400, message="context length exceeded"))
    judgement = await judge_for(fake).judge(CLAIM, PASSAGES)
    assert judgement.reason == Reason.JUDGE_ERROR
    assert judgement.detail and "context length exceeded" in judgement.detail
    assert len(fake.requests) == 1


async def test_unknown_model_is_a_configuration_error_naming_the_variable(fake: FakeLLM) -> None:
    provider = fake.provider
    overrides = {f"{provider}_model": "no-such-model"}
    with pytest.raises(ConfigurationError, match=f"{provider.upper()}_MODEL"):
        await judge_for(fake, **overrides).judge(CLAIM, PASSAGES)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_rejected_key_is_a_configuration_error_naming_the_variable(provider: str) -> None:
    with make_fake(provider) as fake:
        settings = llm_settings(provider, fake, **{f"{provider}_api_key": "wrong-secret-123"})
        with pytest.raises(ConfigurationError) as raised:
            await make_llm_judge(settings, provider).judge(CLAIM, PASSAGES)
    message = str(raised.value)
    assert f"{provider.upper()}_API_KEY" in message and "401" in message
    assert "wrong-secret-123" not in message


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_unreachable_provider_is_a_judge_error(provider: str) -> None:
    with make_fake(provider) as fake:
        settings = llm_settings(provider, fake)
    judgement = await make_llm_judge(settings, provider).judge(CLAIM, PASSAGES)  # server stopped
    assert judgement.reason == Reason.JUDGE_ERROR
    assert judgement.detail and "connection failed" in judgement.detail


async def test_no_passages_make_no_call(fake: FakeLLM) -> None:
    judgement = await judge_for(fake).judge(CLAIM, [])
    assert judgement.label == Label.NOT_FOUND and fake.requests == []
