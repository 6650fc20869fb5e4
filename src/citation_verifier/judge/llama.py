"""A GGUF instruct model on llama.cpp, asked for label probabilities, not for text.

One forward pass per judgement: the prompt is evaluated and the next-token logits of the three
labels' first tokens are compared, which is what grammar-constrained decoding of the first token
would pick, plus a probability for each label. The fixed part of the prompt (instructions and
worked examples) comes first so llama.cpp's KV cache reuses it across calls: only the evidence
and the claim are paid for.

Models are loaded lazily, once per (path, threads) per process, and shared: llama.cpp contexts
are not thread-safe, so calls on one model are serialised by its lock.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import importlib
import logging
import math
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citation_verifier.errors import ConfigurationError, ModelUnavailableError

if TYPE_CHECKING:
    from llama_cpp import Llama

_CONTEXT_TOKENS = 4096


@dataclass(frozen=True)
class ChatTurn:
    """One message of a chat prompt."""

    role: str  # system, user or assistant
    content: str


def chatml(turns: Sequence[ChatTurn]) -> str:
    """The ChatML text of ``turns``, ending where the assistant's answer starts (Qwen's
    template; other instruct GGUFs mostly accept it too)."""
    body = "".join(f"<|im_start|>{t.role}\n{t.content}<|im_end|>\n" for t in turns)
    return body + "<|im_start|>assistant\n"


class LabelModel:
    """Next-token probabilities of a fixed set of answers, on one loaded model."""

    def __init__(self, model: Llama) -> None:
        self._model = model
        self._lock = threading.Lock()

    def close(self) -> None:
        """Free the model's memory (it cannot be used afterwards)."""
        with self._lock:
            self._model.close()

    def first_tokens(self, answers: Sequence[str]) -> list[int]:
        """The first token of each answer; they must differ."""
        tokenize = self._model.tokenize
        firsts = [tokenize(a.encode(), add_bos=False, special=False)[0] for a in answers]
        if len(set(firsts)) != len(firsts):
            raise ConfigurationError(f"answers {list(answers)} share a first token in this model")
        return firsts

    def token_count(self, text: str) -> int:
        """Tokens ``text`` takes in this model."""
        return len(self._model.tokenize(text.encode(), add_bos=False, special=True))

    def probabilities(self, prompt: str, answers: Sequence[str]) -> tuple[list[float], int]:
        """Softmax over the answers' first-token logits after ``prompt``, and how many prompt
        tokens had to be evaluated (the rest came from the cache)."""
        import numpy as np

        with self._lock:
            ids = self.first_tokens(answers)
            tokens = self._model.tokenize(prompt.encode(), add_bos=False, special=True)
            if len(tokens) >= _CONTEXT_TOKENS:
                raise ValueError(f"prompt of {len(tokens)} tokens exceeds the context")
            cached = self._model.input_ids[: self._model.n_tokens]
            reuse = 0
            for old, new in zip(cached, tokens, strict=False):
                if old != new:
                    break
                reuse += 1
            reuse = min(reuse, len(tokens) - 1)  # at least one token must run to get logits
            self._model.n_tokens = reuse
            self._model.eval(tokens[reuse:])
            # llama-cpp-python keeps only the last row of logits (logits_all=False) in its
            # context, not in ``scores``: read it there.
            context: Any = self._model._ctx
            logits = np.ctypeslib.as_array(context.get_logits(), shape=(self._model.n_vocab(),))
            chosen = [float(logits[i]) for i in ids]
        top = max(chosen)
        weights = [math.exp(v - top) for v in chosen]
        total = sum(weights)
        return [w / total for w in weights], len(tokens) - reuse


_LOADED: dict[tuple[Path, int], LabelModel] = {}
_LOADING = threading.Lock()


def load_label_model(path: Path, threads: int) -> LabelModel:
    """The model at ``path``, loaded on first use and shared by every caller in the process."""
    key = (path.resolve(), threads)
    with _LOADING:
        if key not in _LOADED:
            if not _LOADED:
                # Freed before interpreter shutdown: llama-cpp-python's own finaliser then runs
                # with its modules torn down and prints a traceback at every exit.
                atexit.register(_close_all)
            _LOADED[key] = LabelModel(_load(path, threads))
        return _LOADED[key]


