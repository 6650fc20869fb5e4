"""``citation-verifier serve``: run the HTTP service and the web page."""

from __future__ import annotations

import json
import logging
import sys
from typing import Annotated

import typer

from citation_verifier.redaction import RedactingFilter, Redactor


class JsonLines(logging.Formatter):
    """Every log line is one JSON object: the access log's lines are JSON already; any other
    logger's (the service's, uvicorn's, a library's) is wrapped as level, logger and message."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.name == "citation_verifier.access":
            return message
        line = {"level": record.levelname.lower(), "logger": record.name, "message": message}
        if record.exc_text:  # formatted and redacted by the filter
            line["error"] = record.exc_text
        elif record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def log_json_lines(redact: Redactor) -> None:
    """Log INFO and above to standard error as :class:`JsonLines` (standard output stays free:
    the MCP server's stdio transport owns it), every configured secret redacted."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    handler.addFilter(RedactingFilter(redact))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("alembic").setLevel(logging.WARNING)  # migration chatter


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")
    ] = 8000,
) -> None:
    """Serve POST /verify and /check-answer, GET /health, /ready, /metrics and the web page
    at /."""
    from citation_verifier.service.app import create_app
    from citation_verifier.service.server import bind, make_server, url_of
    from citation_verifier.terminal import ExitCode, fail, load_settings

    settings = load_settings()
    log_json_lines(Redactor.from_settings(settings))
    try:
        sock = bind(host, port)
    except OSError as error:
        raise fail(f"cannot listen on {host}:{port}: {error.strerror}", ExitCode.INPUT) from None
    typer.echo(f"citation-verifier listening on {url_of(sock)}", err=False)
    sys.stdout.flush()
    server = make_server(create_app(settings, listen_host=host, warm_up=True))
    with sock:
        server.run(sockets=[sock])
