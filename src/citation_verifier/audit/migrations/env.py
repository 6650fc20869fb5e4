"""Alembic environment: runs on the connection the audit store hands over (never a URL of
its own), so the store's SQLite settings (WAL, busy timeout, BEGIN IMMEDIATE) apply."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from citation_verifier.audit.schema import metadata


def run_migrations_online() -> None:
    """Migrate on ``config.attributes["connection"]``."""
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError("the audit migrations run through citation_verifier.audit.database")
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite ALTER needs batch mode
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported for the audit store")
run_migrations_online()
