"""SqueezeNet: Fire modules (1x1 squeeze, then parallel 1x1 and 3x3 expands).

Iandola et al., "SqueezeNet: AlexNet-level accuracy with 50x fewer parameters and
<0.5MB model size", arXiv:1602.07360 (2016). The layout follows torchvision: version 1.0
(7x7 stem, pools after Fire 4 and 8) and version 1.1 (3x3 stem, pools after Fire 3 and 5);
both end in a 1x1 convolution to the classes and a global average pool. The canonical
``squeezenet1_0``/``squeezenet1_1`` match torchvision parameter for parameter.

A configuration::

    {"stem_width": int, "stem_kernel": int,
     "stages": [[[squeeze, expand1x1, expand3x3], ...] for the 3 stages],
     "expand_kernel": int,   # kernel of the "3x3" expand branch
     "resolution": int, "num_classes": int}

A 3x3 stride-2 max-pool (ceil mode) precedes every stage.
"""

from __future__ import annotations

import random

import torch
from torch import nn

from nnlat.zoo.blocks import make_divisible
from nnlat.zoo.family import Config, Family


class Fire(nn.Module):
    """Squeeze to few channels with a 1x1 conv, then expand with 1x1 and k x k convs."""

    def __init__(self, cin: int, squeeze: int, expand1: int, expand3: int, kernel: int) -> None:
        super().__init__()
        self.squeeze = nn.Sequential(nn.Conv2d(cin, squeeze, 1), nn.ReLU(inplace=True))
        self.expand1 = nn.Sequential(nn.Conv2d(squeeze, expand1, 1), nn.ReLU(inplace=True))
        self.expand3 = nn.Sequential(
            nn.Conv2d(squeeze, expand3, kernel, padding=kernel // 2), nn.ReLU(inplace=True)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the module to an NCHW tensor."""
        x = self.squeeze(x)
        return torch.cat([self.expand1(x), self.expand3(x)], dim=1)


def build(config: Config) -> nn.Module:
    """Build the SqueezeNet of ``config``.

    Args:
        config: a SqueezeNet configuration (see the module docstring).

    Returns:
        The network, mapping ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    cin = config["stem_width"]
    # torchvision's stem is unpadded, unlike the rest of the network.
    layers: list[nn.Module] = [
        nn.Conv2d(3, cin, config["stem_kernel"], stride=2),
        nn.ReLU(inplace=True),
    ]
    for stage in config["stages"]:
        layers.append(nn.MaxPool2d(3, stride=2, ceil_mode=True))
        for squeeze, expand1, expand3 in stage:
            layers.append(Fire(cin, squeeze, expand1, expand3, config["expand_kernel"]))
            cin = expand1 + expand3
    layers += [
        nn.Dropout(0.5),
        nn.Conv2d(cin, config["num_classes"], 1),
        nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
    ]
    return nn.Sequential(*layers)


def fire_modules(
    depths: list[int], base_e: int, incr_e: int, freq: int, pct_3x3: float, sr: float
) -> list[list[list[int]]]:
    """Fire widths from the SqueezeNet paper's metaparameters (its Section 5).

    Fire module ``i`` (counting from 0 over all stages) expands to
    ``e_i = base_e + incr_e * (i // freq)`` channels, ``pct_3x3`` of them from the k x k
    branch, after squeezing to ``sr * e_i`` channels. Widths are rounded to multiples of 8.

    Args:
        depths: Fire modules per stage.
        base_e: expand channels of the first module.
        incr_e: expand channels added every ``freq`` modules.
        freq: how many modules share a width.
        pct_3x3: fraction of expand channels from the k x k branch.
        sr: squeeze ratio, squeeze channels / expand channels.

    Returns:
        The ``stages`` entry of a configuration.

    Example:
        >>> fire_modules([2, 2, 4], 128, 128, 2, 0.5, 0.125)[0]
        [[16, 64, 64], [16, 64, 64]]
    """
    stages, index = [], 0
    for depth in depths:
        stage = []
        for _ in range(depth):
            expand = base_e + incr_e * (index // freq)
            expand3 = make_divisible(expand * pct_3x3)
            stage.append([make_divisible(expand * sr), make_divisible(expand - expand3), expand3])
            index += 1
        stages.append(stage)
    return stages


def sample(rng: random.Random) -> Config:
    """Draw a SqueezeNet variant from the paper's metaparameter space.

    Varies Fire modules per stage, ``base_e``, ``incr_e``, ``freq``, ``pct_3x3``, the
    squeeze ratio, the expand kernel, the stem and the resolution.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration; most variants stay under about 2 GMACs.
    """
    stages = fire_modules(
        depths=[rng.randint(1, 4) for _ in range(3)],
        base_e=rng.choice([64, 96, 128]),
        incr_e=rng.choice([32, 64, 96, 128]),
        freq=rng.choice([2, 3]),
        pct_3x3=rng.choice([0.25, 0.5, 0.75]),
        sr=rng.choice([0.125, 0.25, 0.375]),
    )
    return {
        "stem_width": rng.choice([32, 48, 64, 96]),
        "stem_kernel": rng.choice([3, 5, 7]),
        "stages": stages,
        "expand_kernel": rng.choice([3, 3, 5]),
        "resolution": rng.randrange(96, 257, 32),
        "num_classes": 1000,
    }


def _canonical(stem_width: int, stem_kernel: int, depths: list[int]) -> Config:
    return {
        "stem_width": stem_width,
        "stem_kernel": stem_kernel,
        "stages": fire_modules(depths, base_e=128, incr_e=128, freq=2, pct_3x3=0.5, sr=0.125),
        "expand_kernel": 3,
        "resolution": 224,
        "num_classes": 1000,
    }


FAMILY = Family(
    name="squeezenet",
    summary="SqueezeNet (Iandola et al. 2016): Fire modules, torchvision versions 1.0 and 1.1",
    sample=sample,
    build=build,
    canonical={
        "squeezenet1_0": _canonical(96, 7, [3, 4, 1]),
        "squeezenet1_1": _canonical(64, 3, [2, 2, 4]),
    },
)
