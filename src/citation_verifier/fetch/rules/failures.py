"""Rule: a fetch that got no page (DNS, refused, timeout, SSRF guard, too large, ...) settles
the citation instead of failing the verification."""

from __future__ import annotations

from citation_verifier.fetch.base import FetchFailed
from citation_verifier.fetch.outcomes import Settled
from citation_verifier.fetch.rules.base import LoadState, Next, Outcome
from citation_verifier.models import Label, Reason

# Failures where the page itself was read and is not something we judge: not_found. A page that
# needs JavaScript nothing could run (js_required) was never read: unreachable, like a wall.
_NOT_FOUND_FAILURES = frozenset({Reason.TOO_LARGE, Reason.UNSUPPORTED_CONTENT_TYPE})


class FetchFailures:
    """Turns :class:`FetchFailed` into a :class:`Settled` outcome with the failure's reason."""

    async def apply(self, state: LoadState, proceed: Next) -> Outcome:
        """The rest of the chain's outcome, or the settled failure."""
        try:
            return await proceed(state)
        except FetchFailed as failure:
            label = Label.NOT_FOUND if failure.reason in _NOT_FOUND_FAILURES else Label.UNREACHABLE
            return Outcome(
                Settled(
                    state.url,
                    label,
                    failure.reason,
                    failure.detail,
                    final_url=failure.final_url,
                    status=failure.status,
                )
            )
