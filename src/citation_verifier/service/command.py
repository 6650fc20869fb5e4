"""``citation-verifier serve``: run the HTTP service and the web page."""

from __future__ import annotations

import logging
import sys
from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8000,
) -> None:
    """Serve POST /verify, /health, /ready, /metrics and the web page at /."""
    from pydantic import ValidationError

    from citation_verifier.service.app import create_app
    from citation_verifier.service.server import bind, make_server, url_of
    from citation_verifier.settings import Settings

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        settings = Settings()
    except ValidationError as error:
        # Field names and messages only: pydantic's own text would echo the values (secrets).
        problems = "; ".join(
            f"{str(e['loc'][0]).upper() if e['loc'] else 'settings'}: {e['msg']}"
            for e in error.errors()
        )
        typer.echo(f"error: invalid configuration: {problems}", err=True)
        raise typer.Exit(2) from None
    try:
        sock = bind(host, port)
    except OSError as error:
        typer.echo(f"error: cannot listen on {host}:{port}: {error.strerror}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"citation-verifier listening on {url_of(sock)}", err=False)
    sys.stdout.flush()
    server = make_server(create_app(settings))
    with sock:
        server.run(sockets=[sock])
