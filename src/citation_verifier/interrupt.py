"""Ctrl-C that ends a run at once: every finished row kept, nothing waited for.

``asyncio.run`` answers Ctrl-C by cancelling the work and then waiting for every worker thread
to finish what it runs (a model load, a generation, an extraction), and so does the
interpreter's exit: tens of seconds in which the run looks hung. Work on a thread cannot be
interrupted, and what it would produce is no longer wanted, so a run interrupted here unwinds
its coroutines (finished rows are already on disk) and the process ends without joining them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Coroutine
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` as :func:`asyncio.run` does. On Ctrl-C, ``main`` is cancelled and
    KeyboardInterrupt raised once it has unwound, without waiting for worker threads: the
    caller reports and ends the process with :func:`exit_now`."""
    runner = asyncio.Runner()
    try:
        result = runner.run(main)
    except KeyboardInterrupt:
        raise  # no runner.close(): it would join the threads still running
    except BaseException:
        runner.close()
        raise
    runner.close()
    return result


def exit_now(code: int) -> NoReturn:
    """End the process with ``code`` now, output flushed: the interpreter's own exit would wait
    for worker threads still busy with abandoned work."""
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)
