"""A ``torch.jit.script`` export with control flow (RAFT-like iterative refinement).

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import onnx
import torch
from torch import nn

from nnlat.zoo.realworld.export import export_torchscript, seeded


class _IterativeRefiner(nn.Module):
    """Refines features ``steps`` times (a data-dependent loop), then gates on the mean."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.stem = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, image: torch.Tensor, steps: int) -> torch.Tensor:
        x = self.stem(image)
        y = x
        for _ in range(steps):
            y = torch.relu(self.conv(y)) + x
        # TorchScript turns this into an If node (a ternary would do too, less clearly).
        if bool(y.mean() > 0):  # noqa: SIM108
            y = y * 2.0
        else:
            y = torch.sigmoid(y)
        return y


def scripted_control_flow() -> onnx.ModelProto:
    """A ``torch.jit.script`` export with control flow (RAFT-like iterative refinement).

    ``image`` (N, 3, 32, 32), dynamic batch, and ``steps`` (int64 scalar) → ``Conv`` →
    ``Loop`` whose body runs ``Conv`` + ``Relu`` + ``Add`` (weights read from the outer
    graph) → ``ReduceMean`` + ``Greater`` → ``If`` (then: ``Mul``; else: ``Sigmoid``).
    """
    with seeded():
        module = torch.jit.script(_IterativeRefiner())
    return export_torchscript(
        module,
        (torch.zeros(1, 3, 32, 32), 2),
        opset=13,
        input_names=["image", "steps"],
        output_names=["refined"],
        dynamic_axes={"image": {0: "batch"}},
    )
