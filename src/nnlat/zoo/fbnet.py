"""FBNet: the block-wise search space of Wu et al. (CVPR 2019) as HW-NAS-Bench uses it.

HW-NAS-Bench (Li et al., ICLR 2021) and HELP (Lee et al., NeurIPS 2021) measured
architectures of this space on CIFAR-100 (``data/published/fbnet``). The macro
skeleton follows HW-NAS-Bench's ``FBNet_Infer`` for CIFAR (the FBNet-v1 layout with the
first strides set to 1): a 3x3 stem with 16 channels and stride 1, then 22 searchable
layers in stages of (layers, channels, stride) = (1, 16, 1), (4, 24, 1), (4, 32, 2),
(4, 64, 2), (4, 112, 1), (4, 184, 2), (1, 352, 1), a 1x1 head with 1504 channels (1984 for
ImageNet), global average pooling and a Linear classifier. Only the first layer of a
stage changes the channel count and carries the stride.

Each layer is one of :data:`OPS`, ``k{kernel}_e{expansion}[_g2]``: an inverted residual
block (1x1 expansion, kxk depthwise, 1x1 projection, each convolution followed by BN,
the first two by ReLU; ``_g2`` makes both 1x1 convolutions 2-group ones and shuffles the
channels after the expansion, as HW-NAS-Bench does), with an identity shortcut when the
input and output shapes agree. ``skip`` is the identity, or Conv1x1+BN+ReLU where the
layer changes the channel count or the stride. An architecture is written as its op
names joined with ``-`` (``"k5_e6-skip-k3_e1_g2-..."``); the datasets also give the
op indices joined with ``-`` (``"7-8-1-..."``), which :func:`arch_from_indices` converts.
"""

from __future__ import annotations

import random

import torch
from torch import nn

from nnlat.zoo.blocks import ConvBNAct
from nnlat.zoo.family import Config, Family

# The op vocabulary in HW-NAS-Bench's index order (the datasets' op_idx_list).
OPS = ("k3_e1", "k3_e1_g2", "k3_e3", "k3_e6", "k5_e1", "k5_e1_g2", "k5_e3", "k5_e6", "skip")
# (layers, out channels, stride of the first layer) per stage: HW-NAS-Bench's CIFAR setting.
CIFAR_STAGES = (
    (1, 16, 1),
    (4, 24, 1),
    (4, 32, 2),
    (4, 64, 2),
    (4, 112, 1),
    (4, 184, 2),
    (1, 352, 1),
)
NUM_LAYERS = sum(n for n, _, _ in CIFAR_STAGES)


def parse_arch(arch_str: str, num_layers: int | None = NUM_LAYERS) -> list[str]:
    """Split and check a ``-``-joined FBNet architecture of op names.

    Args:
        arch_str: e.g. ``"k5_e6-skip-k3_e1_g2-..."``.
        num_layers: the required number of layers; ``None`` accepts any number.

    Returns:
        The op names, one per searchable layer.

    Raises:
        ValueError: an unknown op name or the wrong number of layers.

    Example:
        >>> parse_arch("k3_e1-skip", num_layers=2)
        ['k3_e1', 'skip']
    """
    ops = arch_str.split("-")
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        raise ValueError(f"FBNet arch {arch_str!r}: unknown ops {unknown}; known: {list(OPS)}")
    if num_layers is not None and len(ops) != num_layers:
        raise ValueError(f"FBNet arch {arch_str!r}: {len(ops)} layers, expected {num_layers}")
    return ops


def arch_from_indices(indices: str) -> str:
    """Convert ``-``-joined op indices (the datasets' ``op_idx_list``) to op names.

    Args:
        indices: e.g. ``"7-8-1"``, each an index into :data:`OPS`.

    Returns:
        The same architecture as op names, e.g. ``"k5_e6-skip-k3_e1_g2"``.

    Raises:
        ValueError: a token is not an integer in ``0..8``.
    """
    names = []
    for token in indices.split("-"):
        if not token.isdigit() or int(token) >= len(OPS):
            raise ValueError(
                f"FBNet op indices {indices!r}: {token!r} is not an index in 0..{len(OPS) - 1}"
            )
        names.append(OPS[int(token)])
    return "-".join(names)


