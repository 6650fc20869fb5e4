"""Weight-space interpolation of two checkpoints of the same checker (WiSE-FT, Wortsman et al.
2022): ``(1 - alpha) * base + alpha * tuned``, parameter by parameter.

A second stage fine-tuned on narrow data (the behavioural suite's train half) learns what it is
shown but drifts on everything else; mixing its weights with those it started from keeps most of
the new skill and most of the old accuracy, at no training cost.

    .venv-train/bin/python -m training.interpolate BASE.pt TUNED.pt ALPHA OUT.pt
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import torch


def interpolate(
    base: dict[str, torch.Tensor], tuned: dict[str, torch.Tensor], alpha: float
) -> dict[str, torch.Tensor]:
    """``(1 - alpha) * base + alpha * tuned`` for every floating tensor; others from ``tuned``."""
    if base.keys() != tuned.keys():
        raise ValueError("the two checkpoints are not the same model")
    return {
        name: torch.lerp(base[name], tuned[name], alpha)
        if tuned[name].is_floating_point()
        else tuned[name]
        for name in tuned
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("tuned", type=Path)
    parser.add_argument("alpha", type=float)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    base = torch.load(args.base, map_location="cpu", weights_only=False)
    tuned = torch.load(args.tuned, map_location="cpu", weights_only=False)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "model": interpolate(base["model"], tuned["model"], args.alpha),
            "step": tuned["step"],
            "interpolation": {
                "base": str(args.base),
                "tuned": str(args.tuned),
                "alpha": args.alpha,
            },
        },
        args.out,
    )
    print(f"{args.out}: alpha {args.alpha}")


if __name__ == "__main__":
    main()
