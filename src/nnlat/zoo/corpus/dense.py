"""``dense-large``: dense-prediction CNNs at the resolutions they are deployed at.

Why: on held-out set 3 the models of 50 ms and more were predicted 31–51 % too low, and
they were the page-size text detectors (CRAFT at 960 × 1280, PP-OCR detectors at
960–1280 px) and detectors at 1024 px. The rest of the corpus is scaled down to inputs of
at most 320 px, so the training data holds almost no feature maps of this size. Three
kinds, each at full deployed resolution and narrow enough to be measured:

- ``text-detector``: a DBNet-style detector (PP-OCR's ``det``): a strided backbone, an FPN
  whose levels are all upsampled to 1/4 of the input and concatenated, and a head that
  goes back to full resolution with two ``ConvTranspose`` and a sigmoid; inputs of
  480–1280 px a side, not necessarily square;
- ``unet``: a CRAFT/U-Net-style encoder–decoder: double convolutions, max-pooling down,
  bilinear ``Resize`` up and ``Concat`` with the skip, 256–1024 px;
- ``detector``: the single-stage detectors of ``det-head`` (:mod:`.detector`) at
  416–1024 px with wider backbones.

Sizes: the input size is drawn among those that put the multiply-accumulates (counted on
the meta device, no weights made) in :data:`MACS_RANGE`, about 30–600 ms on one core of
the reference host, so that a campaign measurement (≥ 10 runs) stays under ~8 s.
NCHW or NHWC inputs; opsets 11–18 (bilinear ``Resize``).
"""

from __future__ import annotations

import random

import onnx
import torch
import torch.nn.functional as F  # noqa: N812 (torch's convention)
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from nnlat.zoo.corpus import detector
from nnlat.zoo.corpus.export import OPSETS
from nnlat.zoo.corpus.layers import conv_bn_act, export_image_model
from nnlat.zoo.family import Config, Family

KINDS = ("text-detector", "unet", "detector")
MACS_RANGE = (1.0e9, 2.0e10)


