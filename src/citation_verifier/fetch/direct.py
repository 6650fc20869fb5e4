"""The embedded fetcher: plain HTTP(S) with httpx, behind the SSRF guard on every hop."""

from __future__ import annotations

import asyncio
import ssl
from email.message import Message
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpx

from citation_verifier.fetch.base import FetchedPage, FetchFailed
from citation_verifier.fetch.body import ACCEPT_ENCODING, read_capped
from citation_verifier.fetch.ssrf import pinned_request, resolve_allowed
from citation_verifier.models import Reason
from citation_verifier.settings import Settings

if TYPE_CHECKING:
    from citation_verifier.fetch.browser import BrowserRenderer

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"


def _parse_content_type(value: str | None) -> tuple[str, str | None]:
    if not value:
        return "", None
    msg = Message()
    msg["content-type"] = value
    charset = msg.get_param("charset")
    return msg.get_content_type().lower(), str(charset) if isinstance(charset, str) else None


class DirectFetcher:
    """Fetches pages itself. Follows redirects by hand so each hop is resolved, checked against
    the SSRF guard and connected to by the checked address."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._client = httpx.AsyncClient(
            follow_redirects=False,
            trust_env=False,  # never route through an environment proxy we did not vet
            timeout=httpx.Timeout(settings.fetch_timeout_s, connect=settings.connect_timeout_s),
            headers={
                "User-Agent": settings.user_agent,
                "Accept": _ACCEPT,
                "Accept-Encoding": ACCEPT_ENCODING,
            },
        )
        self._can_render: bool | None = None
        self.renderer: BrowserRenderer | None = None
        """The headless browser, created on the first ``render=True`` fetch (None until then)."""

    async def aclose(self) -> None:
        """Close pooled connections and the browser, if one was started."""
        try:
            await self._client.aclose()
        finally:
            if self.renderer is not None:
                await self.renderer.aclose()

    @property
    def can_render(self) -> bool:
        """Whether a headless browser is installed (Playwright and ``BROWSER_EXECUTABLE``)."""
        if self._can_render is None:
            from citation_verifier.fetch.browser import browser_available

            self._can_render = browser_available(self._settings)
        return self._can_render

    @property
    def render_hint(self) -> str:
        """What is missing for the headless browser, and what installs it."""
        from citation_verifier.fetch.browser import browser_install_hint

        return f"no browser is installed here: {browser_install_hint(self._settings)}"

    @property
    def can_refuse_consent(self) -> bool:
        """Whether the browser can refuse consent dialogs (autoconsent is installed)."""
        from citation_verifier.fetch.consent import consent_rules_available

        return self.can_render and consent_rules_available()

    async def fetch(
        self,
        url: str,
        *,
        readability: bool = True,
        render: bool = False,
        refuse_consent: bool = False,
    ) -> FetchedPage:
        """Fetch ``url`` within the configured deadline; raise FetchFailed with a reason.
        ``render`` loads it in the headless browser, which refuses a consent dialog first when
        ``refuse_consent``."""
        del readability  # raw bodies: extraction happens locally
        if render:
            return await self._render(url, refuse_consent)
        try:
            async with asyncio.timeout(self._settings.fetch_timeout_s):
                return await self._follow(url)
        except TimeoutError:
            raise FetchFailed(
                Reason.TIMEOUT, f"no complete answer within {self._settings.fetch_timeout_s:g} s"
            ) from None
        except httpx.TimeoutException as exc:
            raise FetchFailed(Reason.TIMEOUT, f"timed out: {type(exc).__name__}") from None
        except httpx.InvalidURL as exc:
            # httpx reads every Location header while receiving the response, even with
            # redirects off: "Location: http:127.0.0.1" fails there, before our own checks.
            raise FetchFailed(
                Reason.INVALID_REDIRECT, f"a redirect httpx cannot follow: {exc}"
            ) from None
        except (httpx.TransportError, ssl.SSLError, OSError) as exc:
            raise FetchFailed(
                Reason.CONNECTION_ERROR, f"connection failed: {type(exc).__name__}: {exc}"
            ) from None

    async def _render(self, url: str, refuse_consent: bool = False) -> FetchedPage:
        """The page after JavaScript ran, from the shared headless browser."""
        if not self.can_render:
            raise FetchFailed(
                Reason.JS_REQUIRED,
                f"the page needs JavaScript and no browser is installed "
                f"({self._settings.browser_executable} with Playwright; see docs/RENDERING.md)",
            )
        if self.renderer is None:
            from citation_verifier.fetch.browser import BrowserRenderer

            self.renderer = BrowserRenderer(self._settings)
        return await self.renderer.render(url, refuse_consent=refuse_consent)

    async def _follow(self, url: str) -> FetchedPage:
        current = url
        visited: list[str] = []
        for _ in range(self._settings.max_redirects + 1):
            try:
                parts = urlsplit(current)
                host, port = parts.hostname, parts.port
                if parts.scheme not in ("http", "https") or not host:
                    raise ValueError("not an http(s) URL with a host")
                address = await resolve_allowed(
                    host,
                    port or (443 if parts.scheme == "https" else 80),
                    allow_private=self._settings.allow_private_urls,
                    allowlist=self._settings.private_allowlist,
                )
                pinned, headers, extensions = pinned_request(current, address)
                request = self._client.build_request("GET", pinned, headers=headers)
            except (ValueError, httpx.InvalidURL) as exc:
                # A Location header is page content: a URL httpx cannot send
                # ("http:127.0.0.1", a bad port) ends this citation, never the request.
                raise FetchFailed(
                    Reason.INVALID_REDIRECT,
                    f"cannot request {current!r}: {exc}",
                    final_url=visited[-1] if visited else None,
                ) from None
            request.extensions.update(extensions)
            response = await self._client.send(request, stream=True)
            try:
                location = response.headers.get("location")
                if response.status_code in _REDIRECT_STATUSES and location:
                    visited.append(current)
                    try:
                        current = urljoin(current, location.strip())
                    except ValueError as exc:  # "http://[::1" and the like
                        raise FetchFailed(
                            Reason.INVALID_REDIRECT,
                            f"unreadable redirect {location!r}: {exc}",
                            final_url=current,
                        ) from None
                    if current in visited:
                        raise FetchFailed(
                            Reason.TOO_MANY_REDIRECTS,
                            f"redirect loop back to {current}",
                            final_url=current,
                        )
                    continue
                try:
                    body = await read_capped(response, self._settings.max_body_bytes)
                except FetchFailed as failure:  # the status came: the report shows it
                    failure.status = response.status_code
                    failure.final_url = failure.final_url or current
                    raise
            finally:
                await response.aclose()
            content_type, charset = _parse_content_type(response.headers.get("content-type"))
            return FetchedPage(
                requested_url=url,
                final_url=current,
                status=response.status_code,
                content_type=content_type,
                charset=charset,
                body=body,
                redirects=tuple(visited),
                headers={name.lower(): value for name, value in response.headers.items()},
            )
        raise FetchFailed(
            Reason.TOO_MANY_REDIRECTS,
            f"more than {self._settings.max_redirects} redirects",
            final_url=current,
        )
