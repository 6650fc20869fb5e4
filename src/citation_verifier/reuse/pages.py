"""A page cache for :meth:`PagePolicy.load` results: single-flight plus a short TTL.

Identical URLs requested at the same time are loaded once (every caller awaits the same task),
and a loaded page is reused for ``ttl_s`` seconds. Transient failures (timeouts, refused
connections, crawl failures, blocks) are shared with concurrent callers but never kept: the
next request tries again. Keys are URLs exactly as requested (with the citation day when
the load depends on it: an archived copy).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from citation_verifier.fetch.policy import Document, Settled
from citation_verifier.models import Reason
from citation_verifier.net.singleflight import SingleFlight

Loaded = Document | Settled
Loader = Callable[[str], Awaitable[Loaded]]

# Outcomes that say more about this moment than about the page: retried, never cached.
TRANSIENT_REASONS = frozenset(
    {
        Reason.TIMEOUT,
        Reason.DNS_ERROR,
        Reason.CONNECTION_ERROR,
        Reason.BLOCKED,
        Reason.CRAWL_FAILED,
        Reason.RATE_LIMITED,
    }
)


def is_cacheable(loaded: Loaded) -> bool:
    """Whether a load result may be reused: a document, or a settled outcome of the page itself
    (dead link, soft 404, homepage redirect, ...) rather than of the network."""
    return isinstance(loaded, Document) or loaded.reason not in TRANSIENT_REASONS


class PageCache:
    """Single-flight + TTL cache around a page loader. Bounded (least recently used entries go
    first). Use from one event loop; one instance can serve any number of concurrent requests."""

    def __init__(
        self,
        ttl_s: float,
        max_entries: int = 256,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, Loaded]] = OrderedDict()
        self._flights: SingleFlight[str, Loaded] = SingleFlight(self._store)
        self.hits = 0
        self.misses = 0
        self.shared = 0
        """Calls that joined a load already in flight instead of starting one."""

    def __len__(self) -> int:
        return len(self._entries)

    def _fresh(self, url: str) -> Loaded | None:
        entry = self._entries.get(url)
        if entry is None:
            return None
        stored_at, loaded = entry
        if self._clock() - stored_at >= self.ttl_s:
            del self._entries[url]
            return None
        self._entries.move_to_end(url)
        return loaded

    def _store(self, url: str, loaded: Loaded) -> None:
        if self.ttl_s <= 0 or not is_cacheable(loaded):
            return
        self._entries[url] = (self._clock(), loaded)
        self._entries.move_to_end(url)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    async def load(self, url: str, loader: Loader) -> Loaded:
        """The cached result for ``url``, the result of a load already in flight, or a new load.

        The load runs as its own task, so a caller that is cancelled (a client that hung up)
        does not cancel it for the other callers waiting on it."""
        cached = self._fresh(url)
        if cached is not None:
            self.hits += 1
            return cached
        loaded, joined = await self._flights.run(url, lambda: loader(url))
        if joined:
            self.shared += 1
        else:
            self.misses += 1
        return loaded
