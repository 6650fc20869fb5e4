"""Pages we could not read, and articles that only look like them: the loopback corpus of the
tests, ``bench/walls.py`` and the demo.

The wall pages are written from the public descriptions and screenshots of each product's page
(Cloudflare's "Just a moment…" managed challenge and its ``cf-mitigated`` header, an Imperva
iframe, an AWS WAF 202 challenge, DataDome and HUMAN captchas, a reCAPTCHA "verify you are
human", Google's "Before you continue", an IAB TCF "We value your privacy" dialog, a login
redirect, a LinkedIn-style authwall behind a redirect and a professional network's sign-up
page served in place of the profile (200), a schema.org paywall, an age gate, a regional
notice, 429 and 451). The articles carry the features a careless detector would trip on: cookie
banners in their markup, newsletter boxes, a sign-up box with a password field, subscribe links,
``isAccessibleForFree: true``, a password form in a hidden modal, captcha widgets in a comment
form, and texts *about* all of these.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from citation_verifier.demo.loopback import Page, Route, redirect

CLAIM = "Water boils at 100 degrees Celsius at sea level."
"""The claim every article of the corpus states (and no wall does)."""

_BOIL = (
    "<p>Water boils at 100 degrees Celsius at sea level. This is the standard boiling point, "
    "measured at a pressure of one standard atmosphere (101.325 kilopascals).</p>"
    "<p>At higher altitudes the air pressure is lower, so water boils at a lower temperature. "
    "In Denver, about 1,600 metres above sea level, water boils at roughly 95 degrees Celsius, "
    "which is why pasta takes longer to cook there.</p>"
)
_NAV = '<nav><a href="/">Home</a> <a href="/science">Science</a> <a href="/about">About</a></nav>'
_FOOT = "<footer><p>© 2026 Example Daily. Privacy policy. Cookie settings. Terms.</p></footer>"

# --- consent frameworks, as their dialogs appear in a page's markup ---------------------------
_ONETRUST = """<div id="onetrust-consent-sdk"><div class="onetrust-pc-dark-filter"></div>
<div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner">
<div id="onetrust-policy"><h2 id="onetrust-policy-title">We value your privacy</h2>
<p id="onetrust-policy-text">We and our 842 partners store and/or access information on a device,
such as cookies, and process personal data, such as unique identifiers and standard information
sent by a device for personalised advertising and content, ad and content measurement, and
audience insights, as well as to develop and improve products. With your permission we and our
partners may use precise geolocation data and identification through device scanning.</p></div>
<div id="onetrust-button-group">
<button id="onetrust-pc-btn-handler">Manage options</button>
<button id="onetrust-reject-all-handler">Reject All</button>
<button id="onetrust-accept-btn-handler">Accept All</button></div></div></div>"""
_COOKIEBOT = """<div id="CybotCookiebotDialog" role="dialog" aria-modal="true">
<h2>This website uses cookies</h2><p>We use cookies to personalise content and ads, to provide
social media features and to analyse our traffic.</p>
<a id="CybotCookiebotDialogBodyButtonDecline" href="#">Deny</a>
<a id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll" href="#">Allow all</a></div>"""


def _article(title: str, body: str, head: str = "", before: str = "", after: str = "") -> str:
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"{head}</head><body>{_NAV}{before}<main><article><h1>{title}</h1>{body}</article></main>"
        f"{after}{_FOOT}</body></html>"
    )


def _ld(free: bool) -> str:
    data = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": "The boiling point of water",
        "isAccessibleForFree": free,
        "hasPart": {
            "@type": "WebPageElement",
            "isAccessibleForFree": free,
            "cssSelector": ".paywalled",
        },
    }
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


