import pytest
from pydantic import ValidationError

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
