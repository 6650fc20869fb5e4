"""A verdict cache: a repeated (claim, page text, judge settings) triple reuses its verdict
instead of running retrieval and the judge again. Concurrent identical triples run once.

The key is a SHA-256 over the claim, the page's readable text and a fingerprint of the judge
and every setting (so a different model, threshold or top-k never reuses an old verdict).
Entries hold the verdict only; the caller stamps the URL-specific fields (url, final URL,
status, rid) of the page at hand onto the reused verdict.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from citation_verifier.models import UrlVerdict
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
        self._in_flight: dict[str, asyncio.Task[UrlVerdict]] = {}
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
        task = self._in_flight.get(key)
        if task is None:
            self.misses += 1
            task = asyncio.ensure_future(compute())
            self._in_flight[key] = task
            task.add_done_callback(lambda done: self._finish(key, done))
        else:
            self.hits += 1
        return await asyncio.shield(task)

    def _finish(self, key: str, task: asyncio.Task[UrlVerdict]) -> None:
        if self._in_flight.get(key) is task:
            del self._in_flight[key]
        if task.cancelled() or task.exception() is not None:
            return
        self._entries[key] = task.result()
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
