"""Did we read the page, or a wall in front of it? One job: from what a load gave (status,
headers, final URL and redirects, raw HTML, readable text) name the wall, with the signals that
show it, or say there is none.

Walls are recognised by what they are made of, never by a keyword alone: a challenge script, a
captcha widget, a consent framework's dialog, a password form behind a login redirect, schema.org
paywall markup, a 429 or 451. Every markup signal except the paywall's counts only when the wall
is (nearly) all the page holds: the text outside dialogs, forms, navigation and scripts must be
shorter than ``WALL_MAX_OUTSIDE_CHARS``. So an article with a cookie banner, a newsletter box, a
subscribe link, or one that is *about* captchas or paywalls, is read as the article.

Signatures are hand-written from the vendors' public descriptions of their pages (Cloudflare's
``cf-mitigated`` header and ``/cdn-cgi/challenge-platform/``, Imperva's ``_Incapsula_Resource``,
AWS WAF's ``x-amzn-waf-action`` and ``challenge.js``, DataDome's ``x-datadome`` and
``captcha-delivery.com``, HUMAN/PerimeterX's ``px-captcha``; the consent frameworks' container
ids, the IAB TCF ``__tcfapi``). wafw00f's fingerprints were considered and not used: they say
which firewall fronts a site (``Server: cloudflare``), which is true of most articles too, not
whether this response is a challenge.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from citation_verifier import extract
from citation_verifier.models import Reason
from citation_verifier.net.retry_after import retry_after_s
from citation_verifier.windowed_search import finditer, search


@dataclass(frozen=True)
class Wall:
    """A wall in front of the page: its reason, the signals that showed it, and (rate limits)
    the ``Retry-After`` the site asked for."""

    reason: Reason
    evidence: tuple[str, ...]
    retry_after_s: float | None = None

    @property
    def detail(self) -> str:
        """The wall and its evidence, for people."""
        return f"{self.reason.value.replace('_', ' ')}: " + "; ".join(self.evidence)


@dataclass(frozen=True)
class Seen:
    """What one load gave, as the classifier reads it."""

    status: int
    headers: Mapping[str, str]
    """Response headers, names lower case (empty when the backend does not pass them on)."""
    requested_url: str
    final_url: str
    html: str
    """The decoded HTML body ('' when the backend gave only readable text)."""
    text: str
    """The readable text the judge would read."""


def _rx(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(patterns), re.I)


# --- bot challenges: markup that only a challenge response carries ---------------------------
_CHALLENGE_MARKUP: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "Cloudflare challenge platform",
        # Not /cdn-cgi/challenge-platform/scripts/jsd/: Cloudflare adds that to ordinary pages.
        _rx(
            r"/cdn-cgi/challenge-platform/(?:h/\w/)?orchestrate/",
            r"window\._cf_chl_opt",
            r"\bcf-browser-verification\b",
        ),
    ),
    ("Imperva/Incapsula challenge", _rx(r"_Incapsula_Resource", r"Incapsula incident ID")),
    (
        "AWS WAF challenge",
        _rx(r"\bAwsWafIntegration\b", r"\bgokuProps\b", r"token\.awswaf\.com/[^\"']*challenge\.js"),
    ),
    ("DataDome captcha", _rx(r"captcha-delivery\.com", r"\bdd_captcha\b")),
    # Not _pxAppId: HUMAN's sensor sets it on every page it protects.
    ("HUMAN/PerimeterX captcha", _rx(r"\bpx-captcha\b", r"_pxCaptcha")),
    ("Akamai bot manager", _rx(r"/_sec/cp_challenge/", r"\bsec-if-cpt-container\b")),
)
_CAPTCHA_WIDGET = _rx(
    r"\bg-recaptcha\b",
    r"google\.com/recaptcha/",
    r"\bh-captcha\b",
    r"hcaptcha\.com/1/api\.js",
    r"\bcf-turnstile\b",
    r"challenges\.cloudflare\.com/turnstile",
)
_CHALLENGE_TEXT = _rx(
    r"\bjust a moment\b",
    r"checking (?:if the site connection is secure|your browser)",
    r"verify(?:ing)? (?:that )?you are (?:a )?human",
    r"are you a (?:human|robot)",
    r"(?:i'?m|i am) not a robot",
    r"unusual traffic from your (?:computer|network)",
    r"press (?:&|and) hold",
    r"pardon our interruption",
    r"complete the security check",
    r"enable javascript and cookies to continue",
    r"performing security verification",
    r"enable js and disable any ad ?blocker",  # DataDome's captcha page
)
# --- consent walls ---------------------------------------------------------------------------
_CONSENT_MARKUP: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("OneTrust", _rx(r"\bonetrust-(?:banner-sdk|consent-sdk|pc-sdk)\b")),
    ("Didomi", _rx(r"\bdidomi-(?:host|notice|popup)\b")),
    ("Cookiebot", _rx(r"\bCybotCookiebotDialog\b")),
    ("Quantcast Choice", _rx(r"\bqc-cmp2-(?:container|summary|main)\b")),
    ("TrustArc", _rx(r"\btruste-consent-(?:track|content|button)\b", r"consent\.trustarc\.com")),
    ("Sourcepoint", _rx(r"\bsp_message_container_\d+", r"\bsp_message_iframe_\d+")),
    ("Usercentrics", _rx(r"\busercentrics-root\b")),
    ("consentmanager", _rx(r"\bcmpbox\b", r"\bcmpwrapper\b")),
    ("Google consent", _rx(r"consent\.(?:google|youtube)\.com")),
    ("IAB TCF", _rx(r"__tcfapi")),
)
_CONSENT_TEXT = _rx(
    r"we value your privacy",
    r"we care about your privacy",
    r"before you continue to (?:google|youtube)",
    r"(?:this site|we) uses? cookies",
    r"\bcookies?\b.{0,80}\b(?:consent|partners|personali[sz]ed)",
    r"\b(?:accept|reject|refuse) all\b",
    r"manage (?:options|preferences|settings|cookies)",
    r"\b(?:and|with) our (?:\d+ )?partners\b",
    r"\bprocess(?:ing)? (?:of )?personal data\b",
    r"\brefuse consent(?:ing)?\b",
)
_BARE_MAX_CHARS = 200
_CONSENT_FORM = re.compile(
    r"<form\b[^>]*\baction\s*=\s*[\"']?https://(consent\.(?:google|youtube)\.com)/save", re.I
)
_CONSENT_HOSTS = ("consent.google.", "consent.youtube.")
# --- login walls -----------------------------------------------------------------------------
_PASSWORD_INPUT = _rx(r"<input\b[^>]*\btype\s*=\s*[\"']?password\b")
_ASKS = _rx(r"<(?:input|select|button)\b")
_LOGIN_PATH = _rx(
    r"/(?:log-?in|sign-?in|signon|auth(?:wall)?|sso|session/new|accounts?/(?:log-?in|sign-?in))"
    r"(?:/|\.\w+)?$",
    r"/authwall\b",
)
_LOGIN_TEXT = _rx(
    r"\bsign in to (?:view|continue|see|read)",
    r"\blog ?in to (?:view|continue|see|read)",
    r"\bjoin (?:now )?to see\b",
    r"\byou (?:must|need to) (?:be )?(?:sign(?:ed)? in|log(?:ged)? ?in)",
    r"\bplease (?:sign|log) ?in\b",
    r"\bforgot (?:your )?password\b",
    # A professional network's sign-up authwall (LinkedIn's "Agree & Join", "Already on
    # LinkedIn? Sign in"): a join form is the wall when nothing else is on the page.
    r"\bagree (?:&|and) join\b",
    r"\balready (?:on|a member(?: of)?|have an account(?: on| with)?) [^?.!\n]{0,60}\? *"
    r"(?:sign|log) ?in\b",
    r"\b(?:sign up|join|register|create (?:an|your) (?:free )?account) (?:now |free )?to "
    r"(?:view|see|continue|read)\b",
)
# --- paywalls ----------------------------------------------------------------------------------
_FREE_FALSE_JSON = re.compile(r"\"isAccessibleForFree\"\s*:\s*(?:false|\"false\")", re.I)
_FREE_FALSE_MICRODATA = re.compile(
    r"<[^>]*\bitemprop\s*=\s*[\"']?isAccessibleForFree[\"']?[^>]*\bcontent\s*=\s*[\"']?false"
    r"|<[^>]*\bcontent\s*=\s*[\"']?false[\"']?[^>]*\bitemprop\s*=\s*[\"']?isAccessibleForFree",
    re.I,
)
_PAYWALL_TEXT = _rx(
    r"subscribe (?:now )?to (?:continue|keep) reading",
    r"(?:this (?:article|story|content) is )?(?:available |exclusively )?(?:only )?for "
    r"(?:paying )?subscribers(?: only)?\b",
    r"to (?:continue|keep) reading,? (?:please )?(?:subscribe|sign in|log in)",
    r"you(?:'ve| have) (?:reached|used) (?:your|all your) (?:limit of )?free articles",
    r"already a subscriber\?",
)
# --- age gates and geo blocks ------------------------------------------------------------------
_AGE_TEXT = _rx(
    r"are you (?:over |at least )?(?:18|19|21)\b",
    r"you must be (?:at least |over )?(?:18|19|21)\b",
    r"(?:verify|confirm) (?:your|that you are of (?:legal )?) ?age",
    r"enter your (?:date of birth|birth ?date)",
    r"\bage verification\b",
    r"of legal (?:drinking|smoking) age",
)
_GEO_TEXT = _rx(
    r"(?:not|isn't|is not|unavailable|no longer) (?:currently )?(?:available )?in your "
    r"(?:country|region|area|location|territory)",
    r"not available (?:in|to (?:users|visitors|readers) in) (?:your|the) "
    r"(?:country|region|european|eu\b|uk\b)",
    r"(?:unable|cannot|can't) (?:to )?(?:serve|provide|display) (?:this )?(?:content|page|site)"
    r" (?:to|in) (?:your|users in|visitors from)",
    r"\bgeo-?(?:blocked|restricted)\b",
)
_RATE_TEXT = _rx(r"\btoo many requests\b", r"\brate limit(?:ed| exceeded)\b")
_DENIED_TEXT = _rx(
    r"\baccess (?:to this page has been )?denied\b",
    r"you don'?t have permission to access",
    r"\brequest (?:blocked|unsuccessful)\b",
    r"\b403 forbidden\b",
)
# Markup whose text is not the page's own: dialogs, forms, chrome, the CMPs' containers.
_OUTSIDE_DROP = (
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "iframe",
    "head",
    "nav",
    "header",
    "footer",
    "form",
    "dialog",
    "button",
    "aside",
)
_WALL_CONTAINER = _rx(
    r"onetrust|didomi|cybotcookiebot|qc-cmp2|truste|sp_message|usercentrics|cmpbox|consent"
    r"|cookie|gdpr|paywall|modal|overlay|popup|login|signin|captcha|challenge|age-?gate"
)


class _Page:
    """What the checks read: the load, its headers by lower-case name, and (measured once, only
    when a check has found a wall's signal) whether the wall is nearly all the page holds."""

    def __init__(self, seen: Seen, max_outside_chars: int) -> None:
        self.seen = seen
        self.headers = {k.lower(): v for k, v in seen.headers.items()}
        self._max = max_outside_chars

    @functools.cached_property
    def nearly_all(self) -> bool:
        """The text outside the wall's own markup is under ``WALL_MAX_OUTSIDE_CHARS``."""
        return _outside_chars(self.seen) < self._max


def classify(seen: Seen, max_outside_chars: int) -> Wall | None:
    """The wall in front of the page ``seen`` describes, or None when it is the page itself.
    ``max_outside_chars``: text outside the wall's own markup above which the page is read as
    content whatever the wall markup says (``WALL_MAX_OUTSIDE_CHARS``)."""
    page = _Page(seen, max_outside_chars)
    for check in (_rate_or_legal, _challenge, _consent, _login, _age, _geo, _denied):
        wall = check(page)
        if wall is not None:
            return wall
    return None


def paywall(seen: Seen, max_outside_chars: int) -> Wall | None:
    """Paywall markup (schema.org ``isAccessibleForFree: false``, the publisher's own word), or
    a subscribers-only notice on a page with little else: the page is judged on its readable
    part, and this says what to report when that part does not settle the claim."""
    evidence = []
    if search(_FREE_FALSE_JSON, seen.html) or search(_FREE_FALSE_MICRODATA, seen.html):
        evidence.append("schema.org isAccessibleForFree: false")
    notice = search(_PAYWALL_TEXT, seen.text)
    if notice and (evidence or _Page(seen, max_outside_chars).nearly_all):
        evidence.append(f"notice {notice.group(0)!r}")
    return Wall(Reason.PAYWALLED, tuple(evidence)) if evidence else None


def _rate_or_legal(page: _Page) -> Wall | None:
    seen = page.seen
    if seen.status == 429:
        wait = retry_after_s(page.headers.get("retry-after"))
        said = "" if wait is None else f" with Retry-After {wait:g} s"
        return Wall(Reason.RATE_LIMITED, (f"HTTP 429{said}",), wait)
    if seen.status == 451:
        return Wall(Reason.GEO_BLOCKED, ("HTTP 451 Unavailable For Legal Reasons",))
    if _bare(seen) and (found := search(_RATE_TEXT, seen.text)):
        return Wall(Reason.RATE_LIMITED, (f"text {found.group(0)!r}",))
    return None


def _challenge(page: _Page) -> Wall | None:
    seen, headers = page.seen, page.headers
    evidence = []
    if headers.get("cf-mitigated", "").strip().lower() == "challenge":
        evidence.append("header cf-mitigated: challenge")
    waf_action = headers.get("x-amzn-waf-action", "").strip().lower()
    if waf_action in ("challenge", "captcha"):
        evidence.append(f"header x-amzn-waf-action: {waf_action}")
    if evidence:  # these headers are sent on challenge responses only
        return Wall(Reason.BOT_CHALLENGE, tuple(evidence))
    evidence = [name for name, pattern in _CHALLENGE_MARKUP if search(pattern, seen.html)]
    if "x-datadome" in headers and seen.status >= 400:
        evidence.append("header x-datadome on an error status")
    text = search(_CHALLENGE_TEXT, seen.text) or _CHALLENGE_TEXT.search(_title(seen.html))
    widget = search(_CAPTCHA_WIDGET, seen.html)
    if widget and text:
        evidence.append(f"captcha widget {widget.group(0)!r}")
    # Without markup (a crawling API's Markdown) the challenge's own words must do.
    worded = text is not None and (seen.status in (403, 503) or not seen.html)
    if (evidence or worded) and page.nearly_all:
        if text:
            evidence.append(f"text {text.group(0)!r}")
        return Wall(Reason.BOT_CHALLENGE, tuple(evidence))
    return None


def _consent(page: _Page) -> Wall | None:
    seen = page.seen
    host = (urlsplit(seen.final_url).hostname or "").lower()
    if host.startswith(_CONSENT_HOSTS):
        return Wall(Reason.CONSENT_WALL, (f"redirected to {host}",))
    if form := search(_CONSENT_FORM, seen.html):  # Google's interstitial is a consent form
        return Wall(Reason.CONSENT_WALL, (f"a consent form posting to {form.group(1)}",))
    frameworks = [name for name, pattern in _CONSENT_MARKUP if search(pattern, seen.html)]
    phrases = _phrases(_CONSENT_TEXT, seen.text)
    if ((frameworks and phrases) or len(phrases) >= 2) and page.nearly_all:
        evidence = [f"consent framework {name}" for name in frameworks]
        evidence += [f"text {p!r}" for p in phrases[:2]]
        return Wall(Reason.CONSENT_WALL, tuple(evidence))
    return None


def _login(page: _Page) -> Wall | None:
    seen = page.seen
    final_path = urlsplit(seen.final_url).path
    form = search(_PASSWORD_INPUT, seen.html)
    phrase = search(_LOGIN_TEXT, seen.text)
    found = (["a password form"] if form else []) + (
        [f"text {phrase.group(0)!r}"] if phrase else []
    )
    if _sent_to_login(urlsplit(seen.requested_url).path, final_path):
        return Wall(Reason.LOGIN_REQUIRED, (f"redirected to {final_path}", *found))
    if seen.status == 401 and ("www-authenticate" in page.headers or found):
        auth = ["header WWW-Authenticate"] if "www-authenticate" in page.headers else []
        return Wall(Reason.LOGIN_REQUIRED, ("HTTP 401", *auth, *found))
    if form and phrase and page.nearly_all:
        return Wall(Reason.LOGIN_REQUIRED, tuple(found))
    # Without markup (a crawling API's Markdown) the form is gone: two of the wall's own
    # phrases ("Agree & Join", "Already on ...? Sign in") must do.
    phrases = _phrases(_LOGIN_TEXT, seen.text) if not seen.html else []
    if len(phrases) >= 2 and page.nearly_all:
        return Wall(Reason.LOGIN_REQUIRED, tuple(f"text {p!r}" for p in phrases[:2]))
    return None


def _sent_to_login(requested_path: str, final_path: str) -> bool:
    """A redirect led to a login page the requested URL did not already name: ``/members/x``
    to ``/account/login`` is a wall; ``/docs/auth`` to ``/docs/auth/`` (a trailing slash
    added) or ``/login`` to ``/login/`` is the page itself, read like any other."""
    if requested_path == final_path:
        return False
    login = _LOGIN_PATH.search(final_path)
    if login is None:
        return False
    named = _segments(login.group(0))
    asked = _segments(requested_path)
    return not any(
        asked[start : start + len(named)] == named for start in range(len(asked) - len(named) + 1)
    )


def _segments(path: str) -> list[str]:
    """A path's segments, lower case, without a file extension (``/Login.php`` → ``login``)."""
    return [re.sub(r"\.\w+$", "", part).lower() for part in path.split("/") if part]


def _age(page: _Page) -> Wall | None:
    seen = page.seen
    phrases = _phrases(_AGE_TEXT, seen.text)
    # The gate asks for something (a form); Markdown without markup cannot show it.
    asks = not seen.html or search(_ASKS, seen.html) is not None
    if phrases and asks and page.nearly_all:
        return Wall(Reason.AGE_GATE, tuple(f"text {p!r}" for p in phrases[:2]))
    return None


def _geo(page: _Page) -> Wall | None:
    seen = page.seen
    found = search(_GEO_TEXT, seen.text) or _GEO_TEXT.search(_title(seen.html))
    if found and page.nearly_all:
        return Wall(Reason.GEO_BLOCKED, (f"text {found.group(0)!r}",))
    return None


def _denied(page: _Page) -> Wall | None:
    seen = page.seen
    if seen.status in (401, 403):
        return Wall(Reason.BLOCKED, (f"HTTP {seen.status} with no wall we recognise",))
    if _bare(seen) and (found := search(_DENIED_TEXT, seen.text)):
        return Wall(Reason.BLOCKED, (f"text {found.group(0)!r}",))
    return None


def _bare(seen: Seen) -> bool:
    """A 200 whose readable text is a line or two: a status page in disguise."""
    return seen.status == 200 and extract.visible_chars(seen.text) < _BARE_MAX_CHARS


def _phrases(pattern: re.Pattern[str], text: str) -> list[str]:
    seen: dict[str, None] = {}
    for match in finditer(pattern, text):
        seen.setdefault(match.group(0).lower(), None)
    return list(seen)


_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.I | re.S)


