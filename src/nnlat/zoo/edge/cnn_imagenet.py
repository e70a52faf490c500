"""CNN-ImageNet: PerfSAGE's EfficientNet-EdgeTPU-like design space (§3.2, Table 2).

The paper: "6 independent blocks, each of them consisting of 5 nodes choosing over
inverted bottleneck, fused MBConv, and an identity function ... searching over channel
numbers (6 different) and kernel sizes (3×3 and 5×5) in each node, as well as optional
residual connections at the block level", sampled uniformly with independent choices.
*CNN-CIFAR10* (:mod:`nnlat.zoo.edge.cnn_cifar10`) uses the same blocks, so they live here.

Where the paper is silent we chose, after EfficientNet-EdgeTPU-S (Gupta & Akin, 2020):

- stem: 3×3 convolution, stride 2, 32 channels; blocks of 24, 32, 48, 96, 144, 192 output
  channels with strides 1, 2, 2, 2, 1, 2 (224 px → 7 px); head: 1×1 convolution to 1280
  channels, average pooling over the whole 7×7 map, a 1×1 convolution to the 1000 classes
  and a reshape to ``(1, 1000)``. Table 2 lists no FULLY_CONNECTED or MEAN for the CNN
  spaces, hence the pooling layer and the 1×1 classifier.
- per node, the "6 channel numbers" are its *expanded* width: the block's width times
  1, 2, 3, 4, 6 or 8 (EfficientNet-EdgeTPU uses 4 and 8). Block output widths are fixed,
  so every residual is shape-valid.
- the first node of a block carries the block's stride and width change, so it chooses
  only inverted bottleneck or fused MBConv (an identity there cannot change the shape);
  nodes 2–5 choose among all three.
- "residual connections at the block level": one flag per block; when set, every
  non-identity node 2–5 of the block adds its input to its output (ADD).
- inverted bottleneck = 1×1 expand (ReLU), k×k depthwise (ReLU), 1×1 project (linear);
  fused MBConv = k×k convolution (ReLU), 1×1 project (linear). Stride-2 k×k layers are
  explicitly zero-padded (k // 2 on every side) then unpadded ("valid"), which gives
  Table 2's PAD operator. No batch normalisation: the converter folds it into the
  convolution anyway, so the TFLite graph is the same.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Self, TypeVar

from nnlat.zoo.edge.net import Activation, Net, Padding
from nnlat.zoo.edge.space import as_config, edge_family
from nnlat.zoo.family import Config

T = TypeVar("T")

OPS = ("inverted_bottleneck", "fused_mbconv", "identity")
KERNELS = (3, 5)
WIDTH_MULTIPLIERS = (1, 2, 3, 4, 6, 8)
NODES_PER_BLOCK = 5


@dataclass(frozen=True)
class Node:
    """One node of a block.

    Attributes:
        op: one of :data:`OPS`.
        kernel: k of the k×k depthwise (inverted bottleneck) or full (fused) convolution.
        width: expanded (hidden) channels.
    """

    op: str
    kernel: int
    width: int


@dataclass(frozen=True)
class Block:
    """A block: ``channels`` outputs, the first node strided by ``stride``."""

    channels: int
    stride: int
    residual: bool
    nodes: tuple[Node, ...]


@dataclass(frozen=True)
class MBConvConfig:
    """A whole network of the CNN-ImageNet or CNN-CIFAR10 space; every layer is explicit."""

    resolution: int
    num_classes: int
    stem_channels: int
    stem_stride: int
    head_channels: int
    blocks: tuple[Block, ...]

    def to_config(self) -> Config:
        """The JSON-able recipe."""
        return as_config(self)

    @classmethod
    def from_config(cls, config: Config) -> Self:
        """Inverse of :meth:`to_config`."""
        blocks = tuple(
            Block(
                channels=b["channels"],
                stride=b["stride"],
                residual=b["residual"],
                nodes=tuple(Node(**n) for n in b["nodes"]),
            )
            for b in config["blocks"]
        )
        return cls(**{**config, "blocks": blocks})


@dataclass(frozen=True)
class SampleSpace:
    """The fixed skeleton and the choices of one MBConv design space.

    Attributes:
        resolution: input height = width.
        num_classes: classifier outputs.
        stem_channels, stem_stride: the first 3×3 convolution.
        head_channels: the 1×1 convolution before pooling.
        block_channels: output channels of each block.
        block_strides: stride of each block's first node.
        width_multipliers: a node's expanded width is the block's width times one of these.
    """

    resolution: int
    num_classes: int
    stem_channels: int
    stem_stride: int
    head_channels: int
    block_channels: tuple[int, ...]
    block_strides: tuple[int, ...]
    width_multipliers: tuple[int, ...] = WIDTH_MULTIPLIERS


SPACE = SampleSpace(
    resolution=224,
    num_classes=1000,
    stem_channels=32,
    stem_stride=2,
    head_channels=1280,
    block_channels=(24, 32, 48, 96, 144, 192),
    block_strides=(1, 2, 2, 2, 1, 2),
)


def sample_space(rng: random.Random, space: SampleSpace) -> MBConvConfig:
    """Draw every choice of ``space`` uniformly and independently.

    Args:
        rng: the only source of randomness.
        space: the skeleton and choices.

    Returns:
        The network's configuration.
    """
    blocks = []
    for channels, stride in zip(space.block_channels, space.block_strides, strict=True):
        residual = rng.random() < 0.5
        nodes = tuple(
            Node(
                op=rng.choice(OPS if index > 0 else OPS[:2]),
                kernel=rng.choice(KERNELS),
                width=channels * rng.choice(space.width_multipliers),
            )
            for index in range(NODES_PER_BLOCK)
        )
        blocks.append(Block(channels=channels, stride=stride, residual=residual, nodes=nodes))
    return MBConvConfig(
        resolution=space.resolution,
        num_classes=space.num_classes,
        stem_channels=space.stem_channels,
        stem_stride=space.stem_stride,
        head_channels=space.head_channels,
        blocks=tuple(blocks),
    )


def sample(rng: random.Random) -> MBConvConfig:
    """A uniformly drawn CNN-ImageNet network.

    Example:
        >>> config = sample(random.Random(0))
        >>> len(config.blocks), len(config.blocks[0].nodes)
        (6, 5)
    """
    return sample_space(rng, SPACE)


def network(config: MBConvConfig, nn: Net[T]) -> T:
    """The network of a configuration (NHWC input, ``(1, num_classes)`` logits), written
    against :class:`~nnlat.zoo.edge.net.Net` (Keras or the direct int8 writer).

    Raises:
        ValueError: a node's op is not one of :data:`OPS`.
    """
    x = nn.input((1, config.resolution, config.resolution, 3))
    x = _conv(nn, x, config.stem_channels, 3, config.stem_stride, "relu")
    for block in config.blocks:
        for index, node in enumerate(block.nodes):
            stride = block.stride if index == 0 else 1
            y = _node(nn, x, node, block.channels, stride)
            x = nn.add(x, y) if block.residual and index > 0 and y is not x else y
    x = _conv(nn, x, config.head_channels, 1, 1, "relu")
    x = nn.average_pool(x)
    x = _conv(nn, x, config.num_classes, 1, 1, None)
    return nn.reshape(x, (1, config.num_classes))


def input_shape(config: MBConvConfig) -> tuple[int, ...]:
    """``(1, R, R, 3)``: TFLite images are NHWC."""
    return (1, config.resolution, config.resolution, 3)


def output_shape(config: MBConvConfig) -> tuple[int, ...]:
    """``(1, num_classes)``."""
    return (1, config.num_classes)


def _node(nn: Net[T], x: T, node: Node, channels: int, stride: int) -> T:
    """One node; an identity returns ``x`` itself."""
    if node.op == "identity":
        return x
    if node.op == "inverted_bottleneck":
        x = _conv(nn, x, node.width, 1, 1, "relu")
        x = _conv(nn, x, None, node.kernel, stride, "relu")
    elif node.op == "fused_mbconv":
        x = _conv(nn, x, node.width, node.kernel, stride, "relu")
    else:
        raise ValueError(f"unknown node op {node.op!r}; expected one of {', '.join(OPS)}")
    return _conv(nn, x, channels, 1, 1, None)


def _conv(
    nn: Net[T], x: T, filters: int | None, kernel: int, stride: int, activation: Activation
) -> T:
    """A k×k convolution (depthwise when ``filters`` is None), explicitly padded if strided.

    A strided layer is padded by k // 2 on every side, then convolved unpadded, as PyTorch
    and most EdgeTPU model code do. The converter folds an explicit padding equal to
    TensorFlow's asymmetric "same" into the convolution; this symmetric one it keeps as a
    PAD operator, as in PerfSAGE's Table 2.
    """
    padding: Padding = "same"
    if stride > 1 and kernel > 1:
        x = nn.zero_pad(x, kernel // 2)
        padding = "valid"
    if filters is None:
        return nn.depthwise_conv2d(x, (kernel, kernel), stride, padding, activation)
    return nn.conv2d(x, filters, (kernel, kernel), stride, padding, activation)


FAMILY = edge_family(
    name="cnn-imagenet",
    summary="PerfSAGE CNN-ImageNet: EfficientNet-EdgeTPU-like 6×5 MBConv/fused/identity, int8",
    config_type=MBConvConfig,
    sample=sample,
    network=network,
    keras_name="cnn_mbconv",
    input_shape=input_shape,
    output_shape=output_shape,
)
