"""Dense-prediction encoder-decoders: U-Net-like segmenters and FPN detectors.

The classification families never produce the operators of segmentation and detection
models; this family does. An encoder of 3–5 stages (a strided 3x3 ConvBNAct, then 1–3
blocks: plain 3x3 conv, depthwise-separable, or inverted residual) feeds one of two
decoders:

* ``unet`` (Ronneberger et al. 2015, with padded convolutions): from the deepest stage up
  to stride 2, each level upsamples by ``ConvTranspose`` (2x2, stride 2) or a ``Resize``
  (nearest or bilinear, scale 2), ``Concat``-enates the encoder skip and applies conv
  blocks; a 1x1 classifier gives ``(1, num_classes, R/2, R/2)``, optionally resized
  bilinearly to the input size ``(R, R)``.
* ``fpn`` (Lin et al. 2017, as in torchvision): 1x1 lateral convs on the deepest 2–3
  stages, a top-down path of ``Resize`` to the lateral's size + ``Add``, 3x3 output
  convs, and per-level (or one shared) heads of 0–2 ConvBNAct layers, a 4-channel box and
  a ``num_classes`` class predictor (optionally through ``Sigmoid``). Each level's
  ``[box, class]`` map is flattened and the levels concatenated, as YOLO-style detectors
  export: ``(1, 4 + num_classes, sum of H*W over levels)``.

One activation per model: ReLU, HardSwish, SiLU (``Sigmoid`` + ``Mul``), GELU (``Erf``
in opset 17) or LeakyReLU (slope 0.1, as in YOLOv3).

A configuration holds ``resolution`` (a multiple of 32), ``num_classes``, ``activation``,
``stages`` (one dict per stage: ``channels``, ``blocks``, ``block``, ``kernel``,
``expansion``) and ``decoder`` (``kind`` plus that kind's keys; see :func:`sample`).
Samples over :data:`MAX_MACS` (:func:`estimate_macs`) are redrawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 (the usual alias)
from torch import Tensor, nn

from nnlat.zoo.blocks import BlockSpec, ConvBNAct, InvertedResidual, make_divisible
from nnlat.zoo.family import Config, Family

RESOLUTIONS = tuple(range(128, 513, 32))
MAX_CLASSES = 100
ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "relu": nn.ReLU,
    "hardswish": nn.Hardswish,
    "silu": nn.SiLU,
    "gelu": nn.GELU,
    "leakyrelu": lambda: nn.LeakyReLU(0.1),
}
NUM_STAGES = (3, 4, 5)
BLOCK_KINDS = ("plain", "dwsep", "inverted")
BLOCKS_PER_STAGE = (1, 2, 3)
FIRST_CHANNELS = (16, 24, 32, 48, 64)
CHANNEL_GROWTH = (1.0, 1.5, 2.0)  # stage-to-stage width ratio
MAX_CHANNELS = 256
KERNELS = (3, 5)  # depthwise kernels; plain convs are 3x3
EXPANSIONS = (2, 4, 6)
DECODERS = ("unet", "fpn")
UPSAMPLES = ("convtranspose", "nearest", "bilinear")
DECODER_WIDTHS = (0.5, 1.0)  # U-Net level width relative to its encoder skip
FPN_CHANNELS = (32, 48, 64, 96, 128, 160, 192, 256)
# Keeps a variant well under a second on one CPU thread.
MAX_MACS = 2_000_000_000

CANONICAL: dict[str, Config] = {
    # Reference designs of our own, not published models: a four-level U-Net-like
    # segmenter and a MobileNet-like FPN detector.
    "unet_small": {
        "resolution": 256,
        "num_classes": 2,
        "activation": "relu",
        "stages": [
            {"channels": c, "blocks": 2, "block": "plain", "kernel": 3, "expansion": 1}
            for c in (16, 32, 64, 128)
        ],
        "decoder": {
            "kind": "unet",
            "upsample": "convtranspose",
            "channels": [16, 32, 64],
            "blocks": 2,
            "block": "plain",
            "final_resize": True,
        },
    },
    "fpn_detector": {
        "resolution": 320,
        "num_classes": 80,
        "activation": "hardswish",
        "stages": [
            {"channels": c, "blocks": n, "block": "inverted", "kernel": k, "expansion": 4}
            for c, n, k in ((16, 1, 3), (24, 2, 3), (40, 2, 5), (80, 3, 3), (160, 2, 5))
        ],
        "decoder": {
            "kind": "fpn",
            "levels": 3,
            "channels": 96,
            "upsample": "nearest",
            "heads": "shared",
            "head_convs": 2,
            "predictor_kernel": 3,
            "sigmoid": True,
        },
    },
}


def _block(kind: str, c_in: int, c_out: int, kernel: int, expansion: int) -> nn.Module:
    """One conv block; its activations are ReLU placeholders (see :func:`_set_activation`)."""
    if kind == "plain":
        return ConvBNAct(c_in, c_out, kernel)
    if kind == "dwsep":
        return nn.Sequential(ConvBNAct(c_in, c_in, kernel, groups=c_in), ConvBNAct(c_in, c_out, 1))
    return InvertedResidual(BlockSpec(c_in, c_out, kernel, 1, c_in * expansion))


def _block_macs(kind: str, c_in: int, c_out: int, kernel: int, expansion: int) -> int:
    """Multiply-accumulates of :func:`_block` per output pixel."""
    if kind == "plain":
        return c_in * c_out * kernel * kernel
    if kind == "dwsep":
        return c_in * kernel * kernel + c_in * c_out
    expanded = c_in * expansion
    return c_in * expanded + expanded * kernel * kernel + expanded * c_out


def _set_activation(module: nn.Module, activation: str) -> None:
    """Replace every ReLU placeholder by ``activation``.

    blocks.ConvBNAct and InvertedResidual know no GELU or LeakyReLU, so the network is
    built with ReLU and the chosen activation swapped in afterwards.
    """
    if activation == "relu":
        return
    placeholders = [
        (parent, name)
        for parent in module.modules()
        for name, child in parent.named_children()
        if isinstance(child, nn.ReLU)
    ]
    for parent, name in placeholders:
        setattr(parent, name, ACTIVATIONS[activation]())


class Encoder(nn.Module):
    """Stages of a strided 3x3 ConvBNAct then blocks; returns every stage's output."""

    def __init__(self, stages: list[dict[str, Any]]) -> None:
        super().__init__()
        self.stages = nn.ModuleList()
        c_in = 3
        for stage in stages:
            c = stage["channels"]
            blocks = (
                _block(stage["block"], c, c, stage["kernel"], stage["expansion"])
                for _ in range(stage["blocks"])
            )
            self.stages.append(nn.Sequential(ConvBNAct(c_in, c, 3, 2), *blocks))
            c_in = c

    def forward(self, x: Tensor) -> list[Tensor]:
        features = []
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        return features


