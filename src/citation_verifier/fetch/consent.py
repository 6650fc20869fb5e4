"""Refusing a cookie-consent dialog in the headless browser, with DuckDuckGo's autoconsent.

autoconsent is the rule set DuckDuckGo maintains for its browsers' "manage cookie pop-ups": about
a thousand consent-management platforms (OneTrust, Didomi, Cookiebot, Quantcast, TrustArc,
Sourcepoint, Google's own, ...) with how to detect each and how to *opt out* of it. We use its
prebuilt bundle from PyPI (``duckduckgo-autoconsent-py``: the npm package's ``playwright``
content script and rules, no Node.js). We only ever refuse; we never accept, log in or fill
anything in.

The refusal runs in the page's own JavaScript world, beside the page's scripts, and the page
must not be able to use its channel to the service (issue #48: a page that called it asked the
service to evaluate code returning 150 MB, four times, and stalled it for minutes). So the whole
conversation happens inside the page, in one init script that closes over everything it needs:

- the rules and our configuration (opt out, never opt in) are in the script itself; nothing
  travels from the service to the page, so a page has no reply to forge or intercept;
- autoconsent evaluates its platform checks inline (``isMainWorld``), and only their truth
  value is used: no ``eval`` request, and no page-sized result, ever reaches the service;
- what the refusal may tell the service is four kinds of report (platform found, dialog found,
  opt-out result, done), each rebuilt from a short platform name and a boolean, at most
  :data:`_PAGE_REPORTS` per document;
- the reports travel on a Playwright binding under a random name per browser context. The
  script removes the name from the page's globals and from Playwright's table before any page
  script runs, and calls the binding's underlying function, captured then, with a payload it
  builds by string concatenation (no hookable built-in sees the name). A binding call is never
  answered: Playwright hands an answer back through the page's world, where a page that hooks
  ``Map`` or ``Object.prototype`` would read the name in it. This speaks Playwright's own
  binding protocol (``__playwright__binding__``, ``{name, seq, serializedArgs}``); should a
  Playwright release change it, the script stops before starting autoconsent (a consent wall
  stays one) and tests/test_walls.py says so.

The service side still bounds what it accepts: a report longer than :data:`MAX_REPORT_CHARS` is
dropped undecoded, and at most :data:`MAX_REPORTS` per page are read.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import secrets
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

MAX_REPORT_CHARS = 64 * 1024
"""A report longer than this is dropped without being decoded (ours are under 300 chars)."""
MAX_REPORTS = 64
"""Reports read per page; later ones are ignored (one document sends at most a handful)."""
_PAGE_REPORTS = 16
_CMP_NAME_CHARS = 100

_CONFIG: dict[str, Any] = {
    "enabled": True,
    "autoAction": "optOut",
    "disabledCmps": [],
    # Hiding the dialog (prehide, cosmetic rules) is not refusing it: the page's text must be
    # what a reader who said no gets.
    "enablePrehide": False,
    "enableCosmeticRules": False,
    "enableGeneratedRules": True,
    "detectRetries": 20,
    # Platform checks run inline, in the page, and give a boolean: no eval round trip.
    "isMainWorld": True,
    "logs": {"errors": False},
}

# Runs before any page script, in every frame; the bundle goes between the two halves.
# ``__NAME__``, ``__CONFIG__`` and ``__RULES__`` become JSON literals. The name is only ever
# concatenated (``quote`` of a primitive string calls no page code); the bundle reads
# ``window.autoconsentSendMessage`` once, at its start, and both globals are gone before the
# page runs. Strict mode: a page's ``Error.prepareStackTrace`` gets no function of ours.
_PROLOGUE = """(() => {
  "use strict";
  const NAME = __NAME__;
  const raw = globalThis.__playwright__binding__;
  try { globalThis.__playwright__binding__controller__.removeBinding(NAME); } catch (e) {}
  if (typeof raw !== "function") return;
  const quote = JSON.stringify;
  const parse = JSON.parse;
  const head = '{"name":' + quote(NAME) + ',"seq":';
  let sent = 0;
  let asked = false;
  globalThis.autoconsentSendMessage = (message) => {
    if (message === null || typeof message !== "object") return;
    const type = message.type;
    if (type === "init") { asked = true; return; }
    if (type !== "cmpDetected" && type !== "popupFound" && type !== "optOutResult"
        && type !== "autoconsentDone") return;
    if (sent >= __PAGE_REPORTS__) return;
    sent += 1;
    let cmp = message.cmp;
    if (typeof cmp !== "string" || cmp.length > __CMP_NAME_CHARS__) cmp = "";
    const report = '{"type":' + quote(type) + ',"cmp":' + quote(cmp) + ',"result":'
      + (message.result === true ? "true" : "false") + "}";
    raw(head + sent + ',"serializedArgs":[' + quote(report) + "]}");
  };
"""
_EPILOGUE = """
  const receive = globalThis.autoconsentReceiveMessage;
  delete globalThis.autoconsentSendMessage;
  delete globalThis.autoconsentReceiveMessage;
  if (asked && typeof receive === "function") {
    const rules = {autoconsent: parse(__RULES__)};
    receive({type: "initResp", config: __CONFIG__, rules: rules});
  }
})();
"""


def consent_rules_available() -> bool:
    """Whether the autoconsent bundle is installed (it comes with the ``browser`` extra)."""
    return importlib.util.find_spec("duckduckgo_autoconsent") is not None


@lru_cache(maxsize=1)
def _parts() -> tuple[str, str]:
    """The init script around its name: what comes before the name, and after it."""
    from duckduckgo_autoconsent import bundle, rules_json

    prologue = _PROLOGUE.replace("__PAGE_REPORTS__", str(_PAGE_REPORTS)).replace(
        "__CMP_NAME_CHARS__", str(_CMP_NAME_CHARS)
    )
    before, after = prologue.split("__NAME__")
    epilogue = _EPILOGUE.replace("__CONFIG__", json.dumps(_CONFIG))
    # Last: the rules (850 KB of JSON, quoted as one string literal) may hold any text.
    rules_before, rules_after = epilogue.split("__RULES__")
    return before, after + bundle() + rules_before + json.dumps(rules_json()) + rules_after


def init_script(name: str) -> str:
    """The script that runs autoconsent in a frame and reports to the binding ``name``."""
    before, after = _parts()
    return before + json.dumps(name) + after


class ConsentRefusal:
    """Installs autoconsent in one browser context and follows its reports until it has
    refused the consent dialog, found none, or given up."""

    def __init__(self) -> None:
        self.detected = asyncio.Event()
        self.finished = asyncio.Event()
        self.cmp: str | None = None
        """The consent platform autoconsent found (None: none)."""
        self.refused: bool | None = None
        """Whether the opt-out succeeded (None: it did not run)."""
        self.reports = 0
        """Reports read from the page (at most :data:`MAX_REPORTS`)."""
        self.report_chars = 0
        """Their total length: what the page made the service decode."""
        self._unanswered: asyncio.Future[None] | None = None

    async def install(self, context: BrowserContext) -> None:
        """Inject the refusal into every frame of ``context`` (before its first page) and
        listen to its reports."""
        name = f"cv{secrets.token_hex(16)}"
        await context.expose_binding(name, self._on_report)
        await context.add_init_script(script=init_script(name))

    async def wait(self, detect_s: float, finish_s: float) -> None:
        """Wait up to ``detect_s`` for a consent platform to be found; when one is, up to
        ``finish_s`` more for the refusal to finish."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(detect_s):
                await self.detected.wait()
        if self.detected.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(finish_s):
                    await self.finished.wait()

    def close(self) -> None:
        """The page is done: end the binding calls left unanswered (none is ever answered)."""
        if self._unanswered is not None:
            self._unanswered.cancel()

    def _on_report(self, source: dict[str, Any], report: Any) -> asyncio.Future[None]:
        # Never answered (see the module's docstring): Playwright's call waits on this future
        # until close() cancels it, which sends nothing back to the page.
        if self._unanswered is None:
            self._unanswered = asyncio.get_running_loop().create_future()
        if (
            self.reports < MAX_REPORTS
            and isinstance(report, str)
            and len(report) <= MAX_REPORT_CHARS
        ):
            self.reports += 1
            self.report_chars += len(report)
            with contextlib.suppress(ValueError):
                self._read(json.loads(report))
        return self._unanswered

    def _read(self, report: Any) -> None:
        if not isinstance(report, dict):
            return
        kind, cmp = report.get("type"), report.get("cmp")
        if isinstance(cmp, str) and cmp:
            self.cmp = cmp[:_CMP_NAME_CHARS]
        if kind == "popupFound":
            self.detected.set()
        elif kind == "optOutResult":
            self.refused = report.get("result") is True
            if not self.refused:
                self.finished.set()
        elif kind == "autoconsentDone":
            self.finished.set()
