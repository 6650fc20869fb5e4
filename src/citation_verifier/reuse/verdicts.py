"""A verdict cache: a repeated (claim, page text, judge settings) triple reuses its verdict
instead of running retrieval and the judge again. Concurrent identical triples run once.

The key is a SHA-256 over the claim, the page's readable text and a fingerprint of the judge
and every setting (so a different model, threshold or top-k never reuses an old verdict).
Entries hold the verdict only; the caller stamps the URL-specific fields (url, final URL,
status, rid) of the page at hand onto the reused verdict.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from citation_verifier.models import FAILURES, UrlVerdict
from citation_verifier.net.singleflight import SingleFlight
from citation_verifier.settings import Settings


def judge_fingerprint(judge_name: str, settings: Settings) -> str:
    """A digest of the judge's name and all settings. Secrets enter only in their masked form
    (pydantic dumps SecretStr as asterisks), so the fingerprint reveals nothing."""
    payload = judge_name + "\0" + settings.model_dump_json()
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def verdict_key(claim: str, page_text: str, fingerprint: str) -> str:
    """Cache key of one (claim, page content, judge settings) triple."""
    digest = hashlib.sha256()
    for part in (claim, page_text, fingerprint):
        encoded = part.encode("utf-8")
        # Length prefixes keep ("ab", "c") and ("a", "bc") apart.
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
    return digest.hexdigest()


class VerdictCache:
    """Bounded LRU map from :func:`verdict_key` to the verdict, with single-flight."""

    def __init__(self, max_entries: int = 4096) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._entries: OrderedDict[str, UrlVerdict] = OrderedDict()
        self._flights: SingleFlight[str, UrlVerdict] = SingleFlight(self._store)
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    async def get_or_compute(
        self, key: str, compute: Callable[[], Awaitable[UrlVerdict]]
    ) -> UrlVerdict:
        """The stored verdict for ``key``, or ``compute()``'s (run once for concurrent callers).
        Failures are not stored."""
        cached = self._entries.get(key)
        if cached is not None:
            self.hits += 1
            self._entries.move_to_end(key)
            return cached
        verdict, joined = await self._flights.run(key, compute)
        if joined:
            self.hits += 1
        else:
            self.misses += 1
        return verdict

    def _store(self, key: str, verdict: UrlVerdict) -> None:
        if verdict.reason in FAILURES:  # a failure, not a verdict: try again next time
            return
        self._entries[key] = verdict
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
