"""``citation-verifier mcp``: serve the MCP tools over stdio (what desktop MCP clients launch)
or, with ``--http``, over the streamable HTTP transport."""

from __future__ import annotations

import contextlib
import signal
import sys
from typing import Annotated

import typer

TYPED_IN_A_TERMINAL = (
    "citation-verifier mcp is waiting for an MCP client on standard input: it is meant to be "
    "started by one, not typed. Give your client (Claude Desktop, Cursor, VS Code) the command "
    '"citation-verifier" with the argument "mcp" (README: MCP server), or run '
    "citation-verifier mcp --http to serve it over HTTP. Ctrl-C quits."
)
"""What ``mcp`` on stdio says when standard input is a terminal."""


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
    from citation_verifier.service.server import GRACE_S, BoundedServer, bind, url_of
    from citation_verifier.terminal import ExitCode, fail, load_settings, print_note

    settings = load_settings()
    # Logs go to standard error: on stdio, standard output carries the protocol and nothing
    # else. Configured before the SDK's server is built, so its own default handler stays out.
    log_json_lines(Redactor.from_settings(settings))
    server = create_server(settings)
    if not http:
        from citation_verifier.mcp_server.stdin import mark_invalid_stdin

        if sys.stdin.isatty():  # typed by a person: silence would look like a hang
            print_note(TYPED_IN_A_TERMINAL)
        marked = mark_invalid_stdin()

        def end_input(signum: int, frame: object) -> None:
            # Ctrl-C in a terminal is a normal way to stop a server, as it is for `serve`:
            # end of input ends the transport as a client leaving does (a thread blocked
            # reading a terminal cannot be interrupted). A second Ctrl-C interrupts.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            marked.end()

        signal.signal(signal.SIGINT, end_input)
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
        timeout_graceful_shutdown=GRACE_S,  # open event streams must not hold the exit
    )
    with sock:
        BoundedServer(config).run(sockets=[sock])
