"""A throwaway PostgreSQL server for the tests: Debian's binaries (``make postgres``), a new
cluster in a temporary folder, listening on a free loopback port only, trust authentication for
its own superuser, stopped and deleted afterwards."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def server_bin_dir() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``: Debian keeps them out of PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise PostgresUnavailable("PostgreSQL is not installed: run `make postgres`")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_owner(command: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root; Debian's package creates the postgres user.
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def _run(command: list[str], log: Path) -> None:
    done = subprocess.run(_as_owner(command), capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        detail = done.stderr.strip() or (log.read_text() if log.exists() else "")
        raise PostgresUnavailable(f"PostgreSQL did not start: {detail.strip()}")


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """Start a new cluster; yields its SQLAlchemy URL (psycopg driver)."""
    bin_dir = server_bin_dir()
    folder = Path(tempfile.mkdtemp(prefix="citation-verifier-pg-"))
    data, log = folder / "data", folder / "server.log"
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    port = _free_port()
    # Durability off: a test cluster is deleted afterwards, and fsync is most of its cost.
    options = (
        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    try:
        initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust"]
        _run([*initdb, "--encoding=UTF8", "--no-sync"], log)
        _run(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(log),
                "-o",
                options,
                "-w",
                "start",
            ],
            log,
        )
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            stop = [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
            subprocess.run(_as_owner(stop), capture_output=True, timeout=60, check=False)
        shutil.rmtree(folder, ignore_errors=True)
