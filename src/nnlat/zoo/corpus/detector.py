"""``det-head``: single-stage detectors — a CNN backbone, an FPN/PAN neck and dense heads.

The structures of deployed YOLO/RetinaNet/SSD-style exports: a strided convolutional
backbone; a feature-pyramid neck whose top-down path upsamples with ``Resize`` (nearest or
bilinear) or ``ConvTranspose``, optionally followed by a bottom-up (PAN) path; a shared or
per-level head tower with class, box (and objectness) outputs; and the flattening of every
level into one ``(1, positions, 4 + classes)`` tensor through ``Reshape``, ``Transpose``
and ``Concat``, optionally decoded (``Sigmoid``, grid offsets) in the graph. Inputs NCHW
or NHWC; opsets 9–18 (bilinear ``Resize`` from 11).

Scaled down: inputs 128–320 px, widths 8–64 at the stem, necks of 32–128 channels,
so that one inference takes at most tens of milliseconds on one core.
"""

from __future__ import annotations

import random

import onnx
import torch
import torch.nn.functional as F  # noqa: N812 (torch's convention)
from torch import nn

from nnlat.zoo.corpus.export import OPSETS
from nnlat.zoo.corpus.layers import conv_bn_act, export_image_model
from nnlat.zoo.family import Config, Family


class Detector(nn.Module):
    """Backbone, FPN (+PAN) neck and dense heads of one configuration."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        act, widths = c["act"], c["widths"]
        self.stem = conv_bn_act(3, widths[0], 3, 2, act)
        stages, cin = [], widths[0]
        for width, depth in zip(widths, c["depths"], strict=True):
            blocks = [conv_bn_act(cin, width, 3, 2, act)]
            blocks += [
                conv_bn_act(width, width, 3, 1, act, groups=width if c["dw"] else 1)
                for _ in range(depth - 1)
            ]
            stages.append(nn.Sequential(*blocks))
            cin = width
        self.stages = nn.ModuleList(stages)
        levels, neck = c["levels"], c["neck"]
        self.lateral = nn.ModuleList(nn.Conv2d(w, neck, 1) for w in widths[-levels:])
        self.smooth = nn.ModuleList(conv_bn_act(neck, neck, 3, 1, act) for _ in range(levels))
        self.up = nn.ModuleList(
            nn.ConvTranspose2d(neck, neck, 2, 2)
            if c["upsample"] == "convtranspose"
            else nn.Identity()
            for _ in range(levels - 1)
        )
        self.down = nn.ModuleList(
            conv_bn_act(neck, neck, 3, 2, act) for _ in range(levels - 1) if c["pan"]
        )
        outputs = c["anchors"] * (4 + c["num_classes"] + int(c["objectness"]))
        tower = [conv_bn_act(neck, neck, 3, 1, act) for _ in range(c["head_depth"])]
        self.heads = nn.ModuleList(
            nn.Sequential(*tower, nn.Conv2d(neck, outputs, 1))
            for _ in range(1 if c["shared_head"] else levels)
        )
        self.c = c

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = self.c
        features = []
        x = self.stem(x)
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        pyramid = [lat(f) for lat, f in zip(self.lateral, features[-c["levels"] :], strict=True)]
        for i in range(len(pyramid) - 1, 0, -1):  # top-down
            if c["upsample"] == "convtranspose":
                top = self.up[i - 1](pyramid[i])
            else:
                top = F.interpolate(pyramid[i], scale_factor=2.0, mode=c["upsample"])
            pyramid[i - 1] = pyramid[i - 1] + top
        pyramid = [s(p) for s, p in zip(self.smooth, pyramid, strict=True)]
        if c["pan"]:  # bottom-up
            for i, down in enumerate(self.down):
                pyramid[i + 1] = pyramid[i + 1] + down(pyramid[i])
        outs = []
        for i, p in enumerate(pyramid):
            y = self.heads[0 if c["shared_head"] else i](p)
            y = y.flatten(2).transpose(1, 2)  # (1, H*W, anchors * (4 + classes ...))
            outs.append(y.reshape(1, -1, 4 + c["num_classes"] + int(c["objectness"])))
        y = torch.cat(outs, 1)
        if c["decode"]:  # sigmoid scores and exp box sizes, as YOLO exports do in-graph
            y = torch.cat([y[..., :2].sigmoid() * 2.0, y[..., 2:4].exp(), y[..., 4:].sigmoid()], -1)
        return y


def sample(rng: random.Random) -> Config:
    """Draw a detector: backbone, neck, heads, input size and layout, opset.

    Example:
        >>> c = sample(random.Random(0))
        >>> 2 <= c["levels"] <= len(c["widths"])
        True
    """
    stem = rng.choice([8, 16, 24, 32, 48, 64])
    stages = rng.choice([3, 4, 5])
    upsample = rng.choice(["nearest", "bilinear", "convtranspose"])
    return {
        "widths": [min(stem * 2**i, 256) for i in range(stages)],
        "depths": [rng.randint(1, 3) for _ in range(stages)],
        "dw": rng.random() < 0.3,
        "act": rng.choice(["relu", "silu", "leaky_relu", "hardswish"]),
        "levels": rng.randint(2, min(stages, 4)),
        "neck": rng.choice([32, 48, 64, 96, 128]),
        "upsample": upsample,
        "pan": rng.random() < 0.4,
        "head_depth": rng.randint(0, 3),
        "shared_head": rng.random() < 0.5,
        "anchors": rng.choice([1, 3]),
        "objectness": rng.random() < 0.5,
        "decode": rng.random() < 0.5,
        "num_classes": rng.choice([1, 2, 20, 80]),
        # every level's map must halve evenly down to the deepest stage (stem + stages)
        "resolution": rng.choice([r for r in (128, 192, 256, 320) if r % 2 ** (stages + 1) == 0]),
        "layout": rng.choice(["nchw", "nchw", "nhwc"]),
        "opset": rng.choice([o for o in OPSETS if upsample != "bilinear" or o >= 11]),
        "seed": 0,
    }


def input_shape(config: Config) -> tuple[int, ...]:
    """``(1, 3, R, R)``, or ``(1, R, R, 3)`` for an NHWC configuration."""
    r = config["resolution"]
    return (1, r, r, 3) if config["layout"] == "nhwc" else (1, 3, r, r)


def export(config: Config) -> onnx.ModelProto:
    """The configuration's detector exported at its opset, seeded weights."""
    return export_image_model(Detector, config, "images", input_shape(config))


FAMILY = Family(
    name="det-head",
    summary="single-stage detectors: CNN backbone, FPN/PAN neck (Resize/ConvTranspose), heads",
    sample=sample,
    build=Detector,
    input_shape=input_shape,
    output_shape=lambda c: (1, -1, 4 + c["num_classes"] + int(c["objectness"])),
    export_onnx=export,
)
