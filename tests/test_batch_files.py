"""Batch outputs are replaced through temporary files created exclusively beside them: a
``.tmp`` name planted in the output folder as a symlink is never written through."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citation_verifier.batch.checkpoint import Checkpoint
from citation_verifier.batch.files import write_atomically
from citation_verifier.cli import app
from citation_verifier.demo.loopback import LoopbackSite, Page, Route

Serve = Callable[[Mapping[str, Route]], LoopbackSite]
PAGE = "<html><body><article><p>Water boils at 100 degrees Celsius at sea level.</p></article></body></html>"


def _plant(folder: Path, names: list[str]) -> Path:
    victim = folder.parent / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    for name in names:
        (folder / name).symlink_to(victim)
    return victim


def test_a_batch_never_writes_through_a_planted_tmp_symlink(
    tmp_path: Path, serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = serve({"/water": Page(PAGE)})
    folder = tmp_path / "out"
    folder.mkdir()
    victim = _plant(
        folder,
        ["report.csv.tmp", "report.csv.checkpoint.jsonl.tmp", "report.html.tmp"],
    )
    inputs = tmp_path / "in.jsonl"
    record = {"id": "a", "claim": "Water boils at 100 degrees.", "urls": [site.url("/water")]}
    inputs.write_text(json.dumps(record) + "\n", encoding="utf-8")
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    out = folder / "report.csv"
    result = CliRunner().invoke(
        app, ["batch", str(inputs), "--out", str(out), "--html", str(folder / "report.html")]
    )
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == "precious"
    assert "Water boils" in out.read_text(encoding="utf-8")
    assert not out.is_symlink() and "<svg" in (folder / "report.html").read_text()


def test_checkpoint_rewrite_never_follows_a_planted_tmp_symlink(tmp_path: Path) -> None:
    victim = _plant(tmp_path, ["run.jsonl.tmp"])
    checkpoint = Checkpoint(tmp_path / "run.jsonl")
    checkpoint.open([])
    checkpoint.close()
    assert victim.read_text(encoding="utf-8") == "precious"
    assert (tmp_path / "run.jsonl").read_text(encoding="utf-8") == ""


def test_atomic_write_keeps_the_mode_a_plain_open_would_give(tmp_path: Path) -> None:
    target = tmp_path / "report.csv"
    write_atomically(target, "a,b\n")
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    target.chmod(0o640)
    write_atomically(target, "c,d\n")
    assert target.stat().st_mode & 0o777 == 0o640 and target.read_text() == "c,d\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.csv"]  # no temporary left
