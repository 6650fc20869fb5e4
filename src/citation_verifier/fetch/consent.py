"""Refusing a cookie-consent dialog in the headless browser, with DuckDuckGo's autoconsent.

autoconsent is the rule set DuckDuckGo maintains for its browsers' "manage cookie pop-ups": about
a thousand consent-management platforms (OneTrust, Didomi, Cookiebot, Quantcast, TrustArc,
Sourcepoint, Google's own, ...) with how to detect each and how to *opt out* of it. We use its
prebuilt bundle from PyPI (``duckduckgo-autoconsent-py``: the npm package's ``playwright``
content script and rules, no Node.js) and speak the bundle's message protocol the way its own
Playwright runner does: the content script runs in every frame, says ``init``, gets the rules and
``autoAction: optOut``, asks us to ``eval`` snippets, and reports ``optOutResult`` /
``autoconsentDone``. We only ever refuse; we never accept, log in or fill anything in.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Frame

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
    "isMainWorld": False,
    "logs": {"errors": False},
}
_RECEIVE = "([message, rules]) => { if (rules !== null) { message.rules = "
_RECEIVE += (
    "{autoconsent: JSON.parse(rules)}; } return window.autoconsentReceiveMessage(message); }"
)


def consent_rules_available() -> bool:
    """Whether the autoconsent bundle is installed (it comes with the ``browser`` extra)."""
    return importlib.util.find_spec("duckduckgo_autoconsent") is not None


@lru_cache(maxsize=1)
def _assets() -> tuple[str, str]:
    from duckduckgo_autoconsent import bundle, rules_json

    return bundle(), rules_json()


class ConsentRefusal:
    """Installs autoconsent in one browser context and follows it until it has refused the
    consent dialog, found none, or given up."""

    def __init__(self) -> None:
        self.detected = asyncio.Event()
        self.finished = asyncio.Event()
        self.cmp: str | None = None
        """The consent platform autoconsent found (None: none)."""
        self.refused: bool | None = None
        """Whether the opt-out succeeded (None: it did not run)."""
        self._tasks: set[asyncio.Task[None]] = set()

    async def install(self, context: BrowserContext) -> None:
        """Inject the content script into every frame of ``context`` and listen to it."""
        script, _ = _assets()
        await context.expose_binding("autoconsentSendMessage", self._on_message)
        await context.add_init_script(script=script)

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

    async def aclose(self) -> None:
        """Cancel replies still on their way (the page is done)."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks))

    def _on_message(self, source: dict[str, Any], message: Any) -> None:
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        frame: Frame = source["frame"]
        if kind == "init":
            reply = {"type": "initResp", "config": _CONFIG}
            self._spawn(self._send(frame, reply, with_rules=True))
        elif kind == "eval":
            self._spawn(self._eval(frame, message))
        elif kind == "cmpDetected":
            self.cmp = str(message.get("cmp"))
        elif kind == "popupFound":
            self.cmp = str(message.get("cmp"))
            self.detected.set()
        elif kind == "optOutResult":
            self.refused = bool(message.get("result"))
            if not self.refused:
                self.finished.set()
        elif kind == "autoconsentDone":
            self.finished.set()

    def _spawn(self, work: Any) -> None:
        # Answer outside the binding's callback: the page must not wait on our reply to it.
        task: asyncio.Task[None] = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _eval(self, frame: Frame, message: dict[str, Any]) -> None:
        from playwright.async_api import Error as PlaywrightError

        result: Any = False
        with contextlib.suppress(PlaywrightError):
            result = await frame.evaluate(str(message.get("code", "false")))
        await self._send(frame, {"type": "evalResp", "id": message.get("id"), "result": result})

    async def _send(
        self, frame: Frame, message: dict[str, Any], *, with_rules: bool = False
    ) -> None:
        from playwright.async_api import Error as PlaywrightError

        rules = _assets()[1] if with_rules else None
        with contextlib.suppress(PlaywrightError):  # the frame went away: nothing to refuse
            await frame.evaluate(_RECEIVE, [message, rules])
