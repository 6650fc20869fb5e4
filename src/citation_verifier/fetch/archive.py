"""Client of the Internet Archive's Wayback Machine availability API.

When a cited page is dead, the fetch policy judges the capture closest to the citation date
instead. This module only finds that capture (``ARCHIVE_URL/wayback/available``); the capture
itself is fetched by the policy through the guarded fetcher, in its raw ``id_`` form (the page
as captured: no archive toolbar, no rewritten links).

ARCHIVE_URL is operator configuration, not user input, so the lookup is not SSRF-guarded. The
cited URL it sends is: :func:`not_public` says when the cited page lives at a non-public address
(loopback, private, link-local, a name like ``localhost``), which a lookup would disclose to the
archive, a third party, whatever ``ALLOW_PRIVATE_URLS`` lets us fetch ourselves.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import socket
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from citation_verifier.fetch.ssrf import embedded_ipv4, is_forbidden_address
from citation_verifier.models import as_utc
from citation_verifier.net.retry_after import retry_after_s
from citation_verifier.net.singleflight import SingleFlight
from citation_verifier.settings import Settings

_TIMESTAMP = re.compile(r"\d{14}")
# scheme://host[/prefix]/web/<timestamp><modifier>/<original url>: the first /web/<digits>
# segment is the capture's (the original URL may contain another one of its own).
_CAPTURE_URL = re.compile(
    r"^([a-zA-Z][a-zA-Z0-9+.-]*://[^/]+/(?:[^?#]*?/)??web/)(\d{1,14})([a-z]{2}_)?(/.*)$"
)
_BACKOFF_S = 0.25
"""First wait after a failure without ``Retry-After``; doubled after each further failure."""
_CACHE_ENTRIES = 1024

CacheKey = tuple[str, str | None]


_TRANSPORT_WORDS: tuple[tuple[type[httpx.TransportError], str], ...] = (
    (httpx.ConnectTimeout, "no connection within the time allowed"),
    (httpx.ConnectError, "the connection could not be opened"),
    (httpx.ProxyError, "the proxy refused the connection"),
    (httpx.ReadError, "the connection broke while reading the answer"),
    (httpx.WriteError, "the connection broke while sending the request"),
    (httpx.RemoteProtocolError, "the archive's answer was cut off or malformed"),
    (httpx.PoolTimeout, "too many requests were waiting for a connection"),
)


def transport_words(error: httpx.TransportError) -> str:
    """What a transport error means, in words a reader of the verdict understands (never the
    exception's name, nor its message, which may hold the URL)."""
    for kind, words in _TRANSPORT_WORDS:
        if isinstance(error, kind):
            return words
    return "the network failed"


# Names that only mean something inside a network: localhost (RFC 6761), mDNS, ICANN's private
# use TLD, home networks (RFC 8375), and the undelegated names networks use in their stead.
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_LOCAL_SUFFIXES = (
    ".localhost",
    ".local",
    ".internal",
    ".intranet",
    ".lan",
    ".home",
    ".home.arpa",
    ".corp",
    ".private",
    ".localdomain",
)


async def not_public(url: str, resolve_timeout_s: float) -> str | None:
    """Why ``url`` names a page at a non-public address, which an archive lookup would disclose
    to the archive; None when nothing says so. A local name (``localhost``, ``*.internal``, one
    label), an IP literal or a name resolving to any address the SSRF guard calls non-public
    (loopback, private, link-local, ...). A name that does not resolve here within
    ``resolve_timeout_s`` says nothing: a dead public domain is what the archive is for."""
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if not host:
        return None
    if host in _LOCAL_NAMES or host.endswith(_LOCAL_SUFFIXES):
        return f"{host} is a local name"
    try:
        literal = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        literal = None
    if literal is not None:
        return f"{host} is {_kind(literal)}" if is_forbidden_address(literal) else None
    # Resolved like the fetch resolved it (numeric forms such as 2130706433 or 0x7f.1 included):
    # the query goes to our own resolver, never to the archive.
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(resolve_timeout_s):
            infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, TimeoutError):
        infos = []
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if is_forbidden_address(address):
            return f"{host} resolves to {_kind(address)} ({address})"
    if "." not in host:  # an intranet's short name: no public site has one
        return f"{host} is a local name (a single label)"
    return None


