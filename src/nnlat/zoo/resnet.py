"""ResNet: residual networks of basic (two-conv) or bottleneck (three-conv) blocks.

He et al., "Deep Residual Learning for Image Recognition", CVPR 2016 (arXiv:1512.03385).
The layout follows torchvision's ResNet "v1.5" (a bottleneck strides in its middle
convolution, not its first 1x1), so the canonical ``resnet18``/``resnet34``/``resnet50``
match torchvision parameter for parameter.

A configuration::

    {"block": "basic" | "bottleneck",
     "depths": [blocks per stage] * 4,
     "widths": [inner width per stage] * 4,   # a stage outputs widths[i] * expansion
     "kernel_sizes": [middle-conv kernel per stage] * 4,
     "expansion": 1 for basic, e.g. 4 for bottleneck,
     "stem_width": int, "stem_kernel": int,
     "resolution": int, "num_classes": int}
"""

from __future__ import annotations

import random

import torch
from torch import nn

from nnlat.zoo.blocks import make_divisible
from nnlat.zoo.family import Config, Family

_STAGE_WIDTHS = (64, 128, 256, 512)


def _conv_bn(cin: int, cout: int, kernel: int, stride: int = 1) -> list[nn.Module]:
    """A bias-free "same"-padded convolution followed by BatchNorm."""
    conv = nn.Conv2d(cin, cout, kernel, stride=stride, padding=kernel // 2, bias=False)
    return [conv, nn.BatchNorm2d(cout)]


class BasicBlock(nn.Module):
    """Two k x k convolutions with an identity (or 1x1 projection) shortcut."""

    def __init__(self, cin: int, width: int, stride: int, kernel: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            *_conv_bn(cin, width, kernel, stride),
            nn.ReLU(inplace=True),
            *_conv_bn(width, width, kernel),
        )
        self.shortcut = _shortcut(cin, width, stride)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the block to an NCHW tensor."""
        return self.relu(self.body(x) + self.shortcut(x))


class Bottleneck(nn.Module):
    """1x1 reduce, k x k (strided), 1x1 expand by ``expansion``, plus a shortcut."""

    def __init__(self, cin: int, width: int, stride: int, kernel: int, expansion: int) -> None:
        super().__init__()
        cout = width * expansion
        self.body = nn.Sequential(
            *_conv_bn(cin, width, 1),
            nn.ReLU(inplace=True),
            *_conv_bn(width, width, kernel, stride),
            nn.ReLU(inplace=True),
            *_conv_bn(width, cout, 1),
        )
        self.shortcut = _shortcut(cin, cout, stride)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the block to an NCHW tensor."""
        return self.relu(self.body(x) + self.shortcut(x))


def _shortcut(cin: int, cout: int, stride: int) -> nn.Module:
    """Identity when shapes agree, else a strided 1x1 projection with BatchNorm."""
    if stride == 1 and cin == cout:
        return nn.Identity()
    return nn.Sequential(*_conv_bn(cin, cout, 1, stride))


def build(config: Config) -> nn.Module:
    """Build the ResNet of ``config``.

    Args:
        config: a ResNet configuration (see the module docstring).

    Returns:
        The network, mapping ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.

    Raises:
        ValueError: unknown block type, or a basic block with ``expansion`` other than 1.
    """
    block, expansion = config["block"], config["expansion"]
    if block not in ("basic", "bottleneck"):
        raise ValueError(f"unknown ResNet block {block!r}; expected 'basic' or 'bottleneck'")
    if block == "basic" and expansion != 1:
        raise ValueError("a basic-block ResNet has expansion 1")
    stem = config["stem_width"]
    layers: list[nn.Module] = [
        *_conv_bn(3, stem, config["stem_kernel"], stride=2),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(3, stride=2, padding=1),
    ]
    cin = stem
    stages = zip(config["depths"], config["widths"], config["kernel_sizes"], strict=True)
    for index, (depth, width, kernel) in enumerate(stages):
        for position in range(depth):
            # The first stage follows the stem's max-pool, so only later stages downsample.
            stride = 2 if position == 0 and index > 0 else 1
            if block == "basic":
                layers.append(BasicBlock(cin, width, stride, kernel))
            else:
                layers.append(Bottleneck(cin, width, stride, kernel, expansion))
            cin = width * expansion
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, config["num_classes"])]
    return nn.Sequential(*layers)


def sample(rng: random.Random) -> Config:
    """Draw a ResNet variant: block type, depths, widths, kernels, stem and resolution.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration; most variants stay under about 2 GMACs.
    """
    block = rng.choice(["basic", "bottleneck"])
    # Bottlenecks are ~2x the cost of basic blocks at equal width, so they draw fewer.
    max_depth = 4 if block == "basic" else 3
    return {
        "block": block,
        "depths": [rng.randint(1, max_depth) for _ in _STAGE_WIDTHS],
        "widths": [make_divisible(w * rng.choice([0.25, 0.375, 0.5, 0.75])) for w in _STAGE_WIDTHS],
        "kernel_sizes": [rng.choice([3, 3, 5]) for _ in _STAGE_WIDTHS],
        "expansion": 1 if block == "basic" else rng.choice([2, 3, 4]),
        "stem_width": rng.choice([16, 24, 32, 48, 64]),
        "stem_kernel": rng.choice([3, 5, 7]),
        "resolution": rng.randrange(96, 257, 32),
        "num_classes": 1000,
    }


def _canonical(block: str, depths: list[int]) -> Config:
    return {
        "block": block,
        "depths": depths,
        "widths": list(_STAGE_WIDTHS),
        "kernel_sizes": [3, 3, 3, 3],
        "expansion": 1 if block == "basic" else 4,
        "stem_width": 64,
        "stem_kernel": 7,
        "resolution": 224,
        "num_classes": 1000,
    }


FAMILY = Family(
    name="resnet",
    summary="ResNet (He et al. 2016): basic/bottleneck residual blocks, torchvision layout",
    sample=sample,
    build=build,
    canonical={
        "resnet18": _canonical("basic", [2, 2, 2, 2]),
        "resnet34": _canonical("basic", [3, 4, 6, 3]),
        "resnet50": _canonical("bottleneck", [3, 4, 6, 3]),
    },
)