class UNetUp(nn.Module):
    """Upsample the deeper map x2, concatenate the skip, then conv blocks."""

    def __init__(
        self, c_deep: int, c_skip: int, c_out: int, upsample: str, block: str, blocks: int
    ) -> None:
        super().__init__()
        if upsample == "convtranspose":
            self.up: nn.Module = nn.ConvTranspose2d(c_deep, c_out, 2, 2)
            c_cat = c_out + c_skip
        else:
            self.up = nn.Upsample(scale_factor=2, mode=upsample)
            c_cat = c_deep + c_skip
        self.convs = nn.Sequential(
            _block(block, c_cat, c_out, 3, 1),
            *(_block(block, c_out, c_out, 3, 1) for _ in range(blocks - 1)),
        )

    def forward(self, deep: Tensor, skip: Tensor) -> Tensor:
        return self.convs(torch.cat([self.up(deep), skip], dim=1))


class UNet(nn.Module):
    """Encoder, :class:`UNetUp` levels up to stride 2, 1x1 classifier, optional resize."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        stages, decoder = config["stages"], config["decoder"]
        self.encoder = Encoder(stages)
        widths = decoder["channels"]  # one per level, shallowest first
        self.ups = nn.ModuleList()
        c_deep = stages[-1]["channels"]
        for level in reversed(range(len(stages) - 1)):
            skip = stages[level]["channels"]
            self.ups.append(
                UNetUp(
                    c_deep,
                    skip,
                    widths[level],
                    decoder["upsample"],
                    decoder["block"],
                    decoder["blocks"],
                )
            )
            c_deep = widths[level]
        self.classifier = nn.Conv2d(c_deep, config["num_classes"], 1)
        self.final_resize = decoder["final_resize"]

    def forward(self, x: Tensor) -> Tensor:
        *skips, deep = self.encoder(x)
        for up, skip in zip(self.ups, reversed(skips), strict=True):
            deep = up(deep, skip)
        out = self.classifier(deep)
        if self.final_resize:
            out = F.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)
        return out


class DetectionHead(nn.Module):
    """0–n ConvBNAct layers, then box (4) and class predictors, concatenated."""

    def __init__(
        self, channels: int, convs: int, num_classes: int, kernel: int, sigmoid: bool
    ) -> None:
        super().__init__()
        self.convs = nn.Sequential(*(ConvBNAct(channels, channels, 3) for _ in range(convs)))
        self.box = nn.Conv2d(channels, 4, kernel, padding=kernel // 2)
        self.cls = nn.Conv2d(channels, num_classes, kernel, padding=kernel // 2)
        self.sigmoid = sigmoid

    def forward(self, x: Tensor) -> Tensor:
        x = self.convs(x)
        scores = self.cls(x)
        if self.sigmoid:
            scores = torch.sigmoid(scores)
        return torch.cat([self.box(x), scores], dim=1)


class FPNDetector(nn.Module):
    """Encoder, FPN over its deepest stages, heads, predictions flattened and concatenated."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        stages, decoder = config["stages"], config["decoder"]
        self.encoder = Encoder(stages)
        self.levels = decoder["levels"]
        width = decoder["channels"]
        used = [stage["channels"] for stage in stages[-self.levels :]]
        self.laterals = nn.ModuleList(nn.Conv2d(c, width, 1) for c in used)
        self.outputs = nn.ModuleList(nn.Conv2d(width, width, 3, padding=1) for _ in used)
        self.mode = decoder["upsample"]
        heads = 1 if decoder["heads"] == "shared" else self.levels
        self.heads = nn.ModuleList(
            DetectionHead(
                width,
                decoder["head_convs"],
                config["num_classes"],
                decoder["predictor_kernel"],
                decoder["sigmoid"],
            )
            for _ in range(heads)
        )

    def forward(self, x: Tensor) -> Tensor:
        features = self.encoder(x)[-self.levels :]
        laterals = [lateral(f) for lateral, f in zip(self.laterals, features, strict=True)]
        top = laterals[-1]
        maps = [self.outputs[-1](top)]
        for level in reversed(range(self.levels - 1)):
            lateral = laterals[level]
            # To the lateral's size, as torchvision's FPN does: a Resize with sizes.
            top = lateral + F.interpolate(top, size=lateral.shape[-2:], mode=self.mode)
            maps.insert(0, self.outputs[level](top))
        heads = self.heads if len(self.heads) == self.levels else [self.heads[0]] * self.levels
        return torch.cat([head(m).flatten(2) for head, m in zip(heads, maps, strict=True)], 2)