def _kind(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """A non-public address in words (an IPv4 address wrapped in IPv6 by what it wraps)."""
    if isinstance(address, ipaddress.IPv6Address):
        address = embedded_ipv4(address) or address
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_private:
        return "a private address"
    return "not a public address"


def _tries(sent: int) -> str:
    return "1 try" if sent == 1 else f"{sent} tries"


class ArchiveUnavailable(Exception):
    """The archive could not answer within the lookup's budget (time or requests)."""


@dataclass(frozen=True)
class Capture:
    """One Wayback Machine capture of ``original_url`` (the URL that was looked up)."""

    original_url: str
    timestamp: str
    """14 digits, UTC: ``YYYYMMDDhhmmss``."""
    url: str
    """The human-facing capture URL exactly as the archive returned it (toolbar, rewritten
    links)."""
    status: int | None
    """The HTTP status the archive recorded for the capture; None when unknown (``-``)."""

    def __post_init__(self) -> None:
        if not _TIMESTAMP.fullmatch(self.timestamp):
            raise ValueError(f"a capture timestamp has 14 digits, got {self.timestamp!r}")

    @property
    def raw_url(self) -> str:
        """The capture as it was recorded: ``…/web/<timestamp>id_/<original>``."""
        match = _CAPTURE_URL.match(self.url)
        if match is None:
            raise ValueError(f"not a Wayback capture URL: {self.url!r}")
        prefix, stamp, _modifier, rest = match.groups()
        return f"{prefix}{stamp}id_{rest}"

    @property
    def archived_at(self) -> datetime:
        """When the page was captured (UTC)."""
        return datetime.strptime(self.timestamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)


def wayback_timestamp(when: datetime | None) -> str | None:
    """``when`` as a 14-digit UTC Wayback timestamp; a time without a zone is taken as UTC."""
    moment = as_utc(when)
    # The year by hand: strftime writes year 1 as "1", not "0001", on glibc.
    return None if moment is None else f"{moment.year:04d}{moment:%m%d%H%M%S}"


def _lookup_timestamp(when: datetime | None) -> str | None:
    """The timestamp asked for ``when``: noon UTC of its day. One answer per URL and day (the
    cache's key), and any capture made that day is closer to noon than any from another day."""
    stamp = wayback_timestamp(when)
    return None if stamp is None else stamp[:8] + "120000"


def _capture(url: str, payload: Any) -> Capture | None:
    """The capture in an availability answer, None when nothing is archived; ValueError when
    the answer is not shaped like one."""
    if not isinstance(payload, dict):
        raise ValueError("the answer is not a JSON object")
    snapshots = payload.get("archived_snapshots")
    if not isinstance(snapshots, dict):
        raise ValueError("the answer has no archived_snapshots object")
    closest = snapshots.get("closest")
    if closest is None:
        return None
    if not isinstance(closest, dict):
        raise ValueError("archived_snapshots.closest is not an object")
    if closest.get("available") is False:
        return None
    capture_url = closest.get("url")
    stamp = closest.get("timestamp")
    if not isinstance(capture_url, str) or _CAPTURE_URL.match(capture_url) is None:
        raise ValueError("the closest capture has no capture URL")
    if not isinstance(stamp, str) or not _TIMESTAMP.fullmatch(stamp):
        raise ValueError("the closest capture has no 14-digit timestamp")
    raw_status = closest.get("status")
    # A string in the documented answer ("200", "404", "-" for revisits and the like).
    if isinstance(raw_status, int) and not isinstance(raw_status, bool):
        status: int | None = raw_status
    elif isinstance(raw_status, str) and raw_status.strip().isdigit():
        status = int(raw_status.strip())
    else:
        status = None
    return Capture(original_url=url, timestamp=stamp, url=capture_url, status=status)


class ArchiveClient:
    """Finds the Wayback Machine capture closest to a date, within a time and request budget.

    Answers (found or not archived; never failures) are cached ``archive_cache_ttl_s`` per URL
    and day, and concurrent identical lookups share one request. Counters: ``lookups`` (calls
    of :meth:`closest`, each ending in one of ``hits``, ``misses``, ``failures``), ``requests``
    (HTTP requests sent), ``cached`` (answered from the cache), ``joined`` (answered by another
    caller's request in flight).
    """

    def __init__(
        self, settings: Settings, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self._settings = settings
        # ARCHIVE_URL was checked to be an http(s) URL when the settings were read.
        self._endpoint = f"{settings.archive_url.rstrip('/')}/wayback/available"
        self._client = httpx.AsyncClient(
            trust_env=False,
            follow_redirects=True,
            timeout=httpx.Timeout(settings.archive_timeout_s),
            headers={"User-Agent": settings.user_agent, "Accept": "application/json"},
            transport=transport,
        )
        self._cache: OrderedDict[CacheKey, tuple[float, Capture | None]] = OrderedDict()
        # Concurrent identical lookups share one request; its answer is cached before any
        # later caller can start another.
        self._flights: SingleFlight[CacheKey, Capture | None] = SingleFlight(self._store)
        self.lookups = 0
        self.requests = 0
        self.hits = 0
        self.misses = 0
        self.failures = 0
        self.cached = 0
        self.joined = 0

    async def closest(self, url: str, when: datetime | None) -> Capture | None:
        """The capture of ``url`` closest to ``when`` (the most recent one when None); None
        when the archive has none. Raises :class:`ArchiveUnavailable`."""
        self.lookups += 1
        stamp = _lookup_timestamp(when)
        key: CacheKey = (url, None if stamp is None else stamp[:8])
        try:
            found, capture = self._cached(key)
            if found:
                self.cached += 1
            else:
                capture, joined = await self._flights.run(key, lambda: self._lookup(url, stamp))
                self.joined += joined
        except ArchiveUnavailable:
            self.failures += 1
            raise
        if capture is None:
            self.misses += 1
        else:
            self.hits += 1
        return capture

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.aclose()

    def _cached(self, key: CacheKey) -> tuple[bool, Capture | None]:
        entry = self._cache.get(key)
        if entry is None:
            return False, None
        expires, capture = entry
        if time.monotonic() >= expires:
            del self._cache[key]
            return False, None
        self._cache.move_to_end(key)
        return True, capture

    def _store(self, key: CacheKey, capture: Capture | None) -> None:
        ttl = self._settings.archive_cache_ttl_s
        if ttl <= 0:
            return
        self._cache[key] = (time.monotonic() + ttl, capture)
        self._cache.move_to_end(key)
        while len(self._cache) > _CACHE_ENTRIES:
            self._cache.popitem(last=False)

    async def _lookup(self, url: str, stamp: str | None) -> Capture | None:
        budget = self._settings.archive_budget_s
        deadline = asyncio.get_running_loop().time() + budget
        try:
            async with asyncio.timeout_at(deadline):
                return await self._attempts(url, stamp, deadline)
        except TimeoutError:
            raise ArchiveUnavailable(
                f"the archive did not answer within the lookup budget of {budget:g} s"
            ) from None

    async def _attempts(self, url: str, stamp: str | None, deadline: float) -> Capture | None:
        settings = self._settings
        params = {"url": url} if stamp is None else {"url": url, "timestamp": stamp}
        loop = asyncio.get_running_loop()
        sent = 0
        while True:
            retry_after: str | None = None
            try:
                sent += 1
                self.requests += 1
                async with asyncio.timeout(settings.archive_timeout_s):
                    response = await self._client.get(self._endpoint, params=params)
            except (TimeoutError, httpx.TimeoutException):
                why = f"the archive did not answer within {settings.archive_timeout_s:g} s"
            except httpx.TransportError as exc:  # the message may hold the URL: never shown
                why = f"cannot reach the archive ({transport_words(exc)})"
            except httpx.HTTPError as exc:  # too many redirects and the like: not transient
                raise ArchiveUnavailable(f"archive request failed: {type(exc).__name__}") from None
            else:
                status = response.status_code
                if status == 200:
                    return self._parse(url, response)
                if status != 429 and status < 500:
                    raise ArchiveUnavailable(f"the archive answered HTTP {status}")
                why = f"the archive answered HTTP {status}"
                retry_after = response.headers.get("retry-after")
            if sent >= settings.archive_max_requests:
                raise ArchiveUnavailable(f"{why}; gave up after {_tries(sent)}")
            told = retry_after_s(retry_after)
            wait = _BACKOFF_S * 2 ** (sent - 1) if told is None else told
            # Sleeping until the budget is spent would only delay the same failure.
            if loop.time() + wait >= deadline:
                asked = "" if told is None else f"; asked to retry after {told:g} s"
                raise ArchiveUnavailable(f"{why}{asked}, beyond the lookup budget")
            await asyncio.sleep(wait)

    @staticmethod
    def _parse(url: str, response: httpx.Response) -> Capture | None:
        try:
            payload = json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
            raise ArchiveUnavailable("the archive answered invalid JSON") from None
        try:
            return _capture(url, payload)
        except ValueError as exc:
            raise ArchiveUnavailable(f"unexpected archive answer: {exc}") from None
