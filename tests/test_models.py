import pytest
from pydantic import ValidationError

from citation_verifier.errors import validation_message
from citation_verifier.models import Label, Reason, UrlVerdict, VerifyRequest, http_reason


def test_request_requires_nonblank_claim() -> None:
    with pytest.raises(ValidationError, match="claim"):
        VerifyRequest(claim="   ", urls=["https://example.com/a"])


def test_request_requires_at_least_one_url() -> None:
    with pytest.raises(ValidationError, match="urls"):
        VerifyRequest(claim="x", urls=[])


@pytest.mark.parametrize(
    "url",
    ["example.com/a", "ftp://example.com/a", "http://", "https://exa mple.com/", "http://h:99999/"],
)
def test_request_rejects_malformed_urls(url: str) -> None:
    with pytest.raises(ValidationError):
        VerifyRequest(claim="x", urls=[url])


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"claim": "", "urls": ["https://e.com/"]}, "claim: empty; give the claim to check"),
        ({"urls": ["https://e.com/"]}, "claim: missing; give the claim to check"),
        ({"claim": 5, "urls": ["https://e.com/"]}, "claim: not text; give the claim to check"),
        ({"claim": "c", "urls": []}, "urls: empty; give at least one URL"),
        (
            {"claim": "c", "urls": "https://e.com/"},
            "urls: not a list; give the http(s) URLs cited for the claim, as a list",
        ),
        ({"claim": "c", "urls": [None]}, "urls.0: not text; give an http(s) URL"),
        ({"claim": "c", "urls": ["https://e.com/"], "x": 1}, "x: unknown field"),
        (
            {"claim": "c", "urls": ["https://e.com/"], "compare_archive": "maybe"},
            "compare_archive: not true or false",
        ),
        ({"claim": "c", "urls": ["ftp://e.com/"]}, "urls: not an http(s) URL: 'ftp://e.com/'"),
    ],
)
def test_request_errors_read_in_our_words_not_pydantics(
    fields: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        VerifyRequest.model_validate(fields)
    assert validation_message(caught.value, "input") == message


def test_request_strips_claim_and_urls() -> None:
    request = VerifyRequest(claim=" c ", urls=[" https://example.com/a "])
    assert request.claim == "c"
    assert request.urls == ["https://example.com/a"]


def test_verdict_serialises_with_spec_fields() -> None:
    verdict = UrlVerdict(
        url="https://e.com/x", label=Label.UNREACHABLE, confidence=1.0, reason=Reason.HTTP_404
    )
    data = verdict.model_dump(mode="json")
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
        assert key in data
    assert data["label"] == "unreachable"
    assert data["reason"] == "http_404"


def test_confidence_must_be_within_unit_interval() -> None:
    with pytest.raises(ValidationError):
        UrlVerdict(url="https://e.com", label=Label.SUPPORTED, confidence=1.5)


def test_http_reason_names_the_status() -> None:
    assert http_reason(404) == Reason.HTTP_404
    assert http_reason(410) == Reason.HTTP_410
    assert http_reason(503) == "http_503"
