"""Engines for the audit store and its schema migrations.

SQLite (the default) is set up for many concurrent writers: WAL journal (readers never block
the writer), a busy timeout, and ``BEGIN IMMEDIATE`` for write transactions, so a writer takes
the write lock up front and waits for it, instead of failing with "database is locked" when it
tries to upgrade a read lock. Any other SQLAlchemy URL (PostgreSQL, ...) is used as it is.

Each process holds one engine per database (:func:`shared_engine`), whatever the number of
stores open on it: two engines on one SQLite file each keep their own pool and race one
another, and Alembic keeps its migration context in module globals, so two migrations at once
in one process break each other. Engines are keyed by process id too: a forked child never uses
its parent's connections.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from citation_verifier.errors import ConfigurationError

#: Execution option that makes the next transaction on a SQLite connection BEGIN IMMEDIATE.
WRITE = {"audit_write": True}
_MIGRATIONS = Path(__file__).parent / "migrations"


def safe_url(url: str | URL) -> str:
    """The URL with any password masked, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<unparseable URL>"


def _sqlite_setup(engine: Engine, busy_timeout_s: float) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the sqlite3 module (it would BEGIN lazily and DEFERRED);
        # the "begin" hook below emits BEGIN itself.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")  # durable across app crashes under WAL
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        write = connection.get_execution_options().get("audit_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def open_engine(url: str, *, busy_timeout_s: float = 30.0) -> Engine:
    """An engine for ``url``; SQLite files get WAL and their folder is created."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ConfigurationError(f"AUDIT_DB_URL is not a database URL: {safe_url(url)}") from None
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite and parsed.database not in (None, "", ":memory:"):
        folder = Path(parsed.database).expanduser().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigurationError(
                f"cannot create the audit database folder {folder} ({error.strerror}): set "
                "CACHE_DIR or AUDIT_DB_URL to a writable place, or AUDIT_ENABLED=false"
            ) from None
    try:
        engine = create_engine(
            parsed,
            pool_pre_ping=not is_sqlite,
            connect_args={"timeout": busy_timeout_s} if is_sqlite else {},
        )
    except (NoSuchModuleError, ImportError) as error:
        raise ConfigurationError(
            f"AUDIT_DB_URL {safe_url(url)}: database driver not installed ({error}); "
            "for PostgreSQL: pip install 'citation-verifier[postgres]'"
        ) from None
    if is_sqlite:
        _sqlite_setup(engine, busy_timeout_s)
    return engine


def alembic_config(connection: Connection | None = None) -> Any:
    """The Alembic configuration of the shipped migrations (``connection`` is handed to env.py).
    Developers create a new revision with ``alembic.command.revision(alembic_config(), ...)``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    """The newest migration shipped with this version."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    return str(head) if head else None


def current_revision(engine: Engine) -> str | None:
    """The migration the database is at (None for an empty database)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        revision = MigrationContext.configure(connection).get_current_revision()
    return str(revision) if revision else None


def migrate(engine: Engine) -> None:
    """Bring the database to the head revision; a no-op when it is there already. Safe when
    several processes open a new database at once: SQLite migrates under the write lock."""
    from alembic import command

    try:
        if current_revision(engine) == head_revision():
            return
        with engine.connect() as connection:
            connection.execution_options(**WRITE)
            command.upgrade(alembic_config(connection), "head")
            connection.commit()
    except SQLAlchemyError as error:
        raise ConfigurationError(
            f"cannot open the audit database {safe_url(engine.url)}: {type(error).__name__}: "
            f"{getattr(error, 'orig', None) or error}"
        ) from None


@dataclass
class _Shared:
    engine: Engine
    users: int


_ENGINES: dict[tuple[int, str, float], _Shared] = {}
# Held while an engine opens and migrates: also keeps Alembic's global context to one thread.
_ENGINES_LOCK = threading.Lock()


def shared_engine(url: str, *, busy_timeout_s: float = 30.0) -> Engine:
    """This process's engine for ``url``, opened and migrated on first use; every call must be
    matched by :func:`release_engine`."""
    key = (os.getpid(), url, busy_timeout_s)
    with _ENGINES_LOCK:
        shared = _ENGINES.get(key)
        if shared is None:
            engine = open_engine(url, busy_timeout_s=busy_timeout_s)
            try:
                migrate(engine)
            except BaseException:
                engine.dispose()
                raise
            shared = _ENGINES[key] = _Shared(engine, 0)
        shared.users += 1
        return shared.engine


def release_engine(engine: Engine) -> None:
    """One user fewer of ``engine``; the last one disposes of its pool."""
    with _ENGINES_LOCK:
        for key, shared in list(_ENGINES.items()):
            if shared.engine is engine:
                shared.users -= 1
                if shared.users == 0:
                    del _ENGINES[key]
                    engine.dispose()
                return
