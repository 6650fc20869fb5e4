"""SPEC §3 rules, exercised through the direct fetcher against a real server on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route, redirect
from citation_verifier.demo.site import make_pdf
from citation_verifier.fetch.base import FetchFailed
from citation_verifier.fetch.direct import DirectFetcher
from citation_verifier.fetch.policy import Document, PagePolicy, Settled
from citation_verifier.models import Label, Reason
from citation_verifier.settings import Settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]

ARTICLE = (
    "<html><head><title>Boiling</title></head><body><nav><a href='/'>Home</a></nav><article>"
    "<h1>The boiling point of water</h1>"
    "<p>Water boils at 100 degrees Celsius at sea level, measured at one standard atmosphere.</p>"
    "<p>At higher altitudes the air pressure is lower, so water boils at lower temperatures; in "
    "Denver it boils at about 95 degrees Celsius, which is why pasta takes longer there.</p>"
    "</article><footer>Copyright</footer></body></html>"
)
LONG_ARTICLE_MENTIONING_404 = (
    "<html><head><title>Understanding HTTP errors</title></head><body><article>"
    "<h1>What a 404 error means</h1>"
    + "".join(
        f"<p>Paragraph {i}: a 404 status tells the client that the server could not find the "
        "requested resource; web developers should serve helpful pages and fix broken links.</p>"
        for i in range(12)
    )
    + "</article></body></html>"
)
SOFT_404 = (
    "<html><head><title>Oops</title></head><body><h1>Page not found</h1>"
    "<p>Sorry, the page you are looking for no longer exists.</p></body></html>"
)
THIN = (
    "<html><head><title>Facts</title></head><body><nav><a href='/'>Home</a></nav>"
    "<aside><p>Quick fact: the Pacific Ocean is the largest and deepest ocean on Earth.</p></aside>"
    "</body></html>"
)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64


def _chunked_forever(handler: BaseHTTPRequestHandler) -> None:
    """Streams a body without Content-Length, larger than any cap the tests set."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    chunk = b"<p>" + b"x" * 8192 + b"</p>"
    try:
        for _ in range(64):
            handler.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        handler.wfile.write(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass


ROUTES: dict[str, Route] = {
    "/": Page("<html><body><h1>Home</h1><p>Welcome to the site.</p></body></html>"),
    "/article": Page(ARTICLE),
    "/chain-1": redirect("/chain-2", 302),
    "/chain-2": redirect("/chain-3", 307),
    "/chain-3": redirect("/article", 308),
    "/loop-a": redirect("/loop-b"),
    "/loop-b": redirect("/loop-a"),
    "/hop-1": redirect("/hop-2"),
    "/hop-2": redirect("/hop-3"),
    "/hop-3": redirect("/hop-4"),
    "/hop-4": redirect("/article"),
    "/to-ftp": redirect("ftp://example.com/file"),
    "/deep/story": redirect("/"),
    "/gone": Page("gone", status=410),
    "/error": Page("boom", status=500),
    "/forbidden": Page("no", status=403),
    "/slow": Page(ARTICLE, delay_s=5),
    "/big": Page("<p>" + "x" * 5000 + "</p>"),
    "/big-chunked": _chunked_forever,
    "/image": Page(PNG, content_type="image/png"),
    "/binary": Page(b"\x00\x01\x02\x03" * 100, content_type=None),
    "/latin1": Page(
        ARTICLE.replace("Water boils", "L'eau bout (café)").encode("latin-1"),
        content_type="text/html; charset=iso-8859-1",
    ),
    "/cp1252-meta": Page(
        ARTICLE.replace("<head>", '<head><meta charset="windows-1252">')
        .replace("Water boils", "“Water” boils")
        .encode("cp1252"),
        content_type="text/html",
    ),
    "/report.pdf": Page(
        make_pdf(["Mount Everest is 8,849 metres tall."]), content_type="application/pdf"
    ),
    "/scan.pdf": Page(make_pdf([]), content_type="application/pdf"),
    "/download": Page(make_pdf(["Disguised PDF text."]), content_type="application/octet-stream"),
    "/soft-404": Page(SOFT_404),
    "/long-404-article": Page(LONG_ARTICLE_MENTIONING_404),
    "/thin": Page(THIN),
    "/empty": Page(
        "<html><head><title>App</title></head><body><div id='root'></div></body></html>"
    ),
    "/notes.txt": Page("Plain text notes.\n\nSecond paragraph.", content_type="text/plain"),
}


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackSite]:
    with LoopbackSite(ROUTES) as running:
        yield running


