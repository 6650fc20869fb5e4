"""Finding the processes the service started (the browser's, to lower their priority)."""

from __future__ import annotations

import os
import subprocess
import sys

from citation_verifier.fetch.browser_priority import descendants, lower_browser_priority


def test_a_child_and_its_child_are_descendants() -> None:
    # A Python child that starts a `sleep` of its own, then waits.
    code = "import subprocess; subprocess.run(['sleep', '30'])"
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        for _ in range(100):
            found = descendants(child.pid)
            if found:
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert len(found) == 1
        assert child.pid in descendants(os.getpid())
        assert set(found) <= set(descendants(os.getpid()))
        assert lower_browser_priority(5) >= 2
        assert os.getpriority(os.PRIO_PROCESS, child.pid) == 5
        assert os.getpriority(os.PRIO_PROCESS, found[0]) == 5
        assert os.getpriority(os.PRIO_PROCESS, 0) == 0  # this process keeps its own
    finally:
        child.kill()
        child.wait()
