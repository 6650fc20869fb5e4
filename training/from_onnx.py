"""The shipped ONNX checker back as a training checkpoint (``--init-from``): a second stage can
start from the weights that ship without the run that made them.

The export keeps parameter names except for the Linear layers' weights, which it stores
transposed under generated names (``onnx::MatMul_N``); the MatMul node that reads each one is
named after its module (``/encoder/encoder/layer.0/attention/self/query/MatMul``).

Usage: ``python -m training.from_onnx OUT.pt [MODEL.onnx]``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper

from citation_verifier.judge.checker_model import SHIPPED_MODEL
from training.train import build_model


def state_dict_from_onnx(path: Path) -> dict[str, torch.Tensor]:
    """The checker's torch state dict recovered from its ONNX export."""
    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    state: dict[str, torch.Tensor] = {}
    for node in graph.node:
        if node.op_type != "MatMul":
            continue
        for name in node.input:
            if name.startswith("onnx::MatMul_") and name in weights:
                module = node.name.strip("/").removesuffix("/MatMul").replace("/", ".")
                state[f"{module}.weight"] = torch.from_numpy(np.ascontiguousarray(weights[name].T))
    for name, value in weights.items():
        if not name.startswith("onnx::"):
            state[name] = torch.from_numpy(np.array(value))
    return state


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0])
    source = Path(args[1]) if len(args) > 1 else SHIPPED_MODEL
    model = build_model()
    expected = model.state_dict()
    state = state_dict_from_onnx(source)
    for name, tensor in expected.items():  # buffers the export folded away keep their values
        state.setdefault(name, tensor)
    missing = set(expected) - set(state)
    if missing:
        raise SystemExit(f"not in {source}: {sorted(missing)[:5]}")
    model.load_state_dict({k: state[k] for k in expected})
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict()}, out)
    print(f"{out}: {len(expected)} tensors from {source}")


if __name__ == "__main__":
    main()
