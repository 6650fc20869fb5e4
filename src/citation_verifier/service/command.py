"""``citation-verifier serve``: run the HTTP service and the web page."""

from __future__ import annotations

import logging
import sys
from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")
    ] = 8000,
) -> None:
    """Serve POST /verify, /health, /ready, /metrics and the web page at /."""
    from citation_verifier.service.app import create_app
    from citation_verifier.service.server import bind, make_server, url_of
    from citation_verifier.terminal import ExitCode, fail, load_settings

    settings = load_settings()
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        sock = bind(host, port)
    except OSError as error:
        raise fail(f"cannot listen on {host}:{port}: {error.strerror}", ExitCode.INPUT) from None
    typer.echo(f"citation-verifier listening on {url_of(sock)}", err=False)
    sys.stdout.flush()
    server = make_server(create_app(settings))
    with sock:
        server.run(sockets=[sock])
