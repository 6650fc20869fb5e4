"""SSRF guard: resolve a host, refuse addresses that are not publicly routable, and pin the
request to the address that was checked."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from urllib.parse import urlsplit, urlunsplit

from citation_verifier.fetch.base import FetchFailed
from citation_verifier.models import Reason

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def is_forbidden_address(ip: IPAddress) -> bool:
    """True for loopback, private, link-local, multicast, reserved and other non-global addresses,
    including IPv4 addresses wrapped in IPv6 (mapped, 6to4, NAT64 well-known prefix)."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in ipaddress.IPv6Network("64:ff9b::/96"):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None and is_forbidden_address(embedded):
            return True
    return not ip.is_global or ip.is_multicast


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
