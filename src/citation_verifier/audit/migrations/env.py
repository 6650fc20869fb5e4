"""Alembic environment: runs on the connection the audit store hands over (never a URL of
its own), so the store's SQLite settings (WAL, busy timeout, BEGIN IMMEDIATE) apply."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from citation_verifier.audit.schema import metadata

_PG_LOCK_KEY = 0x61756474  # "audt": any constant shared by every process migrating this store


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
        if connection.dialect.name == "postgresql":
            # Processes opening a new database at once migrate one after the other (SQLite gets
            # the same from BEGIN IMMEDIATE); the lock ends with the transaction.
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_LOCK_KEY})")
        context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported for the audit store")
run_migrations_online()
