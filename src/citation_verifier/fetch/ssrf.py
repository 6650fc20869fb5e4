"""SSRF guard: resolve a host, refuse every address that is not globally routable unicast, and
pin the request to the address that was checked."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from urllib.parse import urlsplit, urlunsplit

from citation_verifier.fetch.base import FetchFailed
from citation_verifier.models import Reason

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

# IANA's IPv4 special-purpose registry, every block not "globally reachable" (and the few that
# are but serve no web pages: anycast relays and the like). Our own table, so the answer does
# not depend on the Python patch release (3.11.7 still calls 192.0.0.8 global).
_NOT_GLOBAL_V4 = tuple(
    _V4(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.31.196.0/24",
        "192.52.193.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "192.175.48.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
    )
)
# Global unicast IPv6 is 2000::/3 only; inside it, these blocks are not globally reachable
# (IETF protocol assignments incl. Teredo, documentation, SRv6 SIDs...).
_GLOBAL_UNICAST_V6 = _V6("2000::/3")
_NOT_GLOBAL_V6 = tuple(
    _V6(net)
    for net in ("2001::/23", "2001:db8::/32", "3fff::/20", "5f00::/16", "2620:4f:8000::/48")
)
# Forms that carry an IPv4 address in their last 32 bits. The translators (NAT64 well-known
# prefix, IPv4-mapped) reach the embedded address, so that address decides; the deprecated
# IPv4-compatible and SIIT-translated forms and the local-use NAT64 prefix are never routable
# on the internet, so they are refused whatever they embed.
_EMBEDS_V4_LAST_32 = (_V6("64:ff9b::/96"), _V6("::ffff:0:0/96"))
_NEVER_ROUTABLE_V4_WRAPPERS = (_V6("::/96"), _V6("::ffff:0:0:0/96"), _V6("64:ff9b:1::/48"))
_SIX_TO_FOUR = _V6("2002::/16")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, SIIT-translated, NAT64 and
    its local-use prefix, 6to4), or None."""
    if any(ip in net for net in (*_EMBEDS_V4_LAST_32, *_NEVER_ROUTABLE_V4_WRAPPERS)):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _SIX_TO_FOUR:
        return ip.sixtofour
    return None


def _ipv4_forbidden(ip: ipaddress.IPv4Address) -> bool:
    return any(ip in net for net in _NOT_GLOBAL_V4) or not ip.is_global


def is_forbidden_address(ip: IPAddress) -> bool:
    """True unless ``ip`` is globally routable unicast. IPv4 wrapped in IPv6 is unwrapped and
    judged as IPv4; wrappers that never route on the internet are refused outright."""
    if isinstance(ip, ipaddress.IPv4Address):
        return _ipv4_forbidden(ip)
    if ip.scope_id is not None:
        return True
    if any(ip in net for net in _NEVER_ROUTABLE_V4_WRAPPERS):
        return True
    embedded = embedded_ipv4(ip)
    if embedded is not None:
        return _ipv4_forbidden(embedded)
    if ip not in _GLOBAL_UNICAST_V6 or any(ip in net for net in _NOT_GLOBAL_V6):
        return True
    return not ip.is_global


async def resolve_allowed(
    host: str,
    port: int,
    *,
    allow_private: bool,
    allowlist: Sequence[ipaddress.IPv4Network | ipaddress.IPv6Network] = (),
) -> str:
    """Resolve ``host`` and return the address to connect to.

    Every address the name resolves to must be allowed, so a name that mixes a public and a
    private address cannot be used to reach the private one. Addresses inside ``allowlist``
    networks pass even when non-public (an internal docs host, say). Raises FetchFailed with
    ``dns_error`` or ``forbidden_address``.
    """
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise FetchFailed(Reason.DNS_ERROR, f"cannot resolve host {host!r}: {exc}") from None
    addresses: list[IPAddress] = []
    for *_, sockaddr in infos:
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if ip not in addresses:
            addresses.append(ip)
    if not addresses:
        raise FetchFailed(Reason.DNS_ERROR, f"host {host!r} resolves to no address")
    if not allow_private:
        forbidden = [
            ip
            for ip in addresses
            if is_forbidden_address(ip) and not any(ip in net for net in allowlist)
        ]
        if forbidden:
            raise FetchFailed(
                Reason.FORBIDDEN_ADDRESS,
                f"refused {host!r}: it resolves to a non-public address ({forbidden[0]}); "
                "set ALLOW_PRIVATE_URLS=true to allow loopback and private targets",
            )
    return str(addresses[0])


def pinned_request(url: str, address: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """Rewrite ``url`` to connect to ``address`` (the one :func:`resolve_allowed` checked) while
    keeping Host and TLS SNI on the name: a second DNS answer can never reach a private host."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc_host = f"[{address}]" if ":" in address else address
    netloc = f"{netloc_host}:{parts.port}" if parts.port else netloc_host
    pinned = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    host_header = f"[{host}]" if ":" in host else host
    if parts.port:
        host_header += f":{parts.port}"
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    return pinned, {"Host": host_header}, extensions
