"""MNASNet (Tan et al., "MnasNet: Platform-Aware Neural Architecture Search for Mobile",
CVPR 2019), the B1 network as in torchvision's ``mnasnet1_0``.

A 3x3 stem, a depthwise-separable block, then six stages of inverted-residual blocks
with ReLU and no squeeze-excite, mixing 3x3 and 5x5 kernels and expansions 3 and 6. The
depthwise-separable block is stage one of the table (expansion 1), so a configuration is
the per-stage table of :func:`nnlat.zoo.blocks.stage_blocks` plus ``stem_channels``,
``head_channels``, ``resolution`` and ``num_classes``. Variants scale the widths (the
depth multiplier alpha), add or drop a block per stage, and draw each stage's kernel
(3/5/7), expansion ratio (3/4/6) and the input resolution.
"""

from __future__ import annotations

import random

from torch import nn

from nnlat.zoo.blocks import sample_stage_table, staged_mobilenet
from nnlat.zoo.family import Config, Family

RESOLUTIONS = (96, 128, 160, 192, 224, 256)
WIDTHS = (0.5, 0.75, 1.0, 1.3)

_CHANNELS = (16, 24, 40, 80, 96, 192, 320)
_BLOCKS = (1, 3, 3, 3, 2, 4, 1)
_STRIDES = (1, 2, 2, 2, 1, 2, 1)

CANONICAL: dict[str, Config] = {
    "mnasnet1_0": {
        "resolution": 224,
        "num_classes": 1000,
        "stem_channels": 32,
        "channels": list(_CHANNELS),
        "blocks": list(_BLOCKS),
        "strides": list(_STRIDES),
        "kernels": [3, 3, 5, 5, 3, 5, 3],
        "expansions": [1, 3, 3, 6, 6, 6, 6],
        "head_channels": 1280,
    },
}


def sample(rng: random.Random) -> Config:
    """Draw an MNASNet variant.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration for :func:`build`.
    """
    width = rng.choice(WIDTHS)
    table = sample_stage_table(
        rng, width, stem_channels=32, channels=_CHANNELS, blocks=_BLOCKS, strides=_STRIDES
    )
    # torchvision keeps the 1280-wide head for every alpha.
    return {
        "resolution": rng.choice(RESOLUTIONS),
        "num_classes": 1000,
        **table,
        "head_channels": 1280,
    }


def build(config: Config) -> nn.Module:
    """Build the MNASNet of ``config``.

    Args:
        config: a configuration from :func:`sample` or :data:`CANONICAL`.

    Returns:
        The network; it maps ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    return staged_mobilenet(config, activation="relu")


FAMILY = Family(
    name="mnasnet",
    summary="MNASNet-B1 inverted residuals found by platform-aware NAS (Tan et al. 2019)",
    sample=sample,
    build=build,
    canonical=CANONICAL,
)