# --- the wall pages ------------------------------------------------------------------------------
_CF_CHALLENGE = """<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
<meta http-equiv="X-UA-Compatible" content="IE=Edge"><meta name="robots" content="noindex,nofollow">
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15}</style></head>
<body class="no-js"><div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">www.example-news.com</h1>
<h2 id="challenge-running" class="h2">Checking if the site connection is secure</h2>
<noscript><div id="challenge-error-title"><div class="h2"><span class="icon-wrapper">
</span><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></div>
</noscript><div id="challenge-body-text" class="core-msg spacer">www.example-news.com needs to
review the security of your connection before proceeding.</div></div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: "www.example-news.com",cType: 'managed',
cRay: '8a1b2c3d4e5f6a7b',cH: 'x'};var cpo = document.createElement('script');
cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1b2c3d4e5f6a7b';
document.getElementsByTagName('head')[0].appendChild(cpo);}());</script>
<div class="footer" role="contentinfo"><div class="footer-inner">
<div class="clearfix diagnostic-wrapper">
<div class="ray-id">Ray ID: <code>8a1b2c3d4e5f6a7b</code></div></div>
<div class="text-center" id="footer-text">Performance &amp; security by Cloudflare</div></div></div>
</body></html>"""
_CF_HEADERS = {"cf-mitigated": "challenge", "Server": "cloudflare", "cf-ray": "8a1b2c3d4e5f6a7b"}

_IMPERVA = """<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW">
<meta name="format-detection" content="telephone=no"><meta name="viewport"
content="initial-scale=1.0"><meta http-equiv="X-UA-Compatible" content="IE=edge,chrome=1">
<script type="text/javascript" src="/_Incapsula_Resource?SWJIYLWA=719d34d31c8e3a6e6fffd425f7e032f3">
</script></head><body style="margin:0px;height:100%"><iframe id="main-iframe"
src="/_Incapsula_Resource?CWUDNSAI=23&xinfo=5-12345678-0%200NNN%20RT%281700000000%20123%29&incident_id=123000450012345678-123456789012345678&edet=12&cinfo=04000000&rpinfo=0&mth=GET"
frameborder=0 width="100%" height="100%" marginheight="0px" marginwidth="0px">Request unsuccessful.
Incapsula incident ID: 123000450012345678-123456789012345678</iframe></body></html>"""

