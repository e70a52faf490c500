"""Vision Transformer (Dosovitskiy et al., "An Image is Worth 16x16 Words: Transformers
for Image Recognition at Scale", ICLR 2021), as in torchvision, plus the DeiT sizes
(Touvron et al., "Training data-efficient image transformers", ICML 2021).

Patch embedding by a strided convolution, a class token and learned position embedding,
pre-norm encoder blocks (LayerNorm, multi-head self-attention, LayerNorm, GELU MLP), a final
LayerNorm and a linear head on the class token. Attention is written out (qkv Linear,
reshape, ``q @ k^T``, scale, Softmax, ``@ v``, output Linear) rather than calling
``nn.MultiheadAttention``, so the ONNX graph shows MatMul and Softmax as runtimes see them.

A configuration holds ``resolution``, ``num_classes``, ``patch_size``, ``dim``, ``depth``,
``heads`` and ``mlp_dim``. Variants draw the patch (16/32), resolution, width, depth,
head width (32/64) and MLP ratio (2/3/4), rejecting those over :data:`MAX_MACS`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from nnlat.zoo.family import Config, Family

RESOLUTIONS = (96, 128, 160, 192, 224, 256)  # multiples of both patch sizes
PATCH_SIZES = (16, 32)
DIMS = tuple(range(128, 769, 32))
HEAD_DIMS = (32, 64)
DEPTHS = tuple(range(4, 13))
MLP_RATIOS = (2, 3, 4)
# Keeps a variant timeable on one CPU thread; ViT-B/16 itself (17.6 G) is canonical only.
MAX_MACS = 2.5e9


@dataclass(frozen=True)
class SampleSpace:
    """The choices :func:`sample` draws from; :data:`SPACE` is the default, others smaller.

    Attributes:
        resolutions: image sizes, each a multiple of every patch size.
        patch_sizes, dims, head_dims, depths: architecture choices (each dim a multiple
            of at least one head width).
        num_classes: classifier outputs.
        max_macs: multiply-accumulate budget of a whole network.
    """

    resolutions: tuple[int, ...] = RESOLUTIONS
    patch_sizes: tuple[int, ...] = PATCH_SIZES
    dims: tuple[int, ...] = DIMS
    head_dims: tuple[int, ...] = HEAD_DIMS
    depths: tuple[int, ...] = DEPTHS
    num_classes: int = 1000
    max_macs: float = MAX_MACS


SPACE = SampleSpace()

# torchvision and DeiT use LayerNorm epsilon 1e-6.
_LN_EPS = 1e-6

CANONICAL: dict[str, Config] = {
    "vit_b_16": {
        "resolution": 224,
        "num_classes": 1000,
        "patch_size": 16,
        "dim": 768,
        "depth": 12,
        "heads": 12,
        "mlp_dim": 3072,
    },
    "vit_s_16": {
        "resolution": 224,
        "num_classes": 1000,
        "patch_size": 16,
        "dim": 384,
        "depth": 12,
        "heads": 6,
        "mlp_dim": 1536,
    },
    "vit_ti_16": {
        "resolution": 224,
        "num_classes": 1000,
        "patch_size": 16,
        "dim": 192,
        "depth": 12,
        "heads": 3,
        "mlp_dim": 768,
    },
}


class Attention(nn.Module):
    """Multi-head self-attention over ``(N, tokens, dim)``, written out op by op."""

    def __init__(self, dim: int, heads: int, tokens: int) -> None:
        super().__init__()
        self.heads = heads
        self.tokens = tokens
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Tensor) -> Tensor:
        dim = self.proj.in_features
        # Reshape with constants (-1 for the batch) so the ONNX graph has no Shape ops.
        qkv = self.qkv(x).reshape(-1, self.tokens, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # each (N, heads, tokens, head_dim)
        attention = torch.softmax((q @ k.transpose(-2, -1)) * self.scale, dim=-1)
        out = (attention @ v).transpose(1, 2).reshape(-1, self.tokens, dim)
        return self.proj(out)


class EncoderBlock(nn.Module):
    """Pre-norm transformer block: x + attention(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, dim: int, heads: int, mlp_dim: int, tokens: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=_LN_EPS)
        self.attention = Attention(dim, heads, tokens)
        self.norm2 = nn.LayerNorm(dim, eps=_LN_EPS)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp_dim), nn.GELU(), nn.Linear(mlp_dim, dim))

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VisionTransformer(nn.Module):
    """Patch embedding + class token + position embedding → encoder → head on the class token.

    Args:
        resolution: input height and width, a multiple of ``patch_size``.
        num_classes: head outputs.
        patch_size: side of the square patches.
        dim: token width.
        depth: number of encoder blocks.
        heads: attention heads; must divide ``dim``.
        mlp_dim: hidden width of each block's MLP.
    """

    def __init__(
        self,
        *,
        resolution: int,
        num_classes: int,
        patch_size: int,
        dim: int,
        depth: int,
        heads: int,
        mlp_dim: int,
    ) -> None:
        super().__init__()
        if resolution % patch_size or dim % heads:
            raise ValueError(
                f"resolution {resolution} must be a multiple of patch {patch_size} and "
                f"dim {dim} of heads {heads}"
            )
        tokens = (resolution // patch_size) ** 2 + 1
        self.patch_embed = nn.Conv2d(3, dim, patch_size, patch_size)
        self.class_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embedding = nn.Parameter(torch.zeros(1, tokens, dim))
        self.blocks = nn.Sequential(
            *(EncoderBlock(dim, heads, mlp_dim, tokens) for _ in range(depth))
        )
        self.norm = nn.LayerNorm(dim, eps=_LN_EPS)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls = self.class_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embedding
        return self.head(self.norm(self.blocks(x))[:, 0])


def estimate_macs(config: Config) -> int:
    """Multiply-accumulates of the convolution, Linear layers and attention matmuls.

    Args:
        config: a ViT configuration.

    Returns:
        The MAC count for one image.
    """
    patches = (config["resolution"] // config["patch_size"]) ** 2
    tokens = patches + 1
    dim, mlp_dim = config["dim"], config["mlp_dim"]
    embed = patches * dim * 3 * config["patch_size"] ** 2
    # qkv + proj + two MLP layers per token, plus q @ k^T and attention @ v.
    block = tokens * (4 * dim * dim + 2 * dim * mlp_dim) + 2 * tokens * tokens * dim
    return embed + config["depth"] * block + dim * config["num_classes"]


def sample(rng: random.Random, space: SampleSpace = SPACE) -> Config:
    """Draw a ViT variant of at most ``space.max_macs`` multiply-accumulates.

    Args:
        rng: the only source of randomness.
        space: the choices drawn from.

    Returns:
        A configuration for :func:`build`.
    """
    while True:
        dim = rng.choice(space.dims)
        config: Config = {
            "resolution": rng.choice(space.resolutions),
            "num_classes": space.num_classes,
            "patch_size": rng.choice(space.patch_sizes),
            "dim": dim,
            "depth": rng.choice(space.depths),
            "heads": dim // rng.choice([d for d in space.head_dims if dim % d == 0]),
            "mlp_dim": dim * rng.choice(MLP_RATIOS),
        }
        if estimate_macs(config) <= space.max_macs:
            return config


def build(config: Config) -> nn.Module:
    """Build the Vision Transformer of ``config``.

    Args:
        config: a configuration from :func:`sample` or :data:`CANONICAL`.

    Returns:
        The network; it maps ``(N, 3, R, R)`` images to ``(N, num_classes)`` logits.
    """
    return VisionTransformer(**config)


FAMILY = Family(
    name="vit",
    summary="Vision Transformer with explicit attention (Dosovitskiy et al. 2021; DeiT sizes)",
    sample=sample,
    build=build,
    canonical=CANONICAL,
)
