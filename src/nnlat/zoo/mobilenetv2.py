"""MobileNetV2 (Sandler et al., "MobileNetV2: Inverted Residuals and Linear Bottlenecks",
CVPR 2018), as in torchvision.

Seven stages of inverted-residual blocks with ReLU6 and no squeeze-excite. A configuration
is the per-stage table (see :func:`nnlat.zoo.blocks.stage_blocks`) plus ``stem_channels``,
``head_channels``, ``resolution`` and ``num_classes``. Variants scale the widths, add or
drop a block per stage, and draw each stage's kernel (3/5/7), expansion ratio (3/4/6) and
the input resolution.
"""

from __future__ import annotations

import random

from torch import nn

from nnlat.zoo.blocks import make_divisible, sample_stage_table, staged_mobilenet
from nnlat.zoo.family import Config, Family

RESOLUTIONS = (96, 128, 160, 192, 224, 256)
WIDTHS = (0.5, 0.75, 1.0, 1.25, 1.4)

# The paper's Table 2: output channels c, repeats n, stride s, expansion t per stage.
_CHANNELS = (16, 24, 32, 64, 96, 160, 320)
_BLOCKS = (1, 2, 3, 4, 3, 3, 1)
_STRIDES = (1, 2, 2, 2, 1, 2, 1)

CANONICAL: dict[str, Config] = {
    "mobilenet_v2": {
        "resolution": 224,
        "num_classes": 1000,
        "stem_channels": 32,
        "channels": list(_CHANNELS),
        "blocks": list(_BLOCKS),
        "strides": list(_STRIDES),
        "kernels": [3] * 7,
        "expansions": [1, 6, 6, 6, 6, 6, 6],
        "head_channels": 1280,
    },
}


def sample(rng: random.Random) -> Config:
    """Draw a MobileNetV2 variant.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration for :func:`build`.
    """
    width = rng.choice(WIDTHS)
    table = sample_stage_table(
        rng, width, stem_channels=32, channels=_CHANNELS, blocks=_BLOCKS, strides=_STRIDES
    )
    return {
        "resolution": rng.choice(RESOLUTIONS),
        "num_classes": 1000,
        **table,
        # torchvision only widens the head, never narrows it.
        "head_channels": make_divisible(1280 * max(1.0, width)),
    }


def build(config: Config) -> nn.Module:
    """Build the MobileNetV2 of ``config``.

    Args:
        config: a configuration from :func:`sample` or :data:`CANONICAL`.

    Returns:
        The network; it maps ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    return staged_mobilenet(config, activation="relu6")


FAMILY = Family(
    name="mobilenetv2",
    summary="MobileNetV2 inverted residuals (Sandler et al. 2018), torchvision layout",
    sample=sample,
    build=build,
    canonical=CANONICAL,
)
