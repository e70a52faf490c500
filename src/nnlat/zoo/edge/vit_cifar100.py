"""ViT-CIFAR100: PerfSAGE's vision-transformer design space (§3.2, Table 2).

The paper: "the vision transformer's main changeable dimensions, such as embedding
dimension, number of heads, query/key/value dimension, MLP ratio, and network depth",
on CIFAR100, with no ranges. Its Table 2 operator list pins the structure down further:
FULLY_CONNECTED, ADD, MUL, POW, TANH, SOFTMAX, RESHAPE, TRANSPOSE, STRIDED_SLICE and
CONCATENATION, and *no* convolution or normalisation operator. So, as there:

- patches are cut by RESHAPE/TRANSPOSE and embedded by a dense layer (no strided conv);
- a class token is concatenated (CONCATENATION) and a position embedding added (ADD);
- attention is written per head: each head's query, key and value are STRIDED_SLICEs of
  one dense qkv projection, ``softmax(q kᵀ · scale) v`` (TRANSPOSE, BATCH_MATMUL, MUL,
  SOFTMAX), and the heads are concatenated before the output projection — which is why
  the operator count grows to Table 2's 994 with depth × heads;
- the MLP uses GELU's tanh approximation written out (POW, MUL, ADD, TANH in the paper);
  today's converter (TensorFlow 2.21) recognises the pattern and emits one GELU operator;
- no LayerNorm (Table 2 lists none of MEAN/SQUARED_DIFFERENCE/RSQRT it would become);
- the class token is sliced out (STRIDED_SLICE) for the dense classifier.

The ranges are ours, sampled uniformly and independently, AutoFormer-style (Chen et al.,
2021: one embedding width and depth, heads, qkv width and MLP ratio per layer):
patch 4 (32×32 → 64 tokens + class token); embedding dim ∈ {64, 128, 192, 256, 384, 512};
depth 1–12; per layer heads ∈ {1, 2, 4, 8}, qkv dim per head ∈ {16, 32, 64}, MLP ratio
∈ {1, 2, 3, 4}.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Self, TypeVar

from nnlat.zoo.edge.net import Net
from nnlat.zoo.edge.space import as_config, edge_family
from nnlat.zoo.family import Config

T = TypeVar("T")

RESOLUTION = 32
PATCH_SIZE = 4
NUM_CLASSES = 100
EMBED_DIMS = (64, 128, 192, 256, 384, 512)
DEPTHS = tuple(range(1, 13))
HEADS = (1, 2, 4, 8)
HEAD_DIMS = (16, 32, 64)
MLP_RATIOS = (1, 2, 3, 4)


@dataclass(frozen=True)
class Layer:
    """One encoder layer: ``heads`` heads of ``head_dim`` qkv width, MLP ``mlp_ratio`` × embed."""

    heads: int
    head_dim: int
    mlp_ratio: int


@dataclass(frozen=True)
class VitConfig:
    """A vision transformer of the space; ``len(layers)`` is its depth."""

    resolution: int
    patch_size: int
    num_classes: int
    embed_dim: int
    layers: tuple[Layer, ...]

    def to_config(self) -> Config:
        """The JSON-able recipe."""
        return as_config(self)

    @classmethod
    def from_config(cls, config: Config) -> Self:
        """Inverse of :meth:`to_config`."""
        return cls(**{**config, "layers": tuple(Layer(**layer) for layer in config["layers"])})


def sample(rng: random.Random) -> VitConfig:
    """A uniformly drawn transformer.

    Example:
        >>> config = sample(random.Random(0))
        >>> config.resolution, config.embed_dim in EMBED_DIMS, len(config.layers) in DEPTHS
        (32, True, True)
    """
    embed_dim = rng.choice(EMBED_DIMS)
    layers = tuple(
        Layer(rng.choice(HEADS), rng.choice(HEAD_DIMS), rng.choice(MLP_RATIOS))
        for _ in range(rng.choice(DEPTHS))
    )
    return VitConfig(
        resolution=RESOLUTION,
        patch_size=PATCH_SIZE,
        num_classes=NUM_CLASSES,
        embed_dim=embed_dim,
        layers=layers,
    )


def network(config: VitConfig, nn: Net[T]) -> T:
    """The network, written against :class:`~nnlat.zoo.edge.net.Net`: ``(1, R, R, 3)``
    NHWC image → ``(1, num_classes)`` logits."""
    side, patch, dim = config.resolution // config.patch_size, config.patch_size, config.embed_dim
    x = nn.input((1, config.resolution, config.resolution, 3))
    x = nn.reshape(x, (1, side, patch, side, patch * 3))
    x = nn.transpose(x, (0, 1, 3, 2, 4))
    x = nn.reshape(x, (1, side * side, patch * patch * 3))
    x = nn.dense(x, dim)
    x = nn.class_token_and_position(x)
    for layer in config.layers:
        x = nn.add(x, _attention(nn, x, layer, dim))
        x = nn.add(x, _mlp(nn, x, layer.mlp_ratio * dim, dim))
    return nn.dense(nn.select(x, 1, 0), config.num_classes)


def input_shape(config: VitConfig) -> tuple[int, ...]:
    """``(1, R, R, 3)``: TFLite images are NHWC."""
    return (1, config.resolution, config.resolution, 3)


def output_shape(config: VitConfig) -> tuple[int, ...]:
    """``(1, num_classes)``."""
    return (1, config.num_classes)


def _attention(nn: Net[T], x: T, layer: Layer, dim: int) -> T:
    """Multi-head self-attention with each head sliced out of one qkv projection."""
    width = layer.heads * layer.head_dim
    qkv = nn.dense(x, 3 * width)
    scale = 1.0 / math.sqrt(layer.head_dim)
    heads = []
    for head in range(layer.heads):
        start = head * layer.head_dim
        q, k, v = (
            nn.slice_last(qkv, offset + start, offset + start + layer.head_dim)
            for offset in (0, width, 2 * width)
        )
        scores = nn.scale(nn.batch_matmul(q, k, transpose_y=True), scale)
        heads.append(nn.batch_matmul(nn.softmax(scores), v))
    out = heads[0] if len(heads) == 1 else nn.concat(heads, axis=-1)
    return nn.dense(out, dim)


def _mlp(nn: Net[T], x: T, hidden: int, dim: int) -> T:
    """Dense, GELU (tanh approximation), dense."""
    return nn.dense(nn.gelu(nn.dense(x, hidden)), dim)


FAMILY = edge_family(
    name="vit-cifar100",
    summary="PerfSAGE ViT-CIFAR100: patch-4 transformers, per-layer heads/qkv/MLP ratio, int8",
    config_type=VitConfig,
    sample=sample,
    network=network,
    keras_name="vit",
    input_shape=input_shape,
    output_shape=output_shape,
)
