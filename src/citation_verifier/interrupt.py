"""Ctrl-C that ends a run at once: every finished row kept, nothing waited for.

``asyncio.run`` answers Ctrl-C by cancelling the work and then waiting for every worker thread
to finish what it runs (a model load, a generation, an extraction), and so does the
interpreter's exit: tens of seconds in which the run looks hung. Work on a thread cannot be
interrupted, and what it would produce is no longer wanted, so a run interrupted here unwinds
its coroutines (finished rows are already on disk) and the process ends without joining them.
The first Ctrl-C only asks for that (it never raises in the middle of other code); a second
one interrupts at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
from collections.abc import Coroutine
from types import FrameType
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` as :func:`asyncio.run` does. On Ctrl-C, ``main`` is cancelled and
    KeyboardInterrupt raised once it has unwound, without waiting for worker threads: the
    caller reports and ends the process with :func:`exit_now`."""
    loop = asyncio.new_event_loop()
    task = loop.create_task(main)
    asked = threading.Event()

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        if asked.is_set():
            raise KeyboardInterrupt  # a second Ctrl-C: now
        asked.set()
        loop.call_soon_threadsafe(task.cancel)

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, on_sigint) if in_main else None
    try:
        result = loop.run_until_complete(task)
    except asyncio.CancelledError:
        if asked.is_set():
            raise KeyboardInterrupt from None  # no loop.close(): it joins the threads
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    if asked.is_set():  # the work ended on its own as the Ctrl-C came: still an interruption
        raise KeyboardInterrupt
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()
    return result


def exit_now(code: int) -> NoReturn:
    """End the process with ``code`` now, output flushed: the interpreter's own exit would wait
    for worker threads still busy with abandoned work."""
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)
