"""The command line, run as a user runs it: a real process against loopback pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping

from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.demo.site import BOILING_HTML
from citation_verifier.models import Label, UrlVerdict
from citation_verifier.terminal import ExitCode, review_lines

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."


def run(
    *args: str, allow_private: bool | None = True, input: str | None = None, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ALLOW_PRIVATE_URLS"} | extra_env
    if allow_private is not None:
        env["ALLOW_PRIVATE_URLS"] = "true" if allow_private else "false"
    return subprocess.run(
        [sys.executable, "-m", "citation_verifier", *args],
        capture_output=True,
        text=True,
        input=input,
        env=env,
        timeout=240,
        check=False,
    )


def test_verify_json_prints_the_verify_result(serve: Serve) -> None:
    site = serve({"/boil": Page(BOILING_HTML)})
    done = run("verify", "--json", CLAIM, site.url("/boil"), site.url("/old-report"))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"claim", "overall", "citations"} <= set(result)
    assert result["overall"] == "supported"
    assert [c["label"] for c in result["citations"]] == ["supported", "unreachable"]
    assert result["citations"][1]["reason"] == "http_404"
    for key in (
        "url",
        "label",
        "evidence_quote",
        "confidence",
        "final_url",
        "original_status",
        "rid",
        "reason",
    ):
        assert key in result["citations"][0]


def test_verify_piped_prints_only_table_rows_on_stdout(serve: Serve) -> None:
    site = serve({"/boil": Page(BOILING_HTML)})
    done = run("verify", CLAIM, site.url("/boil"), site.url("/gone"))
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    # Every line is a row of eight cells, so `| cut -f2` gives the labels and nothing else.
    assert [row[1] for row in rows] == ["supported", "unreachable"]
    assert all(len(row) == 8 for row in rows)
    assert "Water boils at 100 degrees Celsius" in rows[0][5]
    assert "Overall: supported" in done.stderr
    assert f"Claim: {CLAIM}" in done.stderr


WATER_50 = "Water boils at 50 degrees Celsius at sea level."


def test_a_verdict_under_review_below_is_marked_in_its_row_noted_and_fails_fail_on_review(
    serve: Serve,
) -> None:
    site = serve({"/boil": Page(BOILING_HTML)})
    boil, gone = site.url("/boil"), site.url("/gone")
    done = run("verify", "--fail-on", "needs_review", WATER_50, boil, gone, REVIEW_BELOW="1.0")
    assert done.returncode == ExitCode.FAIL_ON, done.stderr
    judged, dead = [line.split("\t") for line in done.stdout.splitlines()]
    assert judged[1] == "contradicted" and float(judged[4]) < 1.0
    assert judged[7].startswith("needs review: ") and "< REVIEW_BELOW 1)" in judged[7]
    assert dead[7] == ""  # an unreachable page was not judged: nothing to review
    reason = judged[7].removeprefix("needs review: ")
    assert f"1 verdict needs review: {boil} (contradicted): {reason}" in done.stderr
    assert "--fail-on: 1 citation(s) needs_review" in done.stderr


def test_review_below_zero_marks_no_verdict_and_fail_on_needs_review_passes(
    serve: Serve,
) -> None:
    site = serve({"/boil": Page(BOILING_HTML)})
    done = run("verify", "--fail-on", "needs_review", WATER_50, site.url("/boil"), REVIEW_BELOW="0")
    assert done.returncode == ExitCode.OK, done.stderr
    [row] = [line.split("\t") for line in done.stdout.splitlines()]
    assert row[1] == "contradicted" and row[7] == ""
    assert "needs review" not in done.stderr


def _doubtful(url: str, label: Label, confidence: float) -> tuple[str, UrlVerdict]:
    why = f"model unsure (confidence {confidence:.2f} < REVIEW_BELOW 0.7)"
    verdict = UrlVerdict(
        url=url, label=label, confidence=confidence, needs_review=True, review_reason=why
    )
    return url, verdict


def test_the_review_note_puts_a_doubtful_supported_before_a_doubtful_not_found() -> None:
    sure = UrlVerdict(url="https://a.example/sure", label=Label.SUPPORTED, confidence=0.95)
    lines = review_lines(
        [
            _doubtful("https://a.example/nf", Label.NOT_FOUND, 0.4),
            ("https://a.example/sure", sure),
            _doubtful("https://a.example/sup", Label.SUPPORTED, 0.6),
            _doubtful("https://a.example/con", Label.CONTRADICTED, 0.5),
        ]
    )
    # Chance wrong × what a wrong verdict costs: supported 3 × 0.4, contradicted 2 × 0.5,
    # not_found 1 × 0.6; the verdict that needs no review is left out.
    assert lines == [
        "3 verdicts need review, most consequential first:",
        "  1. https://a.example/sup (supported): model unsure (confidence 0.60 < REVIEW_BELOW 0.7)",
        "  2. https://a.example/con (contradicted): model unsure (confidence 0.50 < REVIEW_BELOW "
        "0.7)",
        "  3. https://a.example/nf (not_found): model unsure (confidence 0.40 < REVIEW_BELOW 0.7)",
    ]
    assert review_lines([("https://a.example/sure", sure)]) == []


TOLL_PAGE = (
    "<html><head><title>Bridge</title></head><body><article><h1>The new bridge</h1><p>The new "
    "bridge over the Elm river opened to traffic in March after four years of construction work. "
    "Officials said that a toll of 3.50 euros per car might be charged in both directions from "
    "next year, depending on a council vote.</p></article></body></html>"
)


def test_verify_table_shows_a_deciding_rule_as_a_rule_never_as_evidence(serve: Serve) -> None:
    site = serve({"/toll": Page(TOLL_PAGE)})
    claim = "A toll of 3.50 euros per car is charged in both directions."
    done = run("verify", claim, site.url("/toll"), JUDGE_PROVIDER="checker")
    assert done.returncode == 0, done.stderr
    [row] = [line.split("\t") for line in done.stdout.splitlines()]
    label, evidence, detail = row[1], row[5], row[6]
    assert label == "not_found" and evidence == ""
    assert detail == "decided by rule: exact check “certainty”"


def test_verify_refuses_loopback_without_allow_private(serve: Serve) -> None:
    site = serve({"/boil": Page(BOILING_HTML)})
    done = run("verify", "--json", CLAIM, site.url("/boil"), allow_private=None)
    assert done.returncode == 0
    citation = json.loads(done.stdout)["citations"][0]
    assert (citation["label"], citation["reason"]) == ("unreachable", "forbidden_address")
    assert "ALLOW_PRIVATE_URLS=true" in done.stderr
    assert site.hits == {}


def test_malformed_url_is_a_clear_error_not_a_traceback() -> None:
    done = run("verify", CLAIM, "not-a-url")
    assert done.returncode == ExitCode.INPUT
    assert "not an http(s) URL" in done.stderr
    assert "Traceback" not in done.stderr


def test_blank_claim_is_a_clear_error() -> None:
    done = run("verify", "  ", "https://example.com/")
    assert done.returncode == ExitCode.INPUT
    assert "claim" in done.stderr and "Traceback" not in done.stderr


def test_an_empty_claim_is_named_in_our_words_not_pydantics() -> None:
    done = run("verify", "", "http://x/")
    assert done.returncode == ExitCode.INPUT
    assert done.stderr.strip() == "error: claim: empty; give the claim to check"


def test_console_script_and_module_share_the_cli() -> None:
    script = os.path.join(os.path.dirname(sys.executable), "citation-verifier")
    done = subprocess.run([script, "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert "verify" in done.stdout and "demo" in done.stdout
    module = run("--help")
    assert module.returncode == 0
    assert module.stdout.replace("python -m citation_verifier", "citation-verifier").split() == (
        done.stdout.split()
    )


def test_demo_prints_the_article_examples() -> None:
    # Keys in the environment must not send the demo to a paid API (or the internet).
    done = run(
        "demo", allow_private=None, OPENAI_API_KEY="sk-unused", CRAWLBASE_TOKEN="unused-token"
    )
    assert done.returncode == 0, done.stderr
    decoder = json.JSONDecoder()
    first, end = decoder.raw_decode(done.stdout)
    second, _ = decoder.raw_decode(done.stdout[end:].lstrip())
    assert first["overall"] == "supported"
    assert [(c["label"], c["reason"]) for c in first["citations"]] == [
        ("supported", None),
        ("unreachable", "http_404"),
    ]
    assert second["overall"] == "contradicted"
    assert second["citations"][0]["evidence_quote"].startswith(CLAIM)
    lines = done.stdout.splitlines()
    assert any("label=not_found  reason=redirected_to_homepage" in line for line in lines)
    assert any("label=unreachable  reason=soft_404" in line for line in lines)
    assert any("/reports/everest  label=supported" in line for line in lines)
    assert any("/facts/oceans  label=supported" in line for line in lines)
    # The JavaScript-only page is read by the browser the install set up.
    assert any("/apps/moon  label=supported" in line and "rendered=yes" in line for line in lines)
    # A dead link is judged on its archived copy, from the demo's own loopback archive.
    assert any(
        "/reports/glaciers-2019  label=supported  reason=archived_copy" in line
        and "live=http_404" in line
        for line in lines
    )
    # A page behind a bot challenge: we could not read it, said in words, the browser tried.
    assert any(
        "/science/members-only-story  label=unreachable  reason=bot_challenge  status=403" in line
        and '"could not read: a bot challenge answered instead of the page"' in line
        and "tried=browser->bot_challenge" in line
        for line in lines
    )
    # ... and a whole answer is checked statement by statement.
    assert "  3. uncited      Sourdough is a bread.  (citations: -)" in lines
    assert any(line.startswith("  4. contradicted") for line in lines)
    assert any(
        line.startswith("  citation_precision=0.5 (2/4)  citation_recall=0.5") for line in lines
    )
    # ... and one whose facts are in two sources, one of them cited for the other's fact.
    assert "       fact supported: The Orlen Bridge was designed by Halvorsen & Brook." in lines
    assert "       misattributed: [1] states it" in lines
    assert any("citation_recall=0.6666666666666666 (2/3)" in line for line in lines)
