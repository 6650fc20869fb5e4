"""The Crawling API's wire contract: parameters, headers, credits, redaction."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from citation_verifier.fetch import crawlbase_contract as wire
from citation_verifier.net.retry_after import retry_after_s


def test_crawl_params_first_attempt_asks_for_stored_readable_markdown() -> None:
    params = wire.crawl_params(
        "T", "https://e.com/a", fmt="md", readability=True, store=True, javascript=False
    )
    assert params == {
        "token": "T",
        "url": "https://e.com/a",
        "format": "md",
        "md_readability": "true",
        "store": "true",
    }
    assert "custom_success_codes" not in params


def test_crawl_params_lowercase_booleans_and_javascript_flag() -> None:
    params = wire.crawl_params(
        "T", "https://e.com/a", fmt="md", readability=False, store=False, javascript=True
    )
    assert params["md_readability"] == "false"
    assert params["javascript"] == "true"
    assert "store" not in params


def test_crawl_params_html_format_sends_no_readability_option() -> None:
    params = wire.crawl_params(
        "T", "https://e.com/a", fmt="html", readability=True, store=True, javascript=False
    )
    assert params == {"token": "T", "url": "https://e.com/a", "format": "html", "store": "true"}


def test_query_string_encodes_the_url_completely() -> None:
    query = wire.query_string({"url": "https://e.com/a b?x=1&y=/z"})
    assert query == "url=https%3A%2F%2Fe.com%2Fa%20b%3Fx%3D1%26y%3D%2Fz"


def test_parse_headers_reads_statuses_as_ints_and_falls_back_to_pc_status() -> None:
    meta = wire.parse_headers(
        {"original_status": " 404 ", "pc_status": "404", "url": "https://e.com/a", "rid": "r1"},
        "https://e.com/req",
    )
    assert (meta.original_status, meta.cb_status, meta.rid) == (404, 404, "r1")
    assert meta.final_url == "https://e.com/a"


def test_parse_headers_prefers_cb_status_over_pc_status() -> None:
    meta = wire.parse_headers({"cb_status": "525", "pc_status": "200"}, "https://e.com/a")
    assert meta.cb_status == 525


def test_parse_headers_tolerates_missing_and_garbage_values() -> None:
    meta = wire.parse_headers({"original_status": "n/a", "rid": "  "}, "https://e.com/a")
    assert (meta.original_status, meta.cb_status, meta.rid) == (None, None, None)
    assert meta.final_url == "https://e.com/a"


def test_parse_headers_never_reads_storage_url() -> None:
    meta = wire.parse_headers({"storage_url": "https://api/storage?token=T&rid=r"}, "u")
    assert "storage" not in repr(meta)


def test_final_url_is_percent_decoded_when_sent_encoded() -> None:
    assert wire.decode_final_url("https%3A%2F%2Fe.com%2F", "x") == "https://e.com/"
    assert wire.decode_final_url("https://e.com/a%20b", "x") == "https://e.com/a%20b"


@pytest.mark.parametrize(
    ("value", "expected"), [("3", 3.0), ("0.25", 0.25), ("-4", 0.0), ("", None), ("soon", None)]
)
def test_retry_after_seconds(value: str, expected: float | None) -> None:
    assert retry_after_s(value) == expected


def test_retry_after_http_date() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_s("Thu, 01 Jan 2026 12:00:07 GMT", now) == 7.0


@pytest.mark.parametrize(
    ("javascript", "http", "cb", "origin", "stored", "credits"),
    [
        (False, 200, 200, 200, False, 1.0),  # normal request
        (True, 200, 200, 200, False, 2.0),  # JavaScript request
        (False, 200, 200, 200, True, 1.5),  # + stored page
        (True, 200, 200, 200, True, 2.5),
        (False, 200, 404, 404, True, 1.5),  # a dead link is billed
        (False, 200, 410, 410, True, 1.5),
        (False, 200, 200, 302, True, 1.5),  # followed redirect that returned content
        (False, 520, None, None, False, 0.0),  # failed crawl: not billed
        (True, 200, 525, 200, False, 0.0),
        (False, 200, 520, None, False, 0.0),
        (False, 200, 503, 503, False, 0.0),  # other origin failures are not billed
        (False, 429, None, None, False, 0.0),  # API errors cost nothing
        (False, 500, None, None, False, 0.0),
        (False, None, None, None, False, 0.0),  # timeout: no answer
    ],
)
def test_attempt_credits_follow_the_spec_rules(
    javascript: bool, http: int | None, cb: int | None, origin: int | None, stored: bool,
    credits: float,
) -> None:  # fmt: skip
    assert (
        wire.attempt_credits(
            javascript=javascript,
            http_status=http,
            cb_status=cb,
            original_status=origin,
            stored=stored,
        )
        == credits
    )


def test_redact_removes_token_query_values_and_secrets() -> None:
    text = "GET https://api/?token=abc123&url=x and abc123 and TOKEN=zz"
    assert (
        wire.redact(text, ("abc123",)) == "GET https://api/?token=***&url=x and *** and TOKEN=***"
    )


def test_http_stack_log_records_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    wire.install_log_redaction(("s3cr3t-2",))
    wire.install_log_redaction()  # idempotent
    for name in wire.HTTP_LOGGERS:
        filters = logging.getLogger(name).filters
        assert sum(isinstance(f, wire.RedactTokens) for f in filters) == 1
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("httpx").info("GET %s", "https://api/?token=s3cr3t&url=u")
        logging.getLogger("httpcore.http11").debug("headers %r", [(b"x", b"s3cr3t-2")])
    assert "s3cr3t" not in caplog.text
    assert "token=***" in caplog.text