async def load(site: LoopbackSite, path: str, settings: Settings) -> Document | Settled:
    fetcher = DirectFetcher(settings)
    try:
        return await PagePolicy(fetcher, settings).load(site.url(path))
    finally:
        await fetcher.aclose()


def settled(result: Document | Settled) -> Settled:
    assert isinstance(result, Settled), result
    return result


def document(result: Document | Settled) -> Document:
    assert isinstance(result, Document), result
    return result


async def test_article_is_extracted_as_readable_markdown(
    site: LoopbackSite, settings: Settings
) -> None:
    doc = document(await load(site, "/article", settings))
    assert doc.status == 200
    assert doc.kind == "html"
    assert not doc.full_page_fallback
    assert "Water boils at 100 degrees Celsius at sea level" in doc.text
    assert "Copyright" not in doc.text


async def test_redirect_chain_records_final_url(site: LoopbackSite, settings: Settings) -> None:
    doc = document(await load(site, "/chain-1", settings))
    assert doc.final_url == site.url("/article")
    assert doc.url == site.url("/chain-1")


async def test_redirect_loop_is_unreachable(site: LoopbackSite, settings: Settings) -> None:
    result = settled(await load(site, "/loop-a", settings))
    assert (result.label, result.reason) == (Label.UNREACHABLE, Reason.TOO_MANY_REDIRECTS)


async def test_too_many_redirects_is_unreachable(site: LoopbackSite) -> None:
    tight = Settings(allow_private_urls=True, max_redirects=2)
    result = settled(await load(site, "/hop-1", tight))
    assert result.reason == Reason.TOO_MANY_REDIRECTS


async def test_redirect_to_non_http_scheme_is_refused(
    site: LoopbackSite, settings: Settings
) -> None:
    assert settled(await load(site, "/to-ftp", settings)).reason == Reason.INVALID_REDIRECT


@pytest.mark.parametrize(
    ("path", "status", "reason"),
    [
        ("/missing", 404, Reason.HTTP_404),
        ("/gone", 410, Reason.HTTP_410),
        ("/error", 500, "http_500"),
        ("/forbidden", 403, Reason.BLOCKED),
    ],
)
async def test_dead_links_are_unreachable_with_status_reason(
    site: LoopbackSite, settings: Settings, path: str, status: int, reason: str
) -> None:
    result = settled(await load(site, path, settings))
    assert (result.label, result.reason, result.status) == (Label.UNREACHABLE, reason, status)


async def test_homepage_redirect_is_not_found(site: LoopbackSite, settings: Settings) -> None:
    result = settled(await load(site, "/deep/story", settings))
    assert (result.label, result.reason) == (Label.NOT_FOUND, Reason.REDIRECTED_TO_HOMEPAGE)
    assert result.final_url == site.url("/")


async def test_slow_origin_times_out(site: LoopbackSite) -> None:
    quick = Settings(allow_private_urls=True, fetch_timeout_s=0.5)
    result = settled(await load(site, "/slow", quick))
    assert (result.label, result.reason) == (Label.UNREACHABLE, Reason.TIMEOUT)


@pytest.mark.parametrize("path", ["/big", "/big-chunked"])
async def test_oversized_body_is_too_large(site: LoopbackSite, path: str) -> None:
    small = Settings(allow_private_urls=True, max_body_bytes=4096)
    result = settled(await load(site, path, small))
    assert (result.label, result.reason) == (Label.NOT_FOUND, Reason.TOO_LARGE)


@pytest.mark.parametrize("path", ["/image", "/binary"])
async def test_binary_content_is_unsupported(
    site: LoopbackSite, settings: Settings, path: str
) -> None:
    result = settled(await load(site, path, settings))
    assert (result.label, result.reason) == (Label.NOT_FOUND, Reason.UNSUPPORTED_CONTENT_TYPE)


async def test_non_utf8_page_is_decoded_by_http_charset(
    site: LoopbackSite, settings: Settings
) -> None:
    assert "L'eau bout (café)" in document(await load(site, "/latin1", settings)).text


async def test_non_utf8_page_is_decoded_by_meta_charset(
    site: LoopbackSite, settings: Settings
) -> None:
    assert "“Water” boils" in document(await load(site, "/cp1252-meta", settings)).text


async def test_pdf_text_is_judged_like_a_page(site: LoopbackSite, settings: Settings) -> None:
    doc = document(await load(site, "/report.pdf", settings))
    assert doc.kind == "pdf"
    assert "Mount Everest is 8,849 metres tall." in doc.text


async def test_pdf_detected_by_magic_bytes(site: LoopbackSite, settings: Settings) -> None:
    doc = document(await load(site, "/download", settings))
    assert (doc.kind, doc.text) == ("pdf", "Disguised PDF text.")


