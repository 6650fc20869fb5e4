"""Replacing a batch output file atomically, through a temporary file only this process made.

The output folder may be shared or hostile: a fixed temporary name (``report.csv.tmp``) can be
planted there as a symlink, and writing through it overwrites whatever it points at. The
temporary file is created exclusively (``O_EXCL``, a random name, mode 0600) beside its target,
so the final rename stays on one file system and nothing planted is ever opened.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _new_file_mode(path: Path) -> int:
    """The mode ``path`` would get from a plain ``open``: its own when it exists, else what the
    umask leaves of 0666 (mkstemp's 0600 would hide a report from the user's group)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        pass
    umask = os.umask(0o077)  # reading the umask means setting it; put straight back
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, lines: Iterable[str] | str) -> None:
    """Replace ``path`` with ``lines`` (UTF-8, written as given): a reader sees the old file or
    the new one, never half of each."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _new_file_mode(path)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        os.fchmod(descriptor, mode)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.writelines([lines] if isinstance(lines, str) else lines)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