def validate(config: Config) -> None:
    """Check that a configuration describes a buildable network.

    Raises:
        ValueError: an unknown activation, block or decoder, a resolution the encoder
            does not divide, or decoder sizes that do not match the encoder.
    """
    stages, decoder = config["stages"], config["decoder"]
    if config["activation"] not in ACTIVATIONS:
        raise ValueError(f"unknown activation {config['activation']!r}; known: {[*ACTIVATIONS]}")
    if any(stage["block"] not in BLOCK_KINDS for stage in stages):
        raise ValueError(f"unknown block in {stages}; known: {BLOCK_KINDS}")
    if len(stages) < 2 or config["resolution"] % 2 ** len(stages):
        raise ValueError(
            f"{len(stages)} stages need >= 2 and to divide resolution {config['resolution']}"
        )
    if decoder["kind"] == "unet":
        if len(decoder["channels"]) != len(stages) - 1:
            raise ValueError("a unet decoder needs one width per stage but the deepest")
    elif decoder["kind"] == "fpn":
        if not 2 <= decoder["levels"] <= len(stages):
            raise ValueError(f"fpn levels {decoder['levels']} not in 2..{len(stages)}")
    else:
        raise ValueError(f"unknown decoder {decoder['kind']!r}; known: {DECODERS}")


