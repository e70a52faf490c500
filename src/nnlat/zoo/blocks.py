"""Inverted-residual building blocks shared by the mobile families.

MobileNetV2, MobileNetV3, MNASNet and EfficientNet are all the same skeleton: a strided
stem convolution, a chain of inverted-residual blocks (1x1 expand, depthwise k x k,
optional squeeze-excite, 1x1 linear projection, identity shortcut when shapes allow), a
1x1 head convolution, global pooling and a classifier. They differ in the activation, the
squeeze-excite flavour and the table of blocks. This module holds that skeleton once:

* :class:`ConvBNAct`, :class:`SqueezeExcite`, :class:`InvertedResidual`, :class:`MobileNet`;
* :class:`BlockSpec`, one block's recipe, and :func:`stage_blocks`, which expands a
  per-stage table (channels, repeats, stride, kernel, expansion) into block specs;
* :func:`sample_stage_table`, the shared way of perturbing such a table when sampling.

Dropout and stochastic depth are left out: both are the identity in eval mode, which is
all that is exported.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from torch import Tensor, nn

ACTIVATIONS: dict[str, type[nn.Module]] = {
    "relu": nn.ReLU,
    "relu6": nn.ReLU6,
    "hardswish": nn.Hardswish,
    "hardsigmoid": nn.Hardsigmoid,
    "silu": nn.SiLU,
    "sigmoid": nn.Sigmoid,
}

# Per-stage width jitter on top of the global multiplier, so stages do not all scale alike.
STAGE_WIDTH_JITTER = (0.75, 1.0, 1.25)


def make_divisible(value: float, divisor: int = 8) -> int:
    """Round a channel count to the nearest multiple of ``divisor`` (the MobileNet rule).

    Never returns less than ``divisor`` nor less than 90 % of ``value``.

    Args:
        value: the unrounded channel count, e.g. ``32 * width_multiplier``.
        divisor: the multiple to round to.

    Returns:
        The rounded channel count.
    """
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    if rounded < 0.9 * value:
        rounded += divisor
    return rounded


class ConvBNAct(nn.Sequential):
    """Conv2d (no bias, "same" padding) + BatchNorm2d + an optional activation."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel: int,
        stride: int = 1,
        groups: int = 1,
        activation: str | None = "relu",
    ) -> None:
        layers: list[nn.Module] = [
            nn.Conv2d(
                in_channels,
                out_channels,
                kernel,
                stride,
                (kernel - 1) // 2,
                groups=groups,
                bias=False,
            ),
            nn.BatchNorm2d(out_channels),
        ]
        if activation is not None:
            layers.append(ACTIVATIONS[activation]())
        super().__init__(*layers)


class SqueezeExcite(nn.Module):
    """Squeeze-and-excitation: rescale channels by a gate computed from their means."""

    def __init__(self, channels: int, squeeze: int, activation: str, gate: str) -> None:
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.act = ACTIVATIONS[activation]()
        self.fc2 = nn.Conv2d(squeeze, channels, 1)
        self.gate = ACTIVATIONS[gate]()

    def forward(self, x: Tensor) -> Tensor:
        return x * self.gate(self.fc2(self.act(self.fc1(self.pool(x)))))


@dataclass(frozen=True)
class BlockSpec:
    """The recipe of one inverted-residual block.

    Attributes:
        in_channels: input channels.
        out_channels: output channels.
        kernel: depthwise kernel size.
        stride: depthwise stride.
        expanded: channels after the 1x1 expansion (no expansion layer if equal to
            ``in_channels``).
        se_channels: squeeze-excite bottleneck width; 0 means no squeeze-excite.
        activation: activation name (a key of :data:`ACTIVATIONS`).
        se_activation: activation inside the squeeze-excite.
        se_gate: the squeeze-excite gate.
    """

    in_channels: int
    out_channels: int
    kernel: int
    stride: int
    expanded: int
    se_channels: int = 0
    activation: str = "relu"
    se_activation: str = "relu"
    se_gate: str = "sigmoid"


class InvertedResidual(nn.Module):
    """Expand (1x1) → depthwise (k x k) → squeeze-excite → project (1x1, linear) + shortcut."""

    def __init__(self, spec: BlockSpec) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        if spec.expanded != spec.in_channels:
            layers.append(ConvBNAct(spec.in_channels, spec.expanded, 1, activation=spec.activation))
        layers.append(
            ConvBNAct(
                spec.expanded,
                spec.expanded,
                spec.kernel,
                spec.stride,
                groups=spec.expanded,
                activation=spec.activation,
            )
        )
        if spec.se_channels:
            layers.append(
                SqueezeExcite(spec.expanded, spec.se_channels, spec.se_activation, spec.se_gate)
            )
        layers.append(ConvBNAct(spec.expanded, spec.out_channels, 1, activation=None))
        self.layers = nn.Sequential(*layers)
        self.residual = spec.stride == 1 and spec.in_channels == spec.out_channels

    def forward(self, x: Tensor) -> Tensor:
        out = self.layers(x)
        return x + out if self.residual else out