def _title(html: str) -> str:
    found = _TITLE.search(html[:20000])
    return found.group(1) if found else ""


def _outside_chars(seen: Seen) -> int:
    """Non-whitespace characters of the page's own text: outside dialogs, forms, chrome and
    the elements whose id or class names a wall (consent, paywall, modal, captcha...). Without
    HTML, the readable text's lines that carry no wall phrase."""
    if not seen.html:
        return sum(extract.visible_chars(line) for line in _own_lines(seen.text))
    root = extract.parse_html(seen.html)
    if root is None:
        return extract.visible_chars(seen.text)
    for element in list(root.iter(*_OUTSIDE_DROP)):
        if element.getparent() is not None:
            element.drop_tree()
    for element in list(root.iter()):
        if not isinstance(element.tag, str) or element.getparent() is None:
            continue
        marks = f"{element.get('id', '')} {element.get('class', '')} {element.get('role', '')}"
        if (
            element.get("aria-modal") == "true"
            or "dialog" in marks
            or _WALL_CONTAINER.search(marks)
        ):
            element.drop_tree()
    body = root.find("body")
    return extract.visible_chars((body if body is not None else root).text_content())


_ANY_WALL_TEXT = (_CHALLENGE_TEXT, _CONSENT_TEXT, _LOGIN_TEXT, _AGE_TEXT, _GEO_TEXT, _DENIED_TEXT)


def _own_lines(text: str) -> Iterable[str]:
    for line in text.splitlines():
        if not any(pattern.search(line) for pattern in _ANY_WALL_TEXT):
            yield line