_AWS_WAF = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title></title>
<style>body{font-family:"Arial"}</style><script type="text/javascript">
window.awsWafCookieDomainList = [];window.gokuProps = {"key":"AQIDAHjcYu/GjX+QlghicBg==",
"iv":"CgAHRDN0kQAAAP7g","context":"abcdefg"};</script>
<script src="https://e2a3b4c5d6e7.9f8e7d6c.us-east-1.token.awswaf.com/e2a3b4c5d6e7/challenge.js">
</script></head><body><div id="challenge-container"></div><script type="text/javascript">
AwsWafIntegration.saveReferrer();AwsWafIntegration.checkForceRefresh().then((forceRefresh) => {
if (forceRefresh) {AwsWafIntegration.forceRefreshToken().then(() => {
window.location.reload(true);});
} else {AwsWafIntegration.getToken().then(() => {window.location.reload(true);});}});</script>
<noscript><h1>JavaScript is disabled</h1>In order to continue, we need to verify that you're not a
robot. This requires JavaScript. Enable JavaScript and then reload the page.</noscript>
</body></html>"""

_DATADOME = """<html><head><title>example-shop.com</title><style>#cmsg{animation: A 1.5s;}
</style></head><body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>
<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMA1bC','hsh':'2211F522B61E269B',
't':'fe','s':45123,'e':'abcdef','host':'geo.captcha-delivery.com','cookie':'dd'}</script>
<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script></body></html>"""

_RECAPTCHA = """<!doctype html><html><head><title>Security check</title>
<script src="https://www.google.com/recaptcha/api.js" async defer></script></head><body>
<div class="box"><h1>Please verify you are a human</h1>
<p>We have detected unusual activity from your network. Complete the security check to continue
to the page you requested.</p><form action="/verify" method="post">
<div class="g-recaptcha" data-sitekey="6LcAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"></div>
<button type="submit">Continue</button></form><p class="small">Reference: 7c1f-22ab</p></div>
</body></html>"""

_PERIMETERX = """<!DOCTYPE html><html lang="en"><head><title>Access to this page has been denied
</title><meta name="robots" content="noindex, nofollow"></head><body><section class="container">
<h1>Access to this page has been denied</h1><p>We believe you are using automation tools to
browse the website.</p><p>Press &amp; Hold to confirm you are a human (and not a bot).</p>
<div id="px-captcha"></div><p>Reference ID: 0a1b2c3d-4e5f-11ee-9a8b-123456789abc</p></section>
<script>window._pxAppId = 'PXabc123';window._pxJsClientSrc = '/abc123/init.js';</script>
</body></html>"""

_GOOGLE_CONSENT = """<!doctype html><html lang="en"><head><title>Before you continue to Google
</title></head><body><div class="box"><img alt="Google" src="/logo.svg"><h1>Before you continue to
Google</h1><p>We use cookies and data to deliver and maintain Google services, track outages and
protect against spam, fraud and abuse, and measure audience engagement and site statistics.</p>
<p>If you choose to 'Accept all', we will also use cookies and data to develop and improve new
services and show personalised ads. If you choose to 'Reject all', we will not use cookies for
these additional purposes.</p><form action="https://consent.google.com/save" method="POST">
<input type="hidden" name="set_eom" value="true"><button>Reject all</button></form>
<form action="https://consent.google.com/save" method="POST"><input type="hidden" name="set_eom"
value="false"><button>Accept all</button></form><a href="/more">More options</a>
<p><a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></p></div></body></html>"""

_TCF = f"""<!doctype html><html><head><title>Example Daily</title><script>
window.__tcfapi = window.__tcfapi || function () {{ (window.__tcfapi.a = window.__tcfapi.a || [])
.push(arguments); }};</script></head><body>{_NAV}
<div id="qc-cmp2-container" data-nosnippet><div class="qc-cmp2-summary" role="dialog">
<h2>We value your privacy</h2><p>We and our partners store and/or access information on a device,
such as cookies and process personal data, such as unique identifiers and standard information
sent by a device for personalised ads and content, ad and content measurement, and audience
insights, as well as to develop and improve products.</p><p>With your permission we and our
partners may use precise geolocation data and identification through device scanning. You may
click to consent to our and our 1432 partners' processing as described above. Alternatively you
may access more detailed information and change your preferences before consenting or to refuse
consenting.</p><div class="qc-cmp2-summary-buttons"><button mode="secondary">MORE OPTIONS</button>
<button mode="secondary">DISAGREE</button><button mode="primary">AGREE</button></div></div></div>
<main id="content"></main>{_FOOT}</body></html>"""

_LOGIN = f"""<!doctype html><html><head><title>Sign in · Example Research</title></head><body>
{_NAV}<main><h1>Sign in</h1><p>Please sign in to continue to the members' area.</p>
<form action="/account/session" method="post"><label>Email <input type="email" name="email">
</label><label>Password <input type="password" name="password"></label>
<button type="submit">Sign in</button></form><a href="/account/forgot">Forgot your password?</a>
<p>No account? <a href="/account/join">Join now</a></p></main>{_FOOT}</body></html>"""

_AUTHWALL = """<!doctype html><html><head><title>Sign Up | LinkedIn</title></head><body>
<header><a href="/">LinkedIn</a><a href="/login">Sign in</a><a href="/signup">Join now</a>
</header><main class="authwall"><section><h1>Sign in to view Jane Doe's full profile</h1>
<p>Jane Doe, Research scientist at Example Labs.</p><form class="join-form" action="/signup"
method="post"><input type="text" name="email" placeholder="Email or phone"><input
type="password" name="password" placeholder="Password"><button>Agree &amp; Join</button></form>
<p>Already on LinkedIn? <a href="/login">Sign in</a></p></section></main></body></html>"""

# Served at the profile's own URL with 200, no redirect: the join form is all there is.
_SIGNUP_WALL = """<!doctype html><html><head><title>Jane Doe | Alpine Network</title></head>
<body><header><a href="/">Alpine Network</a><a href="/login">Sign in</a></header><main><section>
<h1>Join Alpine Network</h1><p>Make the most of your professional life</p>
<form class="join-form" action="/signup" method="post"><label>Email <input type="email"
name="email"></label><label>Password (6+ characters) <input type="password" name="password">
</label><p>By clicking Agree &amp; Join, you agree to the Alpine Network User Agreement, Privacy
Policy and Cookie Policy.</p><button type="submit">Agree &amp; Join</button></form>
<p>Already on Alpine Network? <a href="/login">Sign in</a></p></section></main></body></html>"""

_PAYWALL_TEASER = _article(
    "The boiling point of water, explained",
    '<p class="lede">Why does pasta take longer to cook in the mountains? Our science desk '
    "explains what sets the temperature at which water turns to steam.</p>"
    '<div class="paywall"><h2>Subscribe to continue reading</h2><p>This article is for '
    "subscribers only. Get unlimited digital access for $1 a week.</p>"
    '<a href="/subscribe">Subscribe now</a> <p>Already a subscriber? <a href="/login">Sign '
    "in</a></p></div>",
    head=_ld(False),
)
_PAYWALL_STATES_CLAIM = _article(
    "The boiling point of water, explained",
    "<p>Water boils at 100 degrees Celsius at sea level, the science desk explains, and less on "
    "a mountain.</p>"
    '<div class="paywall"><h2>Subscribe to continue reading</h2><p>This article is for '
    "subscribers only.</p></div>",
    head=_ld(False),
)
_AGE_GATE = """<!doctype html><html><head><title>Old Example Distillery</title></head><body>
<div class="age-gate" role="dialog"><img src="/logo.png" alt="Old Example Distillery">
<h1>Are you of legal drinking age?</h1><p>You must be 21 or older to enter this site. Please
enter your date of birth.</p><form action="/age" method="post"><select name="month"><option>
January</option></select><input name="day" size="2"><input name="year" size="4">
<button type="submit">Enter</button></form><p>Please drink responsibly.</p></div></body></html>"""

_GEO = f"""<!doctype html><html><head><title>Not available in your region</title></head><body>
{_NAV}<main><h1>Sorry!</h1><p>This content is not available in your country.</p><p>Due to
licensing restrictions, Example Media cannot show this page to visitors from your location.</p>
</main>{_FOOT}</body></html>"""

_FORBIDDEN = "<html><head><title>403 Forbidden</title></head><body><center><h1>403 Forbidden"
_FORBIDDEN += "</h1></center><hr><center>nginx</center></body></html>"


CLOUDFLARE_CHALLENGE = Page(_CF_CHALLENGE, status=403, headers=_CF_HEADERS)
"""Cloudflare's "Just a moment…" managed challenge as a bot gets it (403, cf-mitigated)."""