class TextDetector(nn.Module):
    """DBNet: backbone, FPN fused at 1/4 resolution, a probability map at full resolution."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        act, widths = c["act"], c["widths"]
        self.stem = conv_bn_act(3, widths[0], 3, 2, act)  # 1/2
        stages, cin = [], widths[0]
        for width, depth in zip(widths, c["depths"], strict=True):  # 1/4, 1/8, 1/16, 1/32
            blocks = [conv_bn_act(cin, width, 3, 2, act)]
            blocks += [
                conv_bn_act(width, width, 3, 1, act, groups=width if c["dw"] else 1)
                for _ in range(depth - 1)
            ]
            stages.append(nn.Sequential(*blocks))
            cin = width
        self.stages = nn.ModuleList(stages)
        neck = c["neck"]
        self.lateral = nn.ModuleList(nn.Conv2d(w, neck, 1, bias=False) for w in widths)
        self.smooth = nn.ModuleList(nn.Conv2d(neck, neck // 4, 3, 1, 1, bias=False) for _ in widths)
        self.head = nn.Sequential(
            conv_bn_act(neck, neck // 4, 3, 1, "relu"),
            nn.ConvTranspose2d(neck // 4, neck // 4, 2, 2),
            nn.BatchNorm2d(neck // 4),
            nn.ReLU(),
            nn.ConvTranspose2d(neck // 4, 1, 2, 2),
            nn.Sigmoid(),
        )
        self.mode = c["upsample"]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features, x = [], self.stem(x)
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        pyramid = [lat(f) for lat, f in zip(self.lateral, features, strict=True)]
        for i in range(len(pyramid) - 1, 0, -1):  # top-down
            pyramid[i - 1] = pyramid[i - 1] + F.interpolate(
                pyramid[i], size=pyramid[i - 1].shape[-2:], mode=self.mode
            )
        size = pyramid[0].shape[-2:]
        fused = [
            F.interpolate(s(p), size=size, mode=self.mode) if i else s(p)
            for i, (s, p) in enumerate(zip(self.smooth, pyramid, strict=True))
        ]
        return self.head(torch.cat(fused, 1))


class UNet(nn.Module):
    """Encoder of double convolutions and max-pooling; decoder of bilinear upsampling,
    concatenation with the skip and double convolutions; a 1×1 output of a few maps."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        act, widths = c["act"], c["widths"]

        def double(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(
                conv_bn_act(cin, cout, 3, 1, act), conv_bn_act(cout, cout, 3, 1, act)
            )

        self.down = nn.ModuleList(
            double(cin, cout) for cin, cout in zip((3, *widths[:-1]), widths, strict=True)
        )
        self.up = nn.ModuleList(
            double(widths[i] + widths[i + 1], widths[i]) for i in range(len(widths) - 1)
        )
        self.out = nn.Conv2d(widths[0], c["outputs"], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for i, block in enumerate(self.down):
            x = block(F.max_pool2d(x, 2) if i else x)
            skips.append(x)
        for i in range(len(self.up) - 1, -1, -1):
            x = F.interpolate(x, size=skips[i].shape[-2:], mode="bilinear", align_corners=False)
            x = self.up[i](torch.cat([x, skips[i]], 1))
        return self.out(x)


def build(c: Config) -> nn.Module:
    """The network of one configuration, by its ``kind``."""
    return {"text-detector": TextDetector, "unet": UNet, "detector": detector.Detector}[c["kind"]](
        c
    )


def input_shape(config: Config) -> tuple[int, ...]:
    """``(1, 3, H, W)``, or ``(1, H, W, 3)`` for an NHWC configuration."""
    h, w = config["height"], config["width"]
    return (1, h, w, 3) if config["layout"] == "nhwc" else (1, 3, h, w)


def macs(config: Config) -> float:
    """Multiply-accumulates of one inference, counted on the meta device (no weights made).

    Example:
        >>> c = sample(random.Random(0))
        >>> 0.9 * MACS_RANGE[0] <= macs(c) <= 1.1 * MACS_RANGE[1]
        True
    """
    with torch.device("meta"):
        model = build(config).eval()
        x = torch.empty(1, 3, config["height"], config["width"])
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(x)
    return counter.get_total_flops() / 2


def _architecture(rng: random.Random) -> tuple[Config, list[int]]:
    """A configuration without its input size, and the sides (px) its kind allows."""
    kind = rng.choice(KINDS)
    common = {
        "kind": kind,
        "act": rng.choice(["relu", "silu", "leaky_relu", "hardswish", "relu6"]),
        "layout": rng.choice(["nchw", "nchw", "nhwc"]),
        "opset": rng.choice([o for o in OPSETS if o >= 11]),
        "seed": 0,
    }
    if kind == "text-detector":
        stem = rng.choice([8, 16, 24, 32, 48, 64])
        config = {
            "widths": [min(stem * 2**i, 512) for i in range(4)],
            "depths": [rng.randint(1, 4) for _ in range(4)],
            "dw": rng.random() < 0.3,
            "neck": rng.choice([32, 64, 96, 128, 256]),
            "upsample": rng.choice(["nearest", "bilinear"]),
            "num_classes": 1,
        }
        return common | config, list(range(480, 1281, 32))
    if kind == "unet":
        levels, base = rng.randint(3, 5), rng.choice([8, 16, 24, 32, 64])
        outputs = rng.choice([1, 2, 4, 21])
        config = {
            "widths": [min(base * 2**i, 512) for i in range(levels)],
            "outputs": outputs,
            "num_classes": outputs,
        }
        return common | config, list(range(256, 1025, 2**levels))
    config = detector.sample(rng)  # its layout, opset and resolution are replaced
    stages = len(config["widths"])
    stem = rng.choice([16, 24, 32, 48, 64])
    config |= {
        "widths": [min(stem * 2**i, 512) for i in range(stages)],
        "neck": rng.choice([64, 96, 128, 192, 256]),
    }
    step = 2 ** (stages + 1)  # every level's map must halve evenly (see det-head)
    return config | common, list(range(step * -(-416 // step), 1025, step))


def sample(rng: random.Random) -> Config:
    """Draw a configuration and an input size whose MACs lie in :data:`MACS_RANGE`.

    The networks are fully convolutional, so their MACs grow with the input's area: they
    are counted once at the smallest side and scaled to choose among the sizes that fit
    (a fresh architecture where none does).

    Example:
        >>> sample(random.Random(3))["kind"] in KINDS
        True
    """
    while True:
        config, sides = _architecture(rng)
        square = config["kind"] == "detector"
        per_pixel = macs(config | _size(sides[0], sides[0])) / sides[0] ** 2
        fits = [
            (h, w)
            for h in sides
            for w in (sides if not square else [h])
            if MACS_RANGE[0] <= per_pixel * h * w <= MACS_RANGE[1]
        ]
        if fits:
            return config | _size(*rng.choice(fits))


def _size(height: int, width: int) -> Config:
    return {"height": height, "width": width, "resolution": height}


def export(config: Config) -> onnx.ModelProto:
    """The configuration's network exported at its opset, seeded weights."""
    return export_image_model(build, config, "images", input_shape(config))


FAMILY = Family(
    name="dense-large",
    summary="text detectors, U-Nets and detectors at deployed resolutions (416-1280 px)",
    sample=sample,
    build=build,
    input_shape=input_shape,
    output_shape=lambda c: (1, -1),
    export_onnx=export,
)
