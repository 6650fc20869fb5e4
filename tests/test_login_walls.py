"""Login walls are the publisher's login or sign-up page in place of the cited one, and nothing
else: a redirect that only adds a trailing slash to ``/docs/auth`` is the article (as Django's
documentation answers), and a professional network's 200 sign-up page ("Join …", "Agree &
Join", "Already on …? Sign in") is a wall, while articles with a sign-up box beside them, or
about signing up, are judged. Real loopback pages, the real pipeline (issue #48 items 4, 10)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping

import pytest

from citation_verifier.demo.loopback import LoopbackSite, Page, Route, redirect
from citation_verifier.models import Label, Reason, UrlVerdict, VerifyRequest
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier
from fake_crawlbase import FakeCrawlbase, cb_settings

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
CLAIM = "Water boils at 100 degrees Celsius at sea level."
_BOIL = (
    "<p>Water boils at 100 degrees Celsius at sea level. This is the standard boiling point, "
    "measured at a pressure of one standard atmosphere (101.325 kilopascals).</p>"
    "<p>At higher altitudes the air pressure is lower, so water boils at a lower temperature. "
    "In Denver, about 1,600 metres above sea level, water boils at roughly 95 degrees Celsius, "
    "which is why pasta takes longer to cook there.</p>"
)
# A documentation page under a login-ish path, with the site's own "Log in" link in its header.
DOCS = (
    "<!doctype html><html><head><title>Authentication and boiling | Example docs</title></head>"
    '<body><header><a href="/">Example docs</a> <a href="/accounts/login/">Log in</a></header>'
    "<main><article><h1>Using the authentication system</h1><p>This document explains the "
    "authentication system in its default configuration, and why the examples in it boil "
    "water.</p>" + _BOIL + "</article></main></body></html>"
)
LOGIN = (
    "<!doctype html><html><head><title>Log in</title></head><body><main><h1>Log in</h1>"
    "<p>Please sign in to continue.</p><form method='post'><input type='email' name='email'>"
    "<input type='password' name='password'><button>Log in</button></form>"
    "<a href='/forgot'>Forgot your password?</a></main></body></html>"
)
# A professional network's authwall, served at the profile's own URL with 200 (the issue's).
SIGN_UP = """<!doctype html><html><head><title>Jane Doe | Alpine Network</title></head><body>
<header><a href="/">Alpine Network</a><a href="/login">Sign in</a></header><main><section>
<h1>Join Alpine Network</h1><p>Make the most of your professional life</p>
<form action="/signup" method="post"><label>Email <input type="email" name="email"></label>
<label>Password (6+ characters) <input type="password" name="password"></label>
<p>By clicking Agree &amp; Join, you agree to the User Agreement, Privacy Policy and Cookie
Policy.</p><button type="submit">Agree &amp; Join</button></form>
<p>Already on Alpine Network? <a href="/login">Sign in</a></p></section></main></body></html>"""
SIGN_UP_BOX = (
    "<!doctype html><html><head><title>Boiling point</title></head><body><main><article>"
    "<h1>Boiling point</h1>" + _BOIL + "</article></main><aside class='join'><h3>Join Example "
    "Daily</h3><p>Create a free account to save articles.</p><form action='/join'><input "
    "type='email'><input type='password'><button>Agree &amp; Join</button></form><p>Already a "
    "member? <a href='/login'>Sign in</a></p></aside></body></html>"
)
ABOUT_SIGNING_UP = (
    "<!doctype html><html><head><title>Why networks ask you to join</title></head><body><main>"
    "<article><h1>Why professional networks ask you to join</h1><p>Open a profile without an "
    "account and you may get a page that says 'Join now', asks for an email and a password, "
    "and offers 'Agree &amp; Join' with 'Already on the network? Sign in' below.</p>"
    + _BOIL
    + "</article></main></body></html>"
)


def static(**overrides: object) -> Settings:
    """Loopback allowed, no browser, no archive: what the page itself says."""
    values: dict[str, object] = {
        "allow_private_urls": True,
        "render_js": "never",
        "archive_fallback": "never",
        "fetch_timeout_s": 10.0,
        "connect_timeout_s": 5.0,
    }
    return Settings(**{**values, **overrides})  # type: ignore[arg-type]


def verify(settings: Settings, embedder: MiniLMEmbedder, *urls: str) -> list[UrlVerdict]:
    async def go() -> list[UrlVerdict]:
        async with Verifier(settings, embedder=embedder) as verifier:
            result = await verifier.verify(VerifyRequest(claim=CLAIM, urls=list(urls)))
        return result.citations

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("cited", "moved_to"),
    [
        ("/docs/auth", "/docs/auth/"),  # Django's own docs answer so
        ("/guides/login", "/guides/login/"),
        ("/docs/auth/overview", "/docs/auth/"),  # the login-ish word was in the URL already
    ],
)
def test_a_redirect_within_a_path_that_already_names_auth_is_the_article_not_a_login_wall(
    serve: Serve, embedder: MiniLMEmbedder, cited: str, moved_to: str
) -> None:
    site = serve({cited: redirect(moved_to, 301), moved_to: Page(DOCS)})
    [citation] = verify(static(), embedder, site.url(cited))
    assert (citation.label, citation.reason) == (Label.SUPPORTED, None), citation.detail
    assert citation.final_url == site.url(moved_to)
    assert citation.evidence_quote and "100 degrees Celsius" in citation.evidence_quote


def test_a_redirect_to_a_login_page_the_url_did_not_name_is_a_login_wall(
    serve: Serve, embedder: MiniLMEmbedder
) -> None:
    site = serve(
        {
            "/members/auth-report": redirect("/accounts/login/?next=/members/auth-report", 302),
            "/accounts/login/": Page(LOGIN),
        }
    )
    [citation] = verify(static(), embedder, site.url("/members/auth-report"))
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.LOGIN_REQUIRED)
    assert citation.detail and "redirected to /accounts/login/" in citation.detail


def test_a_sign_up_authwall_served_in_place_of_the_page_is_a_login_wall(
    serve: Serve, embedder: MiniLMEmbedder
) -> None:
    site = serve({"/in/jane-doe": Page(SIGN_UP)})
    started = time.monotonic()
    [citation] = verify(static(), embedder, site.url("/in/jane-doe"))
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.LOGIN_REQUIRED), (
        citation.detail
    )
    assert citation.detail and "a password form" in citation.detail
    assert citation.could_not_read and citation.could_not_read.startswith("could not read")
    assert time.monotonic() - started < 30


def test_a_sign_up_authwall_is_named_from_the_crawling_apis_markdown(
    serve: Serve, embedder: MiniLMEmbedder
) -> None:
    # No markup (format=md): the join form is gone, the wall's own words must do.
    site = serve({"/in/jane-doe": Page(SIGN_UP)})
    with FakeCrawlbase() as fake:
        settings = cb_settings(fake, allow_private_urls=True, archive_fallback="never")
        [citation] = verify(settings, embedder, site.url("/in/jane-doe"))
    assert (citation.label, citation.reason) == (Label.UNREACHABLE, Reason.LOGIN_REQUIRED), (
        citation.detail
    )


@pytest.mark.parametrize("html", [SIGN_UP_BOX, ABOUT_SIGNING_UP], ids=["box", "about"])
def test_an_article_with_a_sign_up_box_or_about_signing_up_is_judged_not_walled(
    serve: Serve, embedder: MiniLMEmbedder, html: str
) -> None:
    site = serve({"/a": Page(html)})
    [citation] = verify(static(), embedder, site.url("/a"))
    assert (citation.label, citation.reason) == (Label.SUPPORTED, None), citation.detail
    with FakeCrawlbase() as fake:
        settings = cb_settings(fake, allow_private_urls=True, archive_fallback="never")
        [crawled] = verify(settings, embedder, site.url("/a"))
    assert (crawled.label, crawled.reason) == (Label.SUPPORTED, None), crawled.detail
