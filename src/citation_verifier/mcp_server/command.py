"""``citation-verifier mcp``: serve the MCP tools over stdio (what desktop MCP clients launch)
or, with ``--http``, over the streamable HTTP transport."""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated

import typer


def mcp(
    http: Annotated[
        bool,
        typer.Option(
            "--http", help="Serve the streamable HTTP transport at /mcp instead of stdio."
        ),
    ] = False,
    host: Annotated[str, typer.Option(help="Address to listen on (with --http).")] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(min=0, max=65535, help="Port to listen on (with --http; 0: any free port)."),
    ] = 8765,
) -> None:
    """Serve the tools verify_claim and check_answer to MCP clients (stdio by default)."""
    import anyio
    import uvicorn

    from citation_verifier.mcp_server.server import MCP_PATH, create_server, http_app
    from citation_verifier.redaction import Redactor
    from citation_verifier.service.command import log_json_lines
    from citation_verifier.service.server import bind, url_of
    from citation_verifier.terminal import ExitCode, fail, load_settings

    settings = load_settings()
    # Logs go to standard error: on stdio, standard output carries the protocol and nothing
    # else. Configured before the SDK's server is built, so its own default handler stays out.
    log_json_lines(Redactor.from_settings(settings))
    server = create_server(settings)
    if not http:
        from citation_verifier.mcp_server.stdin import mark_invalid_stdin

        mark_invalid_stdin()
        # Ctrl-C in a terminal is a normal way to stop a server, as it is for `serve`.
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(server.run_stdio_async)
        return
    try:
        sock = bind(host, port)
    except OSError as error:
        raise fail(f"cannot listen on {host}:{port}: {error.strerror}", ExitCode.INPUT) from None
    typer.echo(f"citation-verifier MCP server listening on {url_of(sock)}{MCP_PATH}")
    sys.stdout.flush()
    config = uvicorn.Config(
        http_app(server, settings, host),
        access_log=False,
        log_level="warning",
        log_config=None,  # uvicorn logs through the handler above (JSON lines)
        lifespan="on",
        timeout_graceful_shutdown=5,  # open event streams must not hold the exit
    )
    with sock:
        uvicorn.Server(config).run(sockets=[sock])
