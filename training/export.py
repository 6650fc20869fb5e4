"""Export a training checkpoint as the shipped ONNX checker (and an int8 variant to compare).

    .venv-train/bin/python -m training.export training/runs/checker/checkpoint.pt --ship fp32

Writes ``model.onnx`` (float32) and ``model.int8.onnx`` (dynamic int8 quantisation) beside the
checkpoint; ``--ship`` copies the one named (chosen on dev data: docs/CHECKER_MODEL.md) to
``--ship-dir`` as ``checker.onnx`` with its card ``checker.json``. The tokenizer is the base
model's, shipped already as ``citation_verifier/data/all-MiniLM-L6-v2.tokenizer.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import torch

from training.train import Checker

SHIP_DIR = Path(__file__).resolve().parents[1] / "src" / "citation_verifier" / "data" / "checker"


def load_checker(checkpoint: Path) -> Checker:
    """The trained model in eval mode, with eager attention (exportable)."""
    from transformers import BertConfig, BertModel

    from training.train import base_model_dir

    config = BertConfig.from_pretrained(str(base_model_dir()))
    config._attn_implementation = "eager"
    model = Checker(BertModel(config, add_pooling_layer=False))
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    model.load_state_dict(state["model"])
    model.eval()
    return model


def export(model: Checker, path: Path) -> None:
    """ONNX with dynamic batch and sequence axes; inputs as the runtime feeds them."""
    ids = torch.tensor([[101, 2023, 102, 2003, 102]], dtype=torch.long)
    mask = torch.ones_like(ids)
    types = torch.tensor([[0, 0, 0, 1, 1]], dtype=torch.long)
    dynamic = {0: "batch", 1: "tokens"}
    torch.onnx.export(
        model,
        (ids, mask, types),
        str(path),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            "input_ids": dynamic,
            "attention_mask": dynamic,
            "token_type_ids": dynamic,
            "logits": {0: "batch"},
        },
        opset_version=17,
        dynamo=False,
    )


def quantise(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)


def parity(model: Checker, path: Path) -> float:
    """Largest absolute difference between torch's and ONNX Runtime's logits on a real pair."""
    import numpy as np
    import onnxruntime

    from training.train import base_model_dir, encode, pair_tokenizer

    tokenizer = pair_tokenizer(base_model_dir() / "tokenizer.json")
    pairs = [("Water boils at 100 degrees.", "At sea level water boils at 100 degrees Celsius.")]
    ids, mask, types = encode(tokenizer, pairs * 2)
    with torch.no_grad():
        expected = model(ids, mask, types).numpy()
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feeds = {
        "input_ids": ids.numpy(),
        "attention_mask": mask.numpy(),
        "token_type_ids": types.numpy(),
    }
    got = session.run(["logits"], feeds)[0]
    return float(np.abs(got - expected).max())


def ship(source: Path, out: Path, checkpoint: Path) -> None:
    """Copy ``source`` to ``out/checker.onnx`` with its card ``checker.json``."""
    from training.data import LABELS
    from training.train import MAX_TOKENS

    target = out / "checker.onnx"
    target.write_bytes(source.read_bytes())
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    card = {
        "labels": list(LABELS),
        "max_tokens": MAX_TOKENS,
        "sha256": hashlib.sha256(target.read_bytes()).hexdigest(),
        "size": target.stat().st_size,
        "base": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
        "weights": source.name,
        "training_steps": state["step"],
    }
    (out / "checker.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument(
        "--ship", choices=("fp32", "int8"), default=None, help="Copy this one to --ship-dir."
    )
    parser.add_argument("--ship-dir", type=Path, default=SHIP_DIR)
    args = parser.parse_args(argv)
    fp32 = args.checkpoint.parent / "model.onnx"
    int8 = args.checkpoint.parent / "model.int8.onnx"
    model = load_checker(args.checkpoint)
    export(model, fp32)
    print(f"ONNX vs torch: max |logit difference| {parity(model, fp32):.2e}")
    quantise(fp32, int8)
    for path in (fp32, int8):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        print(f"{path}  {path.stat().st_size} bytes  sha256 {digest}")
    if args.ship:
        args.ship_dir.mkdir(parents=True, exist_ok=True)
        ship(fp32 if args.ship == "fp32" else int8, args.ship_dir, args.checkpoint)


if __name__ == "__main__":
    main()
