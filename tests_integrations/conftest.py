"""The plug-in tests: each framework installed from its package (``make plugins``:
.venv-plugins, and promptfoo under .plugins-node), the embedded checker, pages on 127.0.0.1.
Every example process runs with ``no_network/sitecustomize.py``: a connection beyond loopback
is refused and fails the test."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from citation_verifier.demo.loopback import LoopbackSite
from citation_verifier.demo.site import answer_routes

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "INTEGRATIONS.md"
GUARD = Path(__file__).parent / "no_network"
PROMPTFOO = ROOT / ".plugins-node" / "node_modules" / ".bin" / "promptfoo"
_EXAMPLE = re.compile(r"<!-- example: (?P<name>[\w-]+) -->\n```\w*\n(?P<code>.*?)```", re.S)


def examples() -> dict[str, str]:
    """The page's examples by name (the block after each ``<!-- example: name -->``)."""
    return {m["name"]: m["code"] for m in _EXAMPLE.finditer(DOC.read_text(encoding="utf-8"))}


@dataclass(frozen=True)
class Run:
    """Where an example runs: the pages' base URL, a folder, and the environment."""

    base_url: str
    folder: Path
    env: dict[str, str]
    outbound: Path

    def code(self, name: str) -> str:
        """Example ``name`` with the pages' address put in."""
        return examples()[name].replace("https://example.com", self.base_url)

    def python(self, *names: str) -> subprocess.CompletedProcess[str]:
        """Run the examples ``names`` as one script, in the folder."""
        script = self.folder / "example.py"
        script.write_text("\n".join(self.code(name) for name in names), encoding="utf-8")
        return self.command([sys.executable, str(script)])

    def command(
        self, args: list[str], env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``args`` in the folder (``env``: instead of the run's); the run fails the test
        if it reached beyond loopback."""
        done = subprocess.run(
            args,
            cwd=self.folder,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        outbound = self.outbound.read_text() if self.outbound.exists() else ""
        assert not outbound, f"reached beyond loopback:\n{outbound}\n{done.stderr[-2000:]}"
        return done


@pytest.fixture(scope="session")
def site() -> Iterator[LoopbackSite]:
    with LoopbackSite(answer_routes()) as served:
        yield served


@pytest.fixture
def run(site: LoopbackSite, tmp_path: Path) -> Run:
    home = tmp_path / "home"
    home.mkdir()
    outbound = tmp_path / "outbound.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(GUARD), os.environ.get("PYTHONPATH")])),
        "OUTBOUND_LOG": str(outbound),
        "HOME": str(home),
        "ALLOW_PRIVATE_URLS": "true",
        "JUDGE_PROVIDER": "checker",
        "LANGUAGE_JUDGE": "none",
        "ARCHIVE_FALLBACK": "never",
        "AUDIT_ENABLED": "false",
        "CACHE_DIR": str(tmp_path / "cache"),
        # The frameworks' own calls home, off.
        "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
        "DEEPEVAL_UPDATE_WARNING_OPT_IN": "NO",
        "RAGAS_DO_NOT_TRACK": "true",
        "LANGSMITH_TRACING": "false",
        "LANGSMITH_ENDPOINT": "http://127.0.0.1:9",
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(home / ".promptfoo"),
        "PROMPTFOO_PYTHON": sys.executable,
        "INSPECT_LOG_DIR": str(tmp_path / "inspect-logs"),
    }
    return Run(site.base_url, tmp_path, env, outbound)


@pytest.fixture(scope="session")
def expected(site: LoopbackSite, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """``check-answer --json`` on the examples' answer: what every plug-in must agree with."""
    folder = tmp_path_factory.mktemp("expected")
    namespace: dict[str, str] = {}
    exec(examples()["answer"].replace("https://example.com", site.base_url), namespace)
    path = folder / "answer.md"
    path.write_text(namespace["answer"], encoding="utf-8")
    env = {
        **os.environ,
        "ALLOW_PRIVATE_URLS": "true",
        "JUDGE_PROVIDER": "checker",
        "AUDIT_ENABLED": "false",
        "CACHE_DIR": str(folder / "cache"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "citation_verifier", "check-answer", "--json", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result
