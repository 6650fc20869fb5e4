"""The ``Host`` check of the service (DNS rebinding).

A page in the user's browser can make its own domain resolve to 127.0.0.1 and then call a
key-less service on loopback as if it were same-origin; only the ``Host`` header still names
the attacker's domain. So a service listening on loopback answers only requests addressed to a
loopback name, as the MCP server's transport does; ``SERVICE_ALLOWED_HOSTS`` names the hosts
(any address) when the service is reached by other names, through a proxy say.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection

from starlette.types import ASGIApp, Receive, Scope, Send

from citation_verifier.service.middleware import send_json

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})


def is_loopback(host: str) -> bool:
    """Whether the service listening on ``host`` is reachable only from this machine."""
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def allowed_hosts(listen_host: str, configured: Collection[str]) -> frozenset[str] | None:
    """The ``Host`` names the service answers: ``configured`` when given, the loopback names
    when it listens on loopback, else None (any: it is reached through names we cannot know)."""
    if configured:
        return frozenset(name.lower() for name in configured)
    return LOOPBACK_NAMES if is_loopback(listen_host) else None


def host_name(header: str) -> str:
    """``header`` without its port: ``example.com:8000`` → ``example.com``, ``[::1]:80`` →
    ``[::1]``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class HostCheck:
    """Answers 421 Misdirected Request to a request whose ``Host`` is not allowed."""

    def __init__(self, app: ASGIApp, *, allowed: frozenset[str]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and "*" not in self.allowed:
            headers = dict(scope.get("headers", []))
            host = host_name(bytes(headers.get(b"host", b"")).decode("latin-1"))
            if host not in self.allowed:
                await send_json(
                    send,
                    421,
                    {"detail": "misdirected request: this service does not answer that Host"},
                )
                return
        await self.app(scope, receive, send)
