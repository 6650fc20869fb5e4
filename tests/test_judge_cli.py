"""Done-when of the LLM judges: ``JUDGE_PROVIDER=… citation-verifier verify …`` against a server
that speaks the provider's API gives the labels the guard rules imply; failures end in a named
reason or a clear configuration error, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from typer.testing import CliRunner

from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.terminal import ExitCode
from fake_llm import USAGE_IN, USAGE_OUT, Action, FakeLLM, Text, Verdict, passages_in
from llm_setup import PROVIDERS, make_fake, provider_env

BOILING = """<html><head><title>Boiling point</title></head><body><article>
<h1>The boiling point of water</h1>
<p>Water boils at 100 degrees Celsius at sea level. This is the standard boiling point, measured
at a pressure of one standard atmosphere, and it is the reference used in kitchens and labs.</p>
<p>At higher altitudes the air pressure is lower, so water boils at a lower temperature, which is
why pasta takes longer to cook in mountain towns.</p></article></body></html>"""

PASTA = """<html><head><title>Pasta</title></head><body><article>
<h1>How to cook pasta</h1>
<p>Bring a large pot of salted water to a rolling boil before adding the pasta. Stir it during
the first minute so that the pieces do not stick together, then cook it until it is al dente.</p>
<p>Reserve a cup of the cooking water before draining; its starch helps the sauce cling to the
pasta and gives it a glossy finish.</p></article></body></html>"""

CLAIM = "Water boils at 100 degrees Celsius at sea level."
REAL_QUOTE = "Water boils at 100 degrees Celsius at sea level."
INVENTED_QUOTE = "Pasta water boils at 100 degrees Celsius at sea level."


def honest_reader(body: dict[str, Any], user_text: Callable[[dict[str, Any]], str]) -> Action:
    """Quotes the sentence when the page has it; on other pages it invents a quote."""
    text = "\n".join(passages_in(user_text(body)))
    if REAL_QUOTE in text:
        return Verdict("supported", REAL_QUOTE, 0.95)
    return Verdict("supported", INVENTED_QUOTE, 0.9)


@pytest.fixture
def site(serve: Callable[[Mapping[str, Route]], LoopbackSite]) -> LoopbackSite:
    return serve(
        {
            "/boiling": Page(BOILING),
            "/pasta": Page(PASTA),
            "/gone": Page("<html><body>Not Found</body></html>", status=404),
        }
    )


@pytest.fixture(params=PROVIDERS)
def fake(request: pytest.FixtureRequest) -> Iterator[FakeLLM]:
    server = make_fake(str(request.param))
    server.default = lambda body: honest_reader(body, server.user_text)
    with server:
        yield server


def run_cli(env: dict[str, str], *args: str) -> Any:
    base = {"ALLOW_PRIVATE_URLS": "true", "JUDGE_BACKOFF_S": "0.01", "JUDGE_TIMEOUT_S": "5"}
    return CliRunner().invoke(app, ["verify", *args], env={**base, **env})


def test_verify_through_each_provider_gives_the_guard_labels(
    fake: FakeLLM, site: LoopbackSite
) -> None:
    urls = [site.url("/boiling"), site.url("/pasta"), site.url("/gone")]
    result = run_cli(provider_env(fake.provider, fake), "--json", CLAIM, *urls)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    labels = [(c["label"], c["reason"]) for c in data["citations"]]
    assert labels == [
        ("supported", None),
        ("not_found", "evidence_quote_not_in_source"),
        ("unreachable", "http_404"),
    ]
    assert data["overall"] == "supported"
    assert data["citations"][0]["evidence_quote"] == REAL_QUOTE
    assert data["citations"][0]["cross_check"] == "agree"
    assert data["citations"][0]["judge"].startswith(fake.provider + "/")
    assert len(fake.requests) == 2  # the dead link never reaches the judge
    tokens = [(c["judge_input_tokens"], c["judge_output_tokens"]) for c in data["citations"]]
    assert tokens == [(USAGE_IN, USAGE_OUT), (USAGE_IN, USAGE_OUT), (0, 0)]


def test_table_output_shows_judge_totals(site: LoopbackSite) -> None:
    with make_fake("openai", default=lambda _b: Verdict("supported", REAL_QUOTE, 0.9)) as fake:
        result = run_cli(provider_env("openai", fake), CLAIM, site.url("/boiling"))
    assert result.exit_code == 0, result.output
    assert "supported" in result.stdout
    assert f"Judge: 1 call(s), {USAGE_IN} input + {USAGE_OUT} output tokens" in result.stderr


def test_invalid_output_ends_as_judge_error_reason(site: LoopbackSite) -> None:
    with make_fake("anthropic", default=lambda _b: Text("no JSON here")) as fake:
        result = run_cli(provider_env("anthropic", fake), "--json", CLAIM, site.url("/boiling"))
    assert result.exit_code == ExitCode.JUDGE, result.output  # a failure, said loudly
    citation = json.loads(result.stdout)["citations"][0]
    assert (citation["label"], citation["reason"]) == ("not_found", "judge_error")
    assert citation["judge_calls"] == 2


@pytest.mark.parametrize(
    ("provider", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_missing_key_is_a_clear_cli_error(provider: str, variable: str, site: LoopbackSite) -> None:
    env = {"JUDGE_PROVIDER": provider, variable: ""}
    result = run_cli(env, CLAIM, site.url("/boiling"))
    assert result.exit_code == ExitCode.CONFIG
    assert variable in result.output and "Traceback" not in result.output


def test_rejected_key_is_a_clear_cli_error_without_the_key(site: LoopbackSite) -> None:
    with make_fake("openai") as fake:
        env = {**provider_env("openai", fake), "OPENAI_API_KEY": "sk-wrong-value"}
        result = run_cli(env, CLAIM, site.url("/boiling"))
    assert result.exit_code == ExitCode.CONFIG
    assert "OPENAI_API_KEY" in result.output and "sk-wrong-value" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
