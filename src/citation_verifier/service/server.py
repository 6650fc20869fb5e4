"""Running the app under uvicorn: in the foreground (``citation-verifier serve``) or in a
background thread (tests, benchmarks). Both bind the socket first, so port 0 works and the
real URL is known before serving starts."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from types import FrameType, TracebackType

import uvicorn
from fastapi import FastAPI


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """``http://HOST:PORT`` of a bound socket (IPv6 hosts in brackets)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


GRACE_S = 5
"""How long a stopping server lets requests in flight finish before it cancels them."""
EXIT_AFTER_S = GRACE_S + 3
"""From SIGTERM (or Ctrl-C) to the process's end, whatever is still running: a thread that
cannot be interrupted (a model call, a browser driver) must not keep a stopped service alive."""


class BoundedServer(uvicorn.Server):
    """A uvicorn server whose process ends within :data:`EXIT_AFTER_S` of a stop signal."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Stop gracefully, and arm the watchdog that ends the process if that overruns."""
        if not self.should_exit:
            watchdog = threading.Timer(EXIT_AFTER_S, _exit_overrun)
            watchdog.daemon = True
            watchdog.start()
        super().handle_exit(sig, frame)


def _exit_overrun() -> None:
    logging.getLogger("citation_verifier.service").error(
        "shutdown overran its grace period: exiting with work still in flight"
    )
    logging.shutdown()
    os._exit(1)


def make_server(app: FastAPI) -> uvicorn.Server:
    """A uvicorn server for ``app``; our own middleware writes the access log."""
    config = uvicorn.Config(
        app,
        access_log=False,
        log_level="warning",
        log_config=None,  # uvicorn logs through the process's handlers (JSON lines in serve)
        lifespan="on",
        timeout_graceful_shutdown=GRACE_S,
    )
    return BoundedServer(config)


class BackgroundServer:
    """Serves ``app`` on 127.0.0.1 at a free port in a daemon thread until :meth:`stop`."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        self._sock = bind(host, port)
        self.url = url_of(self._sock)
        self._server = make_server(app)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def start(self, timeout_s: float = 60.0) -> BackgroundServer:
        """Start serving; returns once the app finished starting (model loaded)."""
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the service did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Shut down gracefully and close the socket."""
        self._server.should_exit = True
        self._thread.join(timeout=15)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