def _close_all() -> None:
    with _LOADING:
        for model in _LOADED.values():
            model.close()
        _LOADED.clear()


# llama.cpp's name for an instruction set it was built with → the Linux /proc/cpuinfo flag.
_CPU_FLAGS = {
    "SSSE3": "ssse3",
    "AVX": "avx",
    "AVX2": "avx2",
    "F16C": "f16c",
    "FMA": "fma",
    "BMI2": "bmi2",
    "AVX512": "avx512f",
    "AVX_VNNI": "avx_vnni",
    "AVX512_VNNI": "avx512_vnni",
}


def missing_cpu_features(system_info: str, cpu_flags: set[str]) -> list[str]:
    """Instruction sets llama.cpp was built with (``llama_print_system_info``) that the CPU,
    by its ``cpu_flags``, lacks: running on it would die of an illegal instruction."""
    built = set()
    for part in system_info.replace("CPU :", "|").split("|"):
        name, _, value = part.partition("=")
        if value.strip() == "1" and name.strip() in _CPU_FLAGS:
            built.add(name.strip())
    return sorted(name for name in built if _CPU_FLAGS[name] not in cpu_flags)


def _cpu_flags() -> set[str] | None:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None  # not Linux: nothing to check against
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return None


def _load(path: Path, threads: int) -> Any:
    try:
        import llama_cpp
        from llama_cpp import Llama
    except ImportError as error:
        raise ModelUnavailableError(
            "the embedded LLM judge needs llama-cpp-python: run `make install`, or "
            "CMAKE_ARGS='-DGGML_NATIVE=OFF' pip install 'citation-verifier[local-llm]' "
            "(or set JUDGE_PROVIDER=lexical)"
        ) from error
    flags = _cpu_flags()
    if flags is not None:
        missing = missing_cpu_features(llama_cpp.llama_print_system_info().decode(), flags)
        if missing:
            raise ModelUnavailableError(
                f"llama-cpp-python was built for {', '.join(missing)}, which this CPU lacks: "
                "reinstall it with CMAKE_ARGS naming only this CPU's features (see the Makefile)"
            )
    try:
        with _output_left_alone(llama_cpp):
            return Llama(
                model_path=str(path),
                n_ctx=_CONTEXT_TOKENS,
                n_batch=512,
                n_threads=threads or os.cpu_count() or 1,
                verbose=False,
            )
    except (ValueError, RuntimeError) as error:
        raise ConfigurationError(f"cannot load the GGUF model {path}: {error}") from error


class _Unsilenced:
    """llama-cpp-python's ``suppress_stdout_stderr``, doing nothing."""

    def __init__(self, disable: bool = True) -> None:
        del disable

    def __enter__(self) -> _Unsilenced:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


@contextlib.contextmanager
def _output_left_alone(llama_cpp: Any) -> Iterator[None]:
    """Load a model without llama-cpp-python pointing the process's stdout and stderr at
    /dev/null meanwhile (its way of keeping llama.cpp quiet): in a threaded program that hid
    every other thread's output for the load's second or two (a service's log lines, the note
    of a batch stopped by Ctrl-C). llama.cpp is kept quiet instead by its log callback, which
    hands its messages to our log at DEBUG: a load that fails raises, with the reason."""
    names = ("llama_cpp.llama", "llama_cpp._internals")
    modules: list[Any] = [importlib.import_module(name) for name in names]
    llama_cpp.llama_log_set(_log_callback(llama_cpp), ctypes.c_void_p(0))
    saved = [module.suppress_stdout_stderr for module in modules]
    for module in modules:
        module.suppress_stdout_stderr = _Unsilenced
    try:
        yield
    finally:
        for module, original in zip(modules, saved, strict=True):
            module.suppress_stdout_stderr = original


@functools.cache
def _log_callback(llama_cpp: Any) -> Any:
    """llama.cpp's log callback (kept alive here: C holds a pointer to it). Even its "errors"
    are notes about the model file ("control-looking token ... probably a bug in the model")."""
    log = logging.getLogger("citation_verifier.llama")

    def forward(level: int, text: bytes, user_data: object) -> None:
        del level, user_data
        log.debug(text.decode("utf-8", "replace").rstrip())

    return llama_cpp.llama_log_callback(forward)
