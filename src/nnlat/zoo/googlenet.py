"""GoogLeNet: Inception v1 modules of parallel 1x1, 3x3, "5x5" and pool branches.

Szegedy et al., "Going Deeper with Convolutions", CVPR 2015 (arXiv:1409.4842). The layout
follows torchvision's GoogLeNet: every convolution is followed by BatchNorm (eps 1e-3),
the "5x5" branch uses a 3x3 kernel (a quirk torchvision kept for its weights), and the
auxiliary classifiers, used only in training, are left out. The canonical ``googlenet``
matches torchvision's eval-mode model parameter for parameter.

A configuration::

    {"stem_widths": [conv1, conv2 (1x1), conv3], "stem_kernel": int,
     "stages": [[block, ...] for the 3 stages],  # 2, 5 and 2 blocks in GoogLeNet
     "branch_kernels": [kernel of the "3x3" branch, kernel of the "5x5" branch],
     "resolution": int, "num_classes": int}

where a block is ``[c1x1, c3x3_reduce, c3x3, c5x5_reduce, c5x5, pool_proj]`` (output
channels per branch, as in the paper's Table 1). A 3x3 stride-2 max-pool precedes each
stage and a 2x2 one the last.
"""

from __future__ import annotations

import random

import torch
from torch import nn

from nnlat.zoo.blocks import make_divisible
from nnlat.zoo.family import Config, Family

_CANONICAL_STAGES = (
    ((64, 96, 128, 16, 32, 32), (128, 128, 192, 32, 96, 64)),
    (
        (192, 96, 208, 16, 48, 64),
        (160, 112, 224, 24, 64, 64),
        (128, 128, 256, 24, 64, 64),
        (112, 144, 288, 32, 64, 64),
        (256, 160, 320, 32, 128, 128),
    ),
    ((256, 160, 320, 32, 128, 128), (384, 192, 384, 48, 128, 128)),
)


def _conv_bn(cin: int, cout: int, kernel: int, stride: int = 1) -> nn.Sequential:
    """Bias-free "same"-padded convolution, BatchNorm and ReLU (torchvision's BasicConv2d)."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel, stride=stride, padding=kernel // 2, bias=False),
        nn.BatchNorm2d(cout, eps=0.001),
        nn.ReLU(inplace=True),
    )


class Inception(nn.Module):
    """Four parallel branches concatenated along channels."""

    def __init__(self, cin: int, block: list[int], kernels: list[int]) -> None:
        super().__init__()
        c1, c3_reduce, c3, c5_reduce, c5, pool_proj = block
        self.branch1 = _conv_bn(cin, c1, 1)
        self.branch2 = nn.Sequential(
            _conv_bn(cin, c3_reduce, 1), _conv_bn(c3_reduce, c3, kernels[0])
        )
        self.branch3 = nn.Sequential(
            _conv_bn(cin, c5_reduce, 1), _conv_bn(c5_reduce, c5, kernels[1])
        )
        self.branch4 = nn.Sequential(
            nn.MaxPool2d(3, stride=1, padding=1, ceil_mode=True), _conv_bn(cin, pool_proj, 1)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the module to an NCHW tensor."""
        branches = (self.branch1, self.branch2, self.branch3, self.branch4)
        return torch.cat([branch(x) for branch in branches], dim=1)


def build(config: Config) -> nn.Module:
    """Build the GoogLeNet of ``config``.

    Args:
        config: a GoogLeNet configuration (see the module docstring).

    Returns:
        The network, mapping ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    w1, w2, w3 = config["stem_widths"]
    layers: list[nn.Module] = [
        _conv_bn(3, w1, config["stem_kernel"], stride=2),
        nn.MaxPool2d(3, stride=2, ceil_mode=True),
        _conv_bn(w1, w2, 1),
        _conv_bn(w2, w3, 3),
    ]
    cin = w3
    pools = (
        nn.MaxPool2d(3, stride=2, ceil_mode=True),
        nn.MaxPool2d(3, stride=2, ceil_mode=True),
        nn.MaxPool2d(2, stride=2, ceil_mode=True),
    )
    for pool, stage in zip(pools, config["stages"], strict=True):
        layers.append(pool)
        for block in stage:
            layers.append(Inception(cin, block, config["branch_kernels"]))
            cin = block[0] + block[2] + block[4] + block[5]
    layers += [
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(cin, config["num_classes"]),
    ]
    return nn.Sequential(*layers)


def sample(rng: random.Random) -> Config:
    """Draw a GoogLeNet variant: stage depths and widths, branch kernels, stem, resolution.

    A stage of ``d`` blocks reuses GoogLeNet's block shapes for that stage, stretched or
    shrunk to ``d`` blocks, with all branch widths scaled by a per-stage multiplier.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration; most variants stay under about 2 GMACs.
    """
    depth_ranges = ((1, 3), (2, 6), (1, 3))
    stages = []
    for template, (low, high) in zip(_CANONICAL_STAGES, depth_ranges, strict=True):
        depth = rng.randint(low, high)
        scale = rng.choice([0.25, 0.5, 0.75, 1.0])
        blocks = [template[i * len(template) // depth] for i in range(depth)]
        stages.append([[make_divisible(c * scale) for c in block] for block in blocks])
    stem_scale = rng.choice([0.5, 0.75, 1.0])
    return {
        "stem_widths": [make_divisible(c * stem_scale) for c in (64, 64, 192)],
        "stem_kernel": rng.choice([3, 5, 7]),
        "stages": stages,
        "branch_kernels": [rng.choice([3, 5]), rng.choice([3, 5])],
        "resolution": rng.randrange(96, 257, 32),
        "num_classes": 1000,
    }


FAMILY = Family(
    name="googlenet",
    summary="GoogLeNet (Szegedy et al. 2015): Inception v1 with BatchNorm, torchvision layout",
    sample=sample,
    build=build,
    canonical={
        "googlenet": {
            "stem_widths": [64, 64, 192],
            "stem_kernel": 7,
            "stages": [[list(block) for block in stage] for stage in _CANONICAL_STAGES],
            "branch_kernels": [3, 3],
            "resolution": 224,
            "num_classes": 1000,
        },
    },
)
