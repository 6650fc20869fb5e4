"""Loaded by every Python process the plug-in tests start (on PYTHONPATH): a connection or name
lookup beyond loopback is refused and written to OUTBOUND_LOG, which the tests read."""

import os
import socket
from typing import Any

_LOG = os.environ.get("OUTBOUND_LOG", "")
_LOOPBACK = ("127.", "::1", "localhost")
_connect, _connect_ex, _getaddrinfo = (
    socket.socket.connect,
    socket.socket.connect_ex,
    socket.getaddrinfo,
)


def _refuse(what: object) -> OSError:
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(f"{what}\n")
    return OSError(f"the plug-in tests allow loopback only, not {what}")


def _checked(address: object) -> None:
    host = address[0] if isinstance(address, tuple) else None
    if isinstance(host, str) and not host.startswith(_LOOPBACK):
        raise _refuse(address)


def connect(self: socket.socket, address: Any) -> None:
    _checked(address)
    _connect(self, address)


def connect_ex(self: socket.socket, address: Any) -> int:
    _checked(address)
    return _connect_ex(self, address)


def getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
    if isinstance(host, bytes):
        host = host.decode()
    if isinstance(host, str) and host and not host.startswith(_LOOPBACK):
        raise socket.gaierror(str(_refuse(host)))
    return _getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]


socket.socket.connect = connect  # type: ignore[method-assign,assignment]
socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
