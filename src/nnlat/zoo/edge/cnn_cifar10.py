"""CNN-CIFAR10: PerfSAGE's small image-classification design space (§3.2, Table 2).

The paper: "built with the same building blocks as CNN-ImageNet, using 3 blocks instead
of 6. The searchable channel numbers are also uniformly reduced by a factor of 3". The
blocks, nodes and choices are :mod:`nnlat.zoo.edge.cnn_imagenet`'s; the skeleton is ours:

- 32×32 input, 10 classes; the stem is a stride-1 3×3 convolution of 16 channels
  (CIFAR networks do not downsample at the stem);
- three blocks of 16, 32, 64 channels — CNN-ImageNet's blocks 3, 4 and 6 (48, 96, 192)
  divided by 3 — with strides 1, 2, 2 (32 px → 8 px); expanded widths 1–8× as there;
- head: 1×1 convolution to 432 channels (1280 / 3, rounded to a multiple of 16), average
  pooling over the 8×8 map, 1×1 convolution to the classes, reshape.
"""

from __future__ import annotations

import random

from nnlat.zoo.edge import cnn_imagenet
from nnlat.zoo.edge.cnn_imagenet import MBConvConfig, SampleSpace
from nnlat.zoo.edge.space import edge_family

SPACE = SampleSpace(
    resolution=32,
    num_classes=10,
    stem_channels=16,
    stem_stride=1,
    head_channels=432,
    block_channels=(16, 32, 64),
    block_strides=(1, 2, 2),
)


def sample(rng: random.Random) -> MBConvConfig:
    """A uniformly drawn CNN-CIFAR10 network.

    Example:
        >>> config = sample(random.Random(0))
        >>> config.resolution, [b.channels for b in config.blocks]
        (32, [16, 32, 64])
    """
    return cnn_imagenet.sample_space(rng, SPACE)


FAMILY = edge_family(
    name="cnn-cifar10",
    summary="PerfSAGE CNN-CIFAR10: CNN-ImageNet's blocks, 3 blocks, channels ÷ 3, 32 px, int8",
    config_type=MBConvConfig,
    sample=sample,
    network=cnn_imagenet.network,
    keras_name="cnn_mbconv",
    input_shape=cnn_imagenet.input_shape,
    output_shape=cnn_imagenet.output_shape,
)
