"""The browser runs at a lower CPU priority than the service that drives it.

On a small machine four renderers can take every core, and the service's own event loop
(``/health``, other users' requests) then waits for the scheduler (measured: /health up to
1.1 s with four JavaScript pages on two cores; 0.08-0.13 s at niceness 10). Linux keeps a
niceness per thread, and Chromium gives some of its threads their own (as root, -8 for its
display threads), so every thread of the Playwright driver and of Chromium's processes is set,
once at launch and again for each new page's renderer. A render is slower only when the CPU is
contended.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

BROWSER_NICENESS = 10


def _children(proc: Path) -> dict[int, list[int]]:
    """Each process id's children, from /proc (Linux only; empty elsewhere)."""
    tree: dict[int, list[int]] = {}
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii", errors="replace")
        except OSError:  # the process ended while we looked
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1].isdigit():
            tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def descendants(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """Every process started (directly or not) by ``pid``."""
    tree = _children(proc)
    found: list[int] = []
    todo = list(tree.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(tree.get(child, []))
    return found


def lower_browser_priority(niceness: int = BROWSER_NICENESS) -> int:
    """Give every thread of every process this one started (the Playwright driver, Chromium
    and its helpers) at least ``niceness``; returns how many threads were changed. Never
    raises: a process that ended, or a system without /proc, leaves things as they were."""
    changed = 0
    for pid in descendants(os.getpid()):
        try:
            threads = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        except OSError:  # ended while we looked
            continue
        for thread in threads:
            with contextlib.suppress(OSError):
                if os.getpriority(os.PRIO_PROCESS, thread) < niceness:
                    os.setpriority(os.PRIO_PROCESS, thread, niceness)
                    changed += 1
    return changed
