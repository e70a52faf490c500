"""EfficientNet (Tan & Le, "EfficientNet: Rethinking Model Scaling for Convolutional
Neural Networks", ICML 2019), as in torchvision's ``efficientnet_b0``.

MBConv blocks: inverted residuals with SiLU and squeeze-excite (SiLU inside, sigmoid
gate, bottleneck a quarter of the *block input* width). A configuration is the per-stage
table of :func:`nnlat.zoo.blocks.stage_blocks`, with a per-stage ``se`` flag, plus
``stem_channels``, ``head_channels``, ``resolution`` and ``num_classes``. Variants
scale the widths, add or drop a block per stage, and draw each stage's kernel (3/5/7),
expansion ratio (3/4/6), squeeze-excite on/off and the input resolution — compound
scaling, loosened per stage.
"""

from __future__ import annotations

import random

from torch import nn

from nnlat.zoo.blocks import sample_stage_table, staged_mobilenet
from nnlat.zoo.family import Config, Family

RESOLUTIONS = (96, 128, 160, 192, 224, 256)
WIDTHS = (0.5, 0.75, 1.0, 1.25)
SE_PROBABILITY = 0.75

# The B0 table (the paper's Table 1, stages 2-8).
_CHANNELS = (16, 24, 40, 80, 112, 192, 320)
_BLOCKS = (1, 2, 2, 3, 3, 4, 1)
_STRIDES = (1, 2, 2, 2, 1, 2, 1)

CANONICAL: dict[str, Config] = {
    "efficientnet_b0": {
        "resolution": 224,
        "num_classes": 1000,
        "stem_channels": 32,
        "channels": list(_CHANNELS),
        "blocks": list(_BLOCKS),
        "strides": list(_STRIDES),
        "kernels": [3, 3, 5, 3, 5, 5, 3],
        "expansions": [1, 6, 6, 6, 6, 6, 6],
        "se": [True] * 7,
        "head_channels": 1280,
    },
}


def _se_channels(in_channels: int, expanded: int) -> int:
    """EfficientNet's squeeze width: a quarter of the block's input (not expanded) width."""
    return max(1, in_channels // 4)


def sample(rng: random.Random) -> Config:
    """Draw an EfficientNet variant.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration for :func:`build`.
    """
    width = rng.choice(WIDTHS)
    table = sample_stage_table(
        rng, width, stem_channels=32, channels=_CHANNELS, blocks=_BLOCKS, strides=_STRIDES
    )
    table["se"] = [rng.random() < SE_PROBABILITY for _ in _CHANNELS]
    return {
        "resolution": rng.choice(RESOLUTIONS),
        "num_classes": 1000,
        **table,
        # torchvision's rule: the head is 4x the last stage's width.
        "head_channels": 4 * table["channels"][-1],
    }


def build(config: Config) -> nn.Module:
    """Build the EfficientNet of ``config``.

    Args:
        config: a configuration from :func:`sample` or :data:`CANONICAL`.

    Returns:
        The network; it maps ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    return staged_mobilenet(
        config, activation="silu", se_channels=_se_channels, se_activation="silu"
    )


FAMILY = Family(
    name="efficientnet",
    summary="EfficientNet MBConv with SiLU and squeeze-excite (Tan & Le 2019), B0 layout",
    sample=sample,
    build=build,
    canonical=CANONICAL,
)
