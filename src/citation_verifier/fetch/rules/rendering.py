"""Rule: JavaScript escalation. A page that came back thin, empty or as a script shell is
fetched again rendered (when the backend can and ``RENDER_JS`` allows); a shell that cannot be
rendered settles ``js_required`` rather than being judged empty."""

from __future__ import annotations

import dataclasses

from citation_verifier import extract
from citation_verifier.fetch.base import FetchedPage, Fetcher, FetchFailed
from citation_verifier.fetch.outcomes import Document, Settled
from citation_verifier.fetch.reading import js_signals
from citation_verifier.fetch.rules.base import LoadState, Next, Outcome, settle
from citation_verifier.models import Label, Reason
from citation_verifier.settings import Settings

# Failures of a first, cheap attempt that a rendering attempt may overcome.
_RENDER_ON_FAILURE = frozenset({Reason.CRAWL_FAILED})


class JavaScriptRendering:
    """Renders what needs it, once; the rendered page passes exactly the same checks."""

    def __init__(self, fetcher: Fetcher, settings: Settings) -> None:
        self._fetcher = fetcher
        self._settings = settings

    async def apply(self, state: LoadState, proceed: Next) -> Outcome:
        """The outcome of the plain fetch, or of the rendered one when that is needed."""
        rendered = dataclasses.replace(state, render=True)
        try:
            outcome = await proceed(state)
        except FetchFailed as failure:
            # A failed crawl (first attempt or its no-readability retry) may need a browser.
            if not self._render_may_help(failure):
                raise
            return await proceed(rendered)
        page, result = outcome.page, outcome.result
        if page is None or state.render:
            return outcome
        if self._needs_rendering(page, result):
            return await proceed(rendered)
        if not page.rendered and not self._may_render and self._needs_browser(page, result):
            # Judging the empty shell would be a wrong verdict: the page was never read.
            why = (
                "rendering is off (RENDER_JS=never; RENDER_JS=auto renders it)"
                if self._settings.render_js == "never"
                else self._fetcher.render_hint
            )
            return settle(
                page,
                Label.UNREACHABLE,
                Reason.JS_REQUIRED,
                f"the page needs JavaScript to show its text and {why}",
            )
        return outcome

    def _render_may_help(self, failure: FetchFailed) -> bool:
        return failure.reason in _RENDER_ON_FAILURE and failure.render_may_help and self._may_render

    @property
    def _may_render(self) -> bool:
        """The backend can render and ``RENDER_JS`` allows it."""
        return self._settings.render_js != "never" and self._fetcher.can_render

    def _thin(self, result: Document | Settled) -> bool:
        if isinstance(result, Document):
            return result.kind == "html" and (
                extract.visible_chars(result.text) < self._settings.readability_min_chars
            )
        return result.reason == Reason.EMPTY_PAGE

    def _short_with_notice(self, page: FetchedPage, result: Document | Settled) -> bool:
        """Short readable text (under ``RENDER_NOTICE_MAX_CHARS``; navigation, a header) beside
        a ``<noscript>`` notice that asks for JavaScript: the content is not in the HTML."""
        return (
            isinstance(result, Document)
            and result.kind == "html"
            and extract.visible_chars(result.text) < self._settings.render_notice_max_chars
            and js_signals(page)[1]
        )

    def _needs_rendering(self, page: FetchedPage, result: Document | Settled) -> bool:
        """The backend may render, and the cheap attempt left the page thin or empty even after
        the whole-page fallback, or its short text sits beside a ``<noscript>`` notice.
        ``RENDER_JS=always`` renders every HTML page that answered 2xx."""
        if page.rendered or not self._may_render:
            return False
        if self._settings.render_js == "always":
            if isinstance(result, Document):
                return result.kind == "html"
            return result.reason in (Reason.EMPTY_PAGE, Reason.SOFT_404)
        return self._thin(result) or self._short_with_notice(page, result)

    def _needs_browser(self, page: FetchedPage, result: Document | Settled) -> bool:
        """The static page is a JavaScript shell: thin or empty while it loads scripts, or short
        beside a ``<noscript>`` enable-JavaScript notice. A short page without scripts is not."""
        if self._short_with_notice(page, result):
            return True
        return self._thin(result) and any(js_signals(page))