class MobileNet(nn.Module):
    """Stem conv (3x3, stride 2) → inverted-residual blocks → 1x1 head conv → pool → classifier.

    Args:
        stem_channels: output channels of the stem convolution.
        blocks: the inverted-residual blocks, in order.
        head_channels: output channels of the 1x1 head convolution.
        num_classes: classifier outputs.
        activation: activation of the stem and head convolutions.
        hidden_channels: if non-zero, the classifier is Linear → activation → Linear with
            this hidden width (MobileNetV3); otherwise a single Linear.
    """

    def __init__(
        self,
        *,
        stem_channels: int,
        blocks: Sequence[BlockSpec],
        head_channels: int,
        num_classes: int,
        activation: str,
        hidden_channels: int = 0,
    ) -> None:
        super().__init__()
        last = blocks[-1].out_channels if blocks else stem_channels
        self.features = nn.Sequential(
            ConvBNAct(3, stem_channels, 3, 2, activation=activation),
            *(InvertedResidual(spec) for spec in blocks),
            ConvBNAct(last, head_channels, 1, activation=activation),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        if hidden_channels:
            self.classifier: nn.Module = nn.Sequential(
                nn.Linear(head_channels, hidden_channels),
                ACTIVATIONS[activation](),
                nn.Linear(hidden_channels, num_classes),
            )
        else:
            self.classifier = nn.Linear(head_channels, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(self.pool(self.features(x)).flatten(1))


def stage_blocks(
    config: dict[str, Any],
    *,
    activation: str,
    se_channels: Callable[[int, int], int] | None = None,
    se_activation: str = "relu",
    se_gate: str = "sigmoid",
) -> list[BlockSpec]:
    """Expand a per-stage table into block specs.

    A stage repeats one block ``blocks[i]`` times; only its first block strides and
    changes the channel count.

    Args:
        config: holds ``stem_channels`` and the per-stage lists ``channels``, ``blocks``,
            ``strides``, ``kernels``, ``expansions`` and optionally ``se`` (booleans).
        activation: activation of every block.
        se_channels: squeeze-excite width as a function of (block input channels,
            expanded channels); required when any ``se`` flag is set.
        se_activation: activation inside the squeeze-excite.
        se_gate: the squeeze-excite gate.

    Returns:
        One spec per block.
    """
    channels = config["channels"]
    se_flags = config.get("se", [False] * len(channels))
    stages = zip(
        channels,
        config["blocks"],
        config["strides"],
        config["kernels"],
        config["expansions"],
        se_flags,
        strict=True,
    )
    specs = []
    in_channels = config["stem_channels"]
    for out_channels, repeats, stride, kernel, expansion, se in stages:
        for i in range(repeats):
            expanded = in_channels * expansion
            if se and se_channels is None:
                raise ValueError("the table asks for squeeze-excite but no se_channels rule")
            squeeze = se_channels(in_channels, expanded) if se and se_channels else 0
            specs.append(
                BlockSpec(
                    in_channels,
                    out_channels,
                    kernel,
                    stride if i == 0 else 1,
                    expanded,
                    squeeze,
                    activation,
                    se_activation,
                    se_gate,
                )
            )
            in_channels = out_channels
    return specs


def staged_mobilenet(config: dict[str, Any], *, activation: str, **block_options: Any) -> MobileNet:
    """The :class:`MobileNet` of a per-stage table configuration (MobileNetV2, MNASNet,
    EfficientNet): stem, :func:`stage_blocks` and head, one activation throughout.

    Args:
        config: ``stem_channels``, the stage table, ``head_channels``, ``num_classes``.
        activation: of every convolution.
        block_options: passed to :func:`stage_blocks` (squeeze-excite settings).
    """
    return MobileNet(
        stem_channels=config["stem_channels"],
        blocks=stage_blocks(config, activation=activation, **block_options),
        head_channels=config["head_channels"],
        num_classes=config["num_classes"],
        activation=activation,
    )


def sample_stage_table(
    rng: random.Random,
    width: float,
    *,
    stem_channels: int,
    channels: Sequence[int],
    blocks: Sequence[int],
    strides: Sequence[int],
    kernels: Sequence[int] = (3, 5, 7),
    expansions: Sequence[int] = (3, 4, 6),
) -> dict[str, Any]:
    """Perturb a base stage table the way the NNLQP variants were drawn.

    Channels scale by ``width`` times a per-stage jitter (rounded to multiples of 8), each
    stage gains or loses a block, and draws its own kernel and expansion ratio. The first
    stage keeps expansion 1 (a depthwise-separable block fed by the stem); strides are kept
    so the resolution schedule is the published one.

    Args:
        rng: the only source of randomness.
        width: global width multiplier.
        stem_channels: base stem width.
        channels: base output channels per stage.
        blocks: base number of blocks per stage.
        strides: stride of each stage's first block.
        kernels: depthwise kernel choices.
        expansions: expansion-ratio choices for stages after the first.

    Returns:
        ``stem_channels``, ``channels``, ``blocks``, ``strides``, ``kernels`` and
        ``expansions``, ready for :func:`stage_blocks`.
    """
    return {
        "stem_channels": make_divisible(stem_channels * width),
        "channels": [make_divisible(c * width * rng.choice(STAGE_WIDTH_JITTER)) for c in channels],
        "blocks": [max(1, n + rng.choice((-1, 0, 1))) for n in blocks],
        "strides": list(strides),
        "kernels": [rng.choice(kernels) for _ in channels],
        "expansions": [1] + [rng.choice(expansions) for _ in channels[1:]],
    }