def output_shape(config: Config) -> tuple[int, ...]:
    """The batch-1 output shape: a class map (``unet``) or flattened predictions (``fpn``).

    Example:
        >>> output_shape(CANONICAL["fpn_detector"])  # 40² + 20² + 10² positions
        (1, 84, 2100)
    """
    resolution, decoder = config["resolution"], config["decoder"]
    if decoder["kind"] == "unet":
        size = resolution if decoder["final_resize"] else resolution // 2
        return (1, config["num_classes"], size, size)
    strides = [2 ** (i + 1) for i in range(len(config["stages"]))][-decoder["levels"] :]
    positions = sum((resolution // stride) ** 2 for stride in strides)
    return (1, 4 + config["num_classes"], positions)


def build(config: Config) -> nn.Module:
    """Build the network of ``config``.

    Args:
        config: a configuration from :func:`sample` or :data:`CANONICAL`.

    Returns:
        The network. A ``unet`` maps ``(N, 3, R, R)`` to ``(N, num_classes, R/2, R/2)``
        (``(R, R)`` with ``final_resize``); an ``fpn`` to ``(N, 4 + num_classes, P)``, P
        the positions of all levels (see :func:`output_shape`).

    Raises:
        ValueError: the configuration is invalid (see :func:`validate`).

    Example:
        >>> net = build(CANONICAL["unet_small"])
        >>> net(torch.zeros(1, 3, 64, 64)).shape
        torch.Size([1, 2, 64, 64])
    """
    validate(config)
    net = UNet(config) if config["decoder"]["kind"] == "unet" else FPNDetector(config)
    _set_activation(net, config["activation"])
    return net


def estimate_macs(config: Config) -> int:
    """Multiply-accumulates of every Conv and ConvTranspose, as nnlat.graph.cost counts them.

    Args:
        config: a segnet configuration.

    Returns:
        The count for one image (resizes, additions and activations are not counted).

    Example:
        >>> estimate_macs(CANONICAL["unet_small"]) > 0
        True
    """
    stages, decoder = config["stages"], config["decoder"]
    sizes = [config["resolution"] // 2 ** (i + 1) for i in range(len(stages))]
    total, c_in = 0, 3
    for stage, size in zip(stages, sizes, strict=True):
        c = stage["channels"]
        per_pixel = c_in * c * 9 + stage["blocks"] * _block_macs(
            stage["block"], c, c, stage["kernel"], stage["expansion"]
        )
        total += per_pixel * size * size
        c_in = c
    if decoder["kind"] == "unet":
        c_deep = stages[-1]["channels"]
        for level in reversed(range(len(stages) - 1)):
            c_out, c_skip = decoder["channels"][level], stages[level]["channels"]
            pixels = sizes[level] ** 2
            if decoder["upsample"] == "convtranspose":
                total += c_deep * c_out * pixels  # 2x2 kernel over a quarter of the pixels
                c_cat = c_out + c_skip
            else:
                c_cat = c_deep + c_skip
            block = decoder["block"]
            per_pixel = _block_macs(block, c_cat, c_out, 3, 1)
            per_pixel += (decoder["blocks"] - 1) * _block_macs(block, c_out, c_out, 3, 1)
            total += per_pixel * pixels
            c_deep = c_out
        return total + c_deep * config["num_classes"] * sizes[0] ** 2
    width, k = decoder["channels"], decoder["predictor_kernel"]
    levels = decoder["levels"]
    for stage, size in zip(stages[-levels:], sizes[-levels:], strict=True):
        per_pixel = stage["channels"] * width + width * width * 9  # lateral, output conv
        per_pixel += decoder["head_convs"] * width * width * 9
        per_pixel += width * (4 + config["num_classes"]) * k * k
        total += per_pixel * size * size
    return total


def _sample_stages(rng: random.Random) -> list[dict[str, Any]]:
    """3–5 encoder stages, each as wide as the previous or up to twice as wide."""
    stages = []
    channels = rng.choice(FIRST_CHANNELS)
    for i in range(rng.choice(NUM_STAGES)):
        if i:
            channels = min(MAX_CHANNELS, make_divisible(channels * rng.choice(CHANNEL_GROWTH)))
        block = rng.choice(BLOCK_KINDS)
        stages.append(
            {
                "channels": channels,
                "blocks": rng.choice(BLOCKS_PER_STAGE),
                "block": block,
                "kernel": 3 if block == "plain" else rng.choice(KERNELS),
                "expansion": rng.choice(EXPANSIONS) if block == "inverted" else 1,
            }
        )
    return stages


def _sample_decoder(rng: random.Random, stages: list[dict[str, Any]]) -> dict[str, Any]:
    """A ``unet`` or ``fpn`` decoder for ``stages``, every choice spelled out."""
    if rng.choice(DECODERS) == "unet":
        return {
            "kind": "unet",
            "upsample": rng.choice(UPSAMPLES),
            "channels": [
                max(16, make_divisible(stage["channels"] * rng.choice(DECODER_WIDTHS)))
                for stage in stages[:-1]
            ],
            "blocks": rng.choice((1, 2)),
            "block": rng.choice(("plain", "dwsep")),
            "final_resize": rng.random() < 0.5,
        }
    return {
        "kind": "fpn",
        # The stride-2 stage is too large for an FPN level: at most the deepest n - 1.
        "levels": rng.choice([n for n in (2, 3) if n < len(stages)]),
        "channels": rng.choice(FPN_CHANNELS),
        "upsample": rng.choice(("nearest", "bilinear")),
        "heads": rng.choice(("shared", "per_level")),
        "head_convs": rng.choice((0, 1, 2)),
        "predictor_kernel": rng.choice((1, 3)),
        "sigmoid": rng.random() < 0.5,
    }


def sample(rng: random.Random) -> Config:
    """Draw a segnet variant of at most :data:`MAX_MACS` multiply-accumulates.

    Args:
        rng: the only source of randomness.

    Returns:
        A configuration for :func:`build`.

    Example:
        >>> config = sample(random.Random(0))
        >>> config["decoder"]["kind"] in DECODERS and estimate_macs(config) <= MAX_MACS
        True
    """
    while True:
        config: Config = {
            "resolution": rng.choice(RESOLUTIONS),
            "num_classes": rng.randint(1, MAX_CLASSES),
            "activation": rng.choice(list(ACTIVATIONS)),
            "stages": _sample_stages(rng),
        }
        config["decoder"] = _sample_decoder(rng, config["stages"])
        if estimate_macs(config) <= MAX_MACS:
            return config


FAMILY = Family(
    name="segnet",
    summary="Dense-prediction encoder-decoders: U-Net-like segmenters and FPN detectors",
    sample=sample,
    build=build,
    output_shape=output_shape,
    canonical=CANONICAL,
)