def arch_config(arch_str: str) -> Config:
    """The configuration of an architecture on HW-NAS-Bench's CIFAR-100 skeleton.

    Args:
        arch_str: op names (``"k5_e6-skip-..."``) or op indices (``"7-8-..."``), ``-``-joined,
            22 layers.

    Returns:
        The configuration, with the architecture as op names.

    Raises:
        ValueError: ``arch_str`` is malformed.
    """
    if arch_str.replace("-", "").isdigit():
        arch_str = arch_from_indices(arch_str)
    parse_arch(arch_str)
    return {
        "arch": arch_str,
        "resolution": 32,
        "num_classes": 100,
        "stem_channels": 16,
        "stem_stride": 1,
        "stages": [list(stage) for stage in CIFAR_STAGES],
        "head_channels": 1504,
    }


class ChannelShuffle(nn.Module):
    """ShuffleNet's channel shuffle, so that the two groups of the next conv mix."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) → (N, C, H, W) with channels reordered group-major to group-minor."""
        n, c, h, w = x.shape
        # view/reshape with the traced sizes exports as one constant-shape Reshape each.
        return x.view(n, self.groups, c // self.groups, h, w).transpose(1, 2).reshape(n, c, h, w)


class InvertedResidual(nn.Module):
    """One FBNet block: 1x1 expand, kxk depthwise, 1x1 project, identity shortcut if possible.

    Unlike :class:`nnlat.zoo.blocks.InvertedResidual`, the expansion is kept at expansion
    1 and the 1x1 convolutions may be grouped (with a channel shuffle), as in FBNet.
    """

    def __init__(
        self, c_in: int, c_out: int, stride: int, kernel: int, expansion: int, groups: int
    ) -> None:
        super().__init__()
        mid = c_in * expansion
        layers: list[nn.Module] = [ConvBNAct(c_in, mid, 1, groups=groups)]
        if groups > 1:
            layers.append(ChannelShuffle(groups))
        layers += [
            ConvBNAct(mid, mid, kernel, stride, groups=mid),
            ConvBNAct(mid, c_out, 1, groups=groups, activation=None),
        ]
        self.body = nn.Sequential(*layers)
        self.residual = c_in == c_out and stride == 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """body(x), plus x when the shapes agree."""
        y = self.body(x)
        return y + x if self.residual else y


def layer(op: str, c_in: int, c_out: int, stride: int) -> nn.Module:
    """The module of one searchable layer.

    Args:
        op: a name from :data:`OPS`.
        c_in: input channels.
        c_out: output channels.
        stride: 1 or 2.

    Returns:
        The block; ``skip`` is an identity or, when the shape changes, Conv1x1+BN+ReLU.
    """
    if op == "skip":
        if c_in == c_out and stride == 1:
            return nn.Identity()
        return ConvBNAct(c_in, c_out, 1, stride)
    kernel, expansion, *group = op.split("_")
    return InvertedResidual(
        c_in,
        c_out,
        stride,
        kernel=int(kernel[1:]),
        expansion=int(expansion[1:]),
        groups=int(group[0][1:]) if group else 1,
    )


def build(config: Config) -> nn.Module:
    """Build the network of a configuration (see :func:`arch_config`)."""
    stages = [tuple(stage) for stage in config["stages"]]
    ops = iter(parse_arch(config["arch"], num_layers=sum(n for n, _, _ in stages)))
    width = config["stem_channels"]
    layers: list[nn.Module] = [ConvBNAct(3, width, 3, config["stem_stride"])]
    for count, channels, stride in stages:
        for i in range(count):
            layers.append(layer(next(ops), width, channels, stride if i == 0 else 1))
            width = channels
    layers += [
        ConvBNAct(width, config["head_channels"], 1),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(config["head_channels"], config["num_classes"]),
    ]
    return nn.Sequential(*layers)


def sample(rng: random.Random) -> Config:
    """An architecture with a uniformly random op per layer (9**22 choices)."""
    return arch_config("-".join(rng.choice(OPS) for _ in range(NUM_LAYERS)))


FAMILY = Family(
    name="fbnet",
    summary="FBNet space as in HW-NAS-Bench/HELP: 22 searchable layers, CIFAR-100",
    sample=sample,
    build=build,
    canonical={"fbnet_all_k3_e1": arch_config("-".join(["k3_e1"] * NUM_LAYERS))},
)