async def test_pdf_without_text_is_pdf_unsupported(site: LoopbackSite, settings: Settings) -> None:
    result = settled(await load(site, "/scan.pdf", settings))
    assert (result.label, result.reason) == (Label.NOT_FOUND, Reason.PDF_UNSUPPORTED)


async def test_soft_404_template_is_unreachable(site: LoopbackSite, settings: Settings) -> None:
    result = settled(await load(site, "/soft-404", settings))
    assert (result.label, result.reason, result.status) == (Label.UNREACHABLE, Reason.SOFT_404, 200)


async def test_long_article_mentioning_404_is_kept(site: LoopbackSite, settings: Settings) -> None:
    doc = document(await load(site, "/long-404-article", settings))
    assert "404 status" in doc.text


async def test_thin_readable_text_falls_back_to_full_page(
    site: LoopbackSite, settings: Settings
) -> None:
    doc = document(await load(site, "/thin", settings))
    assert doc.full_page_fallback
    assert "the Pacific Ocean is the largest and deepest ocean on Earth" in doc.text


async def test_page_without_text_is_empty_page(site: LoopbackSite, settings: Settings) -> None:
    result = settled(await load(site, "/empty", settings))
    assert (result.label, result.reason) == (Label.NOT_FOUND, Reason.EMPTY_PAGE)


async def test_plain_text_is_read_as_is(site: LoopbackSite, settings: Settings) -> None:
    doc = document(await load(site, "/notes.txt", settings))
    assert (doc.kind, doc.text) == ("text", "Plain text notes.\n\nSecond paragraph.")


async def test_guard_refuses_loopback_by_default(serve: Serve) -> None:
    site = serve({"/article": Page(ARTICLE)})
    result = settled(await load(site, "/article", Settings()))
    assert (result.label, result.reason) == (Label.UNREACHABLE, Reason.FORBIDDEN_ADDRESS)
    assert "ALLOW_PRIVATE_URLS" in result.detail
    assert site.hits == {}


async def test_guard_checks_every_redirect_hop() -> None:
    """An allow-listed host redirects to 127.0.0.1: the second hop must be refused."""
    with (
        LoopbackSite({"/article": Page(ARTICLE)}) as target,
        LoopbackSite({"/innocent": redirect(target.url("/article"))}, host="127.0.0.2") as relay,
    ):
        guarded = Settings(private_allowlist=["127.0.0.2/32"])
        result = settled(await load(relay, "/innocent", guarded))
        assert (result.label, result.reason) == (Label.UNREACHABLE, Reason.FORBIDDEN_ADDRESS)
        assert relay.hits["/innocent"] == 1
        assert target.hits.get("/article", 0) == 0


async def test_connection_refused_is_unreachable(settings: Settings) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    fetcher = DirectFetcher(settings)
    try:
        result = settled(await PagePolicy(fetcher, settings).load(f"http://127.0.0.1:{port}/x"))
    finally:
        await fetcher.aclose()
    assert (result.label, result.reason) == (Label.UNREACHABLE, Reason.CONNECTION_ERROR)


async def test_unknown_host_is_a_dns_error(settings: Settings) -> None:
    fetcher = DirectFetcher(settings)
    try:
        result = settled(await PagePolicy(fetcher, settings).load("http://no-such-host.invalid/"))
    finally:
        await fetcher.aclose()
    assert (result.label, result.reason) == (Label.UNREACHABLE, Reason.DNS_ERROR)


async def test_direct_fetcher_without_a_browser_cannot_render(settings: Settings) -> None:
    # With Chromium installed the direct fetcher renders (tests/test_browser_render.py).
    no_browser = settings.model_copy(update={"browser_executable": Path("/nonexistent/chromium")})
    fetcher = DirectFetcher(no_browser)
    assert not fetcher.can_render
    with pytest.raises(FetchFailed) as failed:
        await fetcher.fetch("http://127.0.0.1:9/", render=True)
    assert failed.value.reason == Reason.JS_REQUIRED
    await fetcher.aclose()


@pytest.mark.parametrize("path", ["/big", "/big-chunked"])
async def test_a_too_large_page_keeps_its_http_status_for_the_status_column(
    site: LoopbackSite, path: str
) -> None:
    # The page answered 200 before its body ran over the cap: reports show that status
    # beside reason too_large, never an empty cell.
    small = Settings(allow_private_urls=True, max_body_bytes=4096)
    result = settled(await load(site, path, small))
    assert (result.reason, result.status) == (Reason.TOO_LARGE, 200)
    assert result.final_url == site.url(path)