def _login_redirect(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(302)
    handler.send_header("Location", "/account/login?next=%2Fmembers%2Freports%2Fboiling")
    handler.send_header("Content-Length", "0")
    handler.end_headers()


@dataclass(frozen=True)
class WallCase:
    """One wall page: where it is served, what it is, and the reason it must get."""

    path: str
    name: str
    route: Route
    reason: str
    extra: dict[str, Route] | None = None
    """Further routes the page needs (the login page a redirect goes to)."""


WALL_CASES: tuple[WallCase, ...] = (
    WallCase(
        "/cf/managed-403",
        "Cloudflare managed challenge (403)",
        CLOUDFLARE_CHALLENGE,
        "bot_challenge",
    ),
    WallCase(
        "/cf/managed-200",
        "Cloudflare challenge page (200)",
        Page(_CF_CHALLENGE, headers={"Server": "cloudflare"}),
        "bot_challenge",
    ),
    WallCase("/imperva", "Imperva/Incapsula iframe", Page(_IMPERVA), "bot_challenge"),
    WallCase(
        "/aws-waf",
        "AWS WAF challenge (202)",
        Page(_AWS_WAF, status=202, headers={"x-amzn-waf-action": "challenge"}),
        "bot_challenge",
    ),
    WallCase(
        "/datadome",
        "DataDome captcha (403)",
        Page(_DATADOME, status=403, headers={"x-datadome": "protected"}),
        "bot_challenge",
    ),
    WallCase(
        "/verify-human", "reCAPTCHA 'verify you are a human'", Page(_RECAPTCHA), "bot_challenge"
    ),
    WallCase(
        "/px", "HUMAN/PerimeterX 'Press & Hold'", Page(_PERIMETERX, status=403), "bot_challenge"
    ),
    WallCase(
        "/google-consent", "Google 'Before you continue'", Page(_GOOGLE_CONSENT), "consent_wall"
    ),
    WallCase("/tcf", "IAB TCF 'We value your privacy'", Page(_TCF), "consent_wall"),
    WallCase(
        "/members/reports/boiling",
        "302 to /account/login?next=",
        _login_redirect,
        "login_required",
        {"/account/login": Page(_LOGIN)},
    ),
    WallCase(
        "/in/jane-doe",
        "LinkedIn-style authwall",
        redirect("/authwall?trk=public_profile&sessionRedirect=%2Fin%2Fjane-doe", 302),
        "login_required",
        {"/authwall": Page(_AUTHWALL)},
    ),
    WallCase(
        "/pro/jane-doe",
        "professional network's sign-up authwall (200)",
        Page(_SIGNUP_WALL),
        "login_required",
    ),
    WallCase(
        "/paywalled",
        "paywall teaser (isAccessibleForFree false)",
        Page(_PAYWALL_TEASER),
        "paywalled",
    ),
    WallCase("/age", "age gate", Page(_AGE_GATE), "age_gate"),
    WallCase("/geo", "'not available in your country'", Page(_GEO), "geo_blocked"),
    WallCase(
        "/rate",
        "429 with a long Retry-After",
        Page("<h1>Too Many Requests</h1>", status=429, headers={"Retry-After": "120"}),
        "rate_limited",
    ),
    WallCase(
        "/legal",
        "451 Unavailable For Legal Reasons",
        Page("<h1>451 Unavailable For Legal Reasons</h1>", status=451),
        "geo_blocked",
    ),
    WallCase("/forbidden", "bare 403", Page(_FORBIDDEN, status=403), "blocked"),
)
"""Every wall of the corpus, with the reason it must end with."""

PAYWALL_STATES_CLAIM_PATH = "/paywalled-lede"
"""A paywalled page whose readable teaser states :data:`CLAIM` (judged on it: supported)."""


# --- articles that must be read as articles -------------------------------------------------------
_MORE = (
    "<p>Dissolving salt in water raises its boiling point slightly, but the amount of salt used "
    "in cooking changes it by less than one degree. A pressure cooker works the other way round: "
    "by raising the pressure inside the pot it lets water reach about 120 degrees Celsius, so "
    "food cooks faster.</p>"
)


def _about(topic: str) -> str:
    # Articles about walls are articles: a topic paragraph, then the rest of the story.
    return f"<p>{topic}</p>{_BOIL}{_MORE}"


ARTICLES: dict[str, str] = {
    "/a/cookie-banner": _article("The boiling point of water", _BOIL * 2, after=_ONETRUST),
    "/a/cookiebot-short": _article("Boiling point", _BOIL, after=_COOKIEBOT),
    "/a/newsletter": _article(
        "The boiling point of water",
        _BOIL * 2,
        after='<aside class="newsletter"><h3>Get our newsletter</h3><p>Subscribe to the '
        'weekly science digest.</p><form><input type="email"><button>Subscribe</button>'
        "</form></aside>",
    ),
    "/a/signup-box": _article(
        "Boiling point",
        _BOIL,
        after='<aside class="join"><h3>Join Example Daily</h3><p>Create a free account to save '
        'articles.</p><form action="/join"><input type="email"><input type="password"><button>'
        "Agree &amp; Join</button></form><p>Already a member? <a href='/login'>Sign in</a></p>"
        "</aside>",
    ),
    "/a/about-signing-up": _article(
        "Why professional networks ask you to join",
        _about(
            "Open a profile on a professional network without an account and you may get a "
            "page that says 'Join now', asks for an email and a password, and offers 'Agree & "
            "Join' with 'Already on the network? Sign in' below. Signing up is free."
        ),
    ),
    "/a/subscribe-link": _article(
        "The boiling point of water",
        _BOIL * 2,
        before='<div class="masthead"><a href="/subscribe">Subscribe</a> Already a subscriber? '
        '<a href="/login">Sign in</a></div>',
    ),
    "/a/free-true": _article("The boiling point of water", _BOIL * 2, head=_ld(True)),
    "/a/about-captchas": _article(
        "Why websites ask you to verify you are human",
        _about(
            "Sites ask visitors to verify you are a human with widgets such as reCAPTCHA: a "
            'div with class="g-recaptcha" and the script google.com/recaptcha/api.js. Users '
            "who see 'I'm not a robot' or 'Press & Hold' pages are being screened for bots. "
            "Cloudflare's 'Just a moment...' page answers with the header cf-mitigated: "
            "challenge, and its scripts load from /cdn-cgi/challenge-platform/."
        ),
    ),
    "/a/about-cookies": _article(
        "What cookie banners ask of you",
        _about(
            "Most consent dialogs open with 'We value your privacy' and offer 'Accept all' or "
            "'Reject all'. Frameworks like OneTrust, Didomi and Quantcast implement the IAB "
            "TCF, whose __tcfapi function lets advertisers read your choice. This site uses "
            "cookies only to remember your settings."
        ),
    ),
    "/a/about-paywalls": _article(
        "How news paywalls work",
        _about(
            "A metered paywall counts your free articles; when it says 'Subscribe to continue "
            "reading' or that an article is for subscribers only, the rest is hidden. "
            "Publishers mark such pages with isAccessibleForFree in their structured data."
        ),
    ),
    "/a/login-modal": _article(
        "The boiling point of water",
        _BOIL * 2,
        after='<div class="modal login-modal" hidden><h2>Sign in</h2><form><input '
        'type="email"><input type="password"><button>Sign in</button></form><p>Forgot your '
        "password?</p></div>",
    ),
    "/a/about-age-checks": _article(
        "Online age checks, explained",
        _about(
            "Under new rules, shops selling alcohol must ask: are you 21 or older? Visitors "
            "are told 'you must be 18' and asked to enter your date of birth before entering."
        ),
    ),
    "/a/about-geo-blocking": _article(
        "Why some pages say 'not available in your country'",
        _about(
            "Streaming sites show 'This content is not available in your country' when a "
            "licence covers only some regions, and some US news sites answered HTTP 451 to "
            "European readers after the GDPR came in."
        ),
    ),
    "/a/comment-captcha": _article(
        "The boiling point of water",
        _BOIL * 2,
        after='<section class="comments"><h3>Comments</h3><form><textarea></textarea><div '
        'class="g-recaptcha" data-sitekey="x"></div><button>Post</button></form></section>',
    ),
    "/a/about-rate-limits": _article(
        "What HTTP 429 means",
        _about(
            "A server that answers 429 Too Many Requests is rate limiting you; its Retry-After "
            "header says when to try again. Access denied pages are a different matter."
        ),
    ),
}
"""Articles with the features a careless wall detector trips on; each states :data:`CLAIM`."""
ARTICLE_HEADERS: dict[str, dict[str, str]] = {
    # Behind Cloudflare like most of the web: the firewall is there, no challenge was served.
    "/a/about-captchas": {"Server": "cloudflare", "cf-ray": "8a1b2c3d4e5f6a7b-AMS"},
}


class ConsentWalledArticle:
    """An article behind a OneTrust consent wall (a route): the HTML carries only the dialog
    until consent is refused or given (the choice is a cookie the page sets), then the article.
    ``choices`` records every choice a request came with (``no`` refused, ``yes`` accepted)."""

    def __init__(self, article: str = ARTICLES["/a/about-cookies"]) -> None:
        self.article = article
        self.choices: list[str] = []
        self.wall = (
            f"<!doctype html><html><head><title>Example Daily</title></head><body>{_NAV}"
            f'<main id="content"></main>{_ONETRUST}<script>'
            "function choose(v){document.cookie='OptanonAlertBoxClosed='+v+'; path=/';"
            "location.reload();}"
            "document.getElementById('onetrust-reject-all-handler').onclick="
            "function(){choose('no')};"
            "document.getElementById('onetrust-accept-btn-handler').onclick="
            "function(){choose('yes')};"
            f"</script>{_FOOT}</body></html>"
        )

    def __call__(self, handler: BaseHTTPRequestHandler) -> None:
        """Serve the wall, or the article once a choice was made."""
        cookie = handler.headers.get("Cookie") or ""
        found = re.search(r"OptanonAlertBoxClosed=(\w+)", cookie)
        if found:
            self.choices.append(found.group(1))
        body = (self.article if found else self.wall).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


def short_retry_after(seconds: int = 1) -> Callable[[BaseHTTPRequestHandler], None]:
    """429 with ``Retry-After: seconds`` on the first request, the article afterwards."""
    calls = {"n": 0}

    def serve(handler: BaseHTTPRequestHandler) -> None:
        calls["n"] += 1
        limited = calls["n"] == 1
        body = b"<h1>Too Many Requests</h1>" if limited else ARTICLES["/a/free-true"].encode()
        handler.send_response(429 if limited else 200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        if limited:
            handler.send_header("Retry-After", str(seconds))
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return serve


def wall_routes() -> dict[str, Route]:
    """Every page of the corpus: the walls (and the pages they redirect to), the articles, the
    paywalled page whose teaser states the claim."""
    routes: dict[str, Route] = {}
    for case in WALL_CASES:
        routes[case.path] = case.route
        routes.update(case.extra or {})
    for path, html in ARTICLES.items():
        routes[path] = Page(html, headers=ARTICLE_HEADERS.get(path, {}))
    routes[PAYWALL_STATES_CLAIM_PATH] = Page(_PAYWALL_STATES_CLAIM)
    return routes
