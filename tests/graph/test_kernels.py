"""Kernel splitting with the fusion rules of NNLQP's Table 8."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from nnlat.graph import kernel_histogram, load, split_kernels


class Block(nn.Module):
    """conv-relu, conv + residual add + relu, conv-relu6, SiLU, linear."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Conv2d(8, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, padding=1)
        self.c = nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.a(x))
        y = torch.relu(self.b(y) + x)
        y = nn.functional.relu6(self.c(y))
        y = y * torch.sigmoid(y)
        return self.fc(y.mean((2, 3)))


def test_fusion_patterns() -> None:
    graph = load(Block(), example_shapes=[(1, 8, 16, 16)])
    kernels = split_kernels(graph)
    histogram = kernel_histogram(kernels)
    assert histogram["Conv+Relu"] == 1
    assert histogram["Conv+Add+Relu"] == 1
    assert histogram["Conv+Clip"] == 1
    assert histogram["Sigmoid+Mul"] == 1
    assert "Gemm" in histogram
    covered = sorted(i for k in kernels for i in k.nodes)
    assert covered == list(range(len(graph.nodes)))  # each node in exactly one kernel


def test_resnet50_kernels(light_resnet50: Path) -> None:
    histogram = kernel_histogram(split_kernels(load(light_resnet50)))
    # 16 bottlenecks: conv-bn-relu ×2 + conv-bn + residual Sum fused with the final Relu? No:
    # the residual Sum reads two convs, so each branch ends in its own kernel.
    assert histogram["Conv+BatchNormalization+Relu"] == 33
    assert sum(histogram.values()) < len(load(light_resnet50).nodes)
