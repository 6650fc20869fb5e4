"""What a fetch backend returns, and the protocol every backend implements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from citation_verifier.models import Attempt


@dataclass(frozen=True)
class FetchedPage:
    """A response as the origin sent it, after redirects. Any HTTP status is a page here;
    the policy chain decides what a status means."""

    requested_url: str
    final_url: str
    status: int
    content_type: str
    """Media type, lower case, without parameters; empty when the origin sent none."""
    body: bytes
    charset: str | None = None
    redirects: tuple[str, ...] = ()
    markdown: str | None = None
    """Readable text when the backend extracts it itself (e.g. a crawling API); else None."""
    rid: str | None = None
    rendered: bool = False
    """True when a browser (or a crawling API's JavaScript mode) produced this page."""
    extra: dict[str, object] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    """The origin's response headers, names lower case (empty when the backend does not pass
    them on, as a crawling API does not)."""
    attempts: tuple[Attempt, ...] = ()
    """Paid API requests this fetch made (a crawling API); empty for backends that cost nothing."""


class FetchFailed(Exception):
    """The backend got no page. Carries the verdict reason; the policy turns it into data."""

    def __init__(
        self,
        reason: str,
        detail: str,
        *,
        final_url: str | None = None,
        attempts: Sequence[Attempt] = (),
        render_may_help: bool = True,
        status: int | None = None,
    ) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.final_url = final_url
        self.status = status
        """The HTTP status of the response that failed (a body too large), when one came."""
        self.attempts = tuple(attempts)
        """Paid API requests made before the failure (they are accounted all the same)."""
        self.render_may_help = render_may_help
        """False when rendering cannot change the outcome (e.g. the API itself kept failing)."""


class Fetcher(Protocol):
    """Loads one URL. Raises :class:`FetchFailed` when no page could be had."""

    @property
    def can_render(self) -> bool:
        """Whether ``fetch(..., render=True)`` can run JavaScript (browser, JS token)."""
        ...

    @property
    def render_hint(self) -> str:
        """When it cannot render: why not and what would let it, for a ``js_required``
        detail ("no browser is installed here: pip install ...")."""
        ...

    @property
    def can_refuse_consent(self) -> bool:
        """Whether ``fetch(..., render=True, refuse_consent=True)`` can refuse a cookie-consent
        dialog (a browser with the consent rules installed)."""
        ...

    async def fetch(
        self,
        url: str,
        *,
        readability: bool = True,
        render: bool = False,
        refuse_consent: bool = False,
    ) -> FetchedPage:
        """Fetch ``url``. ``readability=False`` asks a backend that extracts text itself for the
        whole page instead of the cleaned main content; backends returning raw bodies ignore it.
        ``render=True`` asks for the page after JavaScript ran (only when ``can_render``);
        ``refuse_consent`` (with ``render``) asks a browser to refuse a cookie-consent dialog
        first (backends that cannot ignore it)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
