"""MobileNetV3 (Howard et al., "Searching for MobileNetV3", ICCV 2019), as in torchvision.

Inverted-residual blocks with per-block kernel, expansion, activation (ReLU or Hardswish)
and optional squeeze-excite (ReLU inside, Hardsigmoid gate, bottleneck a quarter of the
expanded width), a Hardswish stem and head, and a two-layer classifier. The published
tables are per block, so a configuration lists each block: ``kernels``,
``expanded_channels``, ``channels``, ``se``, ``activations``, ``strides``; plus
``stem_channels``, ``head_channels`` (the last 1x1 conv), ``classifier_channels`` (the
hidden Linear), ``resolution`` and ``num_classes``.

Variants start from the Large or Small table, scale the widths, add or drop a block per
stage and draw each stage's kernel (3/5/7), expansion ratio, squeeze-excite on/off and
the input resolution.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from torch import nn

from nnlat.zoo.blocks import STAGE_WIDTH_JITTER, BlockSpec, MobileNet, make_divisible
from nnlat.zoo.family import Config, Family

RESOLUTIONS = (96, 128, 160, 192, 224, 256)
WIDTHS = (0.5, 0.75, 1.0, 1.25)
KERNELS = (3, 5, 7)
EXPANSIONS = (3, 4, 6)


class _Stage(NamedTuple):
    channels: int
    blocks: int
    stride: int
    kernel: int
    se: bool
    activation: str


# The papers' Tables 1 and 2 grouped into stages (a stage = blocks of one output width).
_BASE = {
    "large": (
        _Stage(16, 1, 1, 3, False, "relu"),
        _Stage(24, 2, 2, 3, False, "relu"),
        _Stage(40, 3, 2, 5, True, "relu"),
        _Stage(80, 4, 2, 3, False, "hardswish"),
        _Stage(112, 2, 1, 3, True, "hardswish"),
        _Stage(160, 3, 2, 5, True, "hardswish"),
    ),
    "small": (
        _Stage(16, 1, 2, 3, True, "relu"),
        _Stage(24, 2, 2, 3, False, "relu"),
        _Stage(40, 3, 2, 5, True, "hardswish"),
        _Stage(48, 2, 1, 5, True, "hardswish"),
        _Stage(96, 3, 2, 5, True, "hardswish"),
    ),
}
_CLASSIFIER = {"large": 1280, "small": 1024}
# Too long for one line inside the canonical dict below.
_LARGE_EXPANDED = (16, 64, 72, 72, 120, 120, 240, 200, 184, 184, 480, 672, 672, 960, 960)

CANONICAL: dict[str, Config] = {
    "mobilenet_v3_large": {
        "resolution": 224,
        "num_classes": 1000,
        "stem_channels": 16,
        "kernels": [3, 3, 3, 5, 5, 5, 3, 3, 3, 3, 3, 3, 5, 5, 5],
        "expanded_channels": list(_LARGE_EXPANDED),
        "channels": [16, 24, 24, 40, 40, 40, 80, 80, 80, 80, 112, 112, 160, 160, 160],
        "se": [False] * 3 + [True] * 3 + [False] * 4 + [True] * 5,
        "activations": ["relu"] * 6 + ["hardswish"] * 9,
        "strides": [1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1],
        "head_channels": 960,
        "classifier_channels": 1280,
    },
    "mobilenet_v3_small": {
        "resolution": 224,
        "num_classes": 1000,
        "stem_channels": 16,
        "kernels": [3, 3, 3, 5, 5, 5, 5, 5, 5, 5, 5],
        "expanded_channels": [16, 72, 88, 96, 240, 240, 120, 144, 288, 576, 576],
        "channels": [16, 24, 24, 40, 40, 40, 48, 48, 96, 96, 96],
        "se": [True, False, False] + [True] * 8,
        "activations": ["relu"] * 3 + ["hardswish"] * 8,
        "strides": [2, 2, 1, 2, 1, 1, 1, 1, 2, 1, 1],
        "head_channels": 576,
        "classifier_channels": 1024,
    },
}


def sample(rng: random.Random) -> Config:
    """Draw a MobileNetV3 variant from the Large or Small table.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration for :func:`build`.
    """
    base = rng.choice(sorted(_BASE))
    width = rng.choice(WIDTHS)
    stem = make_divisible(16 * width)
    config: Config = {
        "resolution": rng.choice(RESOLUTIONS),
        "num_classes": 1000,
        "stem_channels": stem,
        "kernels": [],
        "expanded_channels": [],
        "channels": [],
        "se": [],
        "activations": [],
        "strides": [],
    }
    in_channels = stem
    for index, stage in enumerate(_BASE[base]):
        out_channels = make_divisible(stage.channels * width * rng.choice(STAGE_WIDTH_JITTER))
        kernel = rng.choice(KERNELS)
        # The first stage is a depthwise-separable block fed by the stem, as published.
        expansion = 1 if index == 0 else rng.choice(EXPANSIONS)
        se = rng.random() < 0.5
        for i in range(max(1, stage.blocks + rng.choice((-1, 0, 1)))):
            config["kernels"].append(kernel)
            config["expanded_channels"].append(make_divisible(in_channels * expansion))
            config["channels"].append(out_channels)
            config["se"].append(se)
            config["activations"].append(stage.activation)
            config["strides"].append(stage.stride if i == 0 else 1)
            in_channels = out_channels
    # torchvision's rules: the head is 6x the last width, the classifier width scales.
    config["head_channels"] = 6 * in_channels
    config["classifier_channels"] = make_divisible(_CLASSIFIER[base] * width)
    return config


def build(config: Config) -> nn.Module:
    """Build the MobileNetV3 of ``config``.

    Args:
        config: a configuration from :func:`sample` or :data:`CANONICAL`.

    Returns:
        The network; it maps ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    specs = []
    in_channels = config["stem_channels"]
    per_block = zip(
        config["kernels"],
        config["expanded_channels"],
        config["channels"],
        config["se"],
        config["activations"],
        config["strides"],
        strict=True,
    )
    for kernel, expanded, out_channels, se, activation, stride in per_block:
        squeeze = make_divisible(expanded // 4) if se else 0
        specs.append(
            BlockSpec(
                in_channels,
                out_channels,
                kernel,
                stride,
                expanded,
                squeeze,
                activation,
                se_activation="relu",
                se_gate="hardsigmoid",
            )
        )
        in_channels = out_channels
    return MobileNet(
        stem_channels=config["stem_channels"],
        blocks=specs,
        head_channels=config["head_channels"],
        num_classes=config["num_classes"],
        activation="hardswish",
        hidden_channels=config["classifier_channels"],
    )


FAMILY = Family(
    name="mobilenetv3",
    summary="MobileNetV3 Large/Small with Hardswish and squeeze-excite (Howard et al. 2019)",
    sample=sample,
    build=build,
    canonical=CANONICAL,
)
