"""``face-cnn``: the face models people ship, with ``PRelu`` activations.

Three kinds, at the sizes of the deployed originals:

- ``cascade``: MTCNN-style stages — 3×3 convolutions, ``PRelu`` and max pooling; the
  first stage fully convolutional over an image-pyramid level (12–640 px), the others on
  24 or 48 px crops through a ``Linear`` + ``PRelu`` to class, box (and landmark) outputs;
- ``mobilefacenet``: MobileFaceNet-style embedders — inverted residual blocks whose
  expansions and depthwise convolutions end in ``PRelu``, a global depthwise convolution
  and a 1×1 projection to a 128–512-wide embedding, on 96–128 px faces;
- ``resnet-prelu``: insightface-style residual blocks (BatchNorm, conv, ``PRelu``, conv)
  to an embedding or to 2-D landmarks, on 96–192 px faces.

``PRelu`` is per channel or one shared slope. Why: held-out set 7 (reports/realworld/set7)
had seven face models using ``PRelu``, which no zoo or corpus family did; all seven were
under-predicted by 24–64 %. Inputs NCHW or NHWC; opsets 9–18.
"""

from __future__ import annotations

import random

import onnx
import torch
from torch import nn

from nnlat.zoo.corpus.export import OPSETS
from nnlat.zoo.corpus.layers import conv_bn_act, export_image_model
from nnlat.zoo.family import Config, Family

KINDS = ("cascade", "mobilefacenet", "resnet-prelu")
PYRAMID = ((12, 12), (24, 32), (60, 80), (120, 160), (240, 320), (360, 480), (480, 640))


def prelu(channels: int, shared: bool) -> nn.PReLU:
    """One slope per channel, or one for all (both are shipped)."""
    return nn.PReLU(1 if shared else channels)


def conv_prelu(
    cin: int, cout: int, kernel: int, stride: int, shared: bool, groups: int = 1
) -> nn.Sequential:
    """Conv2d + BatchNorm (folded by the exporter) + ``PRelu``."""
    return conv_bn_act(cin, cout, kernel, stride, prelu(cout, shared), groups)


class Cascade(nn.Module):
    """One MTCNN-style stage: convolutions with ``PRelu`` and pooling, then heads."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        cin, pools = 3, {"proposal": 1, "refine": 2, "output": 3}[c["stage"]]
        for i, width in enumerate(c["widths"]):
            layers += [nn.Conv2d(cin, width, 3 if i < 3 else 2), prelu(width, c["shared"])]
            if i < pools:
                layers.append(nn.MaxPool2d(3 if i < 2 else 2, 2, ceil_mode=True))
            cin = width
        self.body = nn.Sequential(*layers)
        outputs = c["num_classes"]
        self.full = c["stage"] == "proposal"  # fully convolutional over a pyramid level
        if self.full:
            self.heads = nn.Conv2d(cin, outputs, 1)
        else:
            with torch.no_grad():  # the crop's feature size, as the layers compute it
                features = self.body(torch.zeros(1, 3, c["crop"], c["crop"])).numel()
            self.fc = nn.Sequential(
                nn.Flatten(), nn.Linear(features, c["fc"]), prelu(c["fc"], c["shared"])
            )
            self.heads = nn.Linear(c["fc"], outputs)

    def forward(self, x):  # type: ignore[no-untyped-def]
        x = self.body(x)
        return self.heads(x if self.full else self.fc(x))


class MobileFaceNet(nn.Module):
    """Inverted residual blocks with ``PRelu``, a global depthwise conv, an embedding."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        shared, stem = c["shared"], c["stem"]
        layers: list[nn.Module] = [
            conv_prelu(3, stem, 3, 2, shared),
            conv_prelu(stem, stem, 3, 1, shared, groups=stem),
        ]
        cin = stem
        for width, depth in zip(c["widths"], c["depths"], strict=True):
            for d in range(depth):
                layers.append(Bottleneck(cin, width, 2 if d == 0 else 1, c["expand"], shared))
                cin = width
        layers.append(conv_prelu(cin, c["last"], 1, 1, shared))
        side = c["resolution"] // 2 ** (1 + len(c["widths"]))
        layers += [
            nn.Conv2d(c["last"], c["last"], side, 1, 0, groups=c["last"], bias=False),
            nn.BatchNorm2d(c["last"]),
            nn.Conv2d(c["last"], c["embedding"], 1, bias=False),
            nn.BatchNorm2d(c["embedding"]),
            nn.Flatten(),
        ]
        self.body = nn.Sequential(*layers)

    def forward(self, x):  # type: ignore[no-untyped-def]
        return self.body(x)


class Bottleneck(nn.Module):
    """1×1 expansion + ``PRelu``, 3×3 depthwise + ``PRelu``, linear 1×1 projection."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int, shared: bool) -> None:
        super().__init__()
        hidden = cin * expand
        self.body = nn.Sequential(
            conv_prelu(cin, hidden, 1, 1, shared),
            conv_prelu(hidden, hidden, 3, stride, shared, groups=hidden),
            nn.Conv2d(hidden, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
        )
        self.residual = stride == 1 and cin == cout

    def forward(self, x):  # type: ignore[no-untyped-def]
        return x + self.body(x) if self.residual else self.body(x)


class ResidualPRelu(nn.Module):
    """insightface's block: BatchNorm, 3×3 conv, BatchNorm, ``PRelu``, 3×3 conv, BatchNorm."""

    def __init__(self, cin: int, cout: int, stride: int, shared: bool) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.BatchNorm2d(cin),
            nn.Conv2d(cin, cout, 3, 1, 1, bias=False),
            nn.BatchNorm2d(cout),
            prelu(cout, shared),
            nn.Conv2d(cout, cout, 3, stride, 1, bias=False),
            nn.BatchNorm2d(cout),
        )
        self.shortcut = (
            nn.Identity()
            if stride == 1 and cin == cout
            else nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        )

    def forward(self, x):  # type: ignore[no-untyped-def]
        return self.body(x) + self.shortcut(x)


class ResNetPRelu(nn.Module):
    """A stem with ``PRelu``, residual stages, then an embedding or landmark head."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        shared = c["shared"]
        layers: list[nn.Module] = [conv_prelu(3, c["widths"][0], 3, c["stem_stride"], shared)]
        cin = c["widths"][0]
        for width, depth in zip(c["widths"], c["depths"], strict=True):
            for d in range(depth):
                layers.append(ResidualPRelu(cin, width, 2 if d == 0 else 1, shared))
                cin = width
        side = c["resolution"] // (c["stem_stride"] * 2 ** len(c["widths"]))
        layers += [nn.BatchNorm2d(cin), nn.Flatten(), nn.Linear(cin * side * side, c["outputs"])]
        self.body = nn.Sequential(*layers)

    def forward(self, x):  # type: ignore[no-untyped-def]
        return self.body(x)


def sample(rng: random.Random) -> Config:
    """Draw a kind and its sizes, ``PRelu``'s form, a layout and an opset.

    Example:
        >>> c = sample(random.Random(0))
        >>> c["kind"] in KINDS and len(input_shape(c)) == 4
        True
    """
    kind = rng.choice(KINDS)
    config: Config = {"kind": kind, "shared": rng.random() < 0.3, "seed": 0}
    if kind == "cascade":
        stage = rng.choice(["proposal", "refine", "output"])
        depth = {"proposal": 3, "refine": 3, "output": 4}[stage]
        base = rng.choice([8, 10, 16, 28, 32])
        config.update(
            stage=stage,
            widths=[min(base * 2**i, 128) for i in range(depth)],
            landmarks=stage == "output" and rng.random() < 0.7,
            crop={"proposal": 12, "refine": 24, "output": 48}[stage],
            size=list(rng.choice(PYRAMID)) if stage == "proposal" else None,
            fc=rng.choice([64, 128, 256]),
        )
    elif kind == "mobilefacenet":
        stages = rng.choice([3, 4])
        config.update(
            stem=rng.choice([16, 32, 64]),
            widths=[rng.choice([32, 64, 96, 128]) for _ in range(stages)],
            depths=[rng.randint(1, 4) for _ in range(stages)],
            expand=rng.choice([2, 4]),
            last=rng.choice([128, 256, 512]),
            embedding=rng.choice([128, 256, 512]),
            resolution=rng.choice([96, 112, 112, 128]),
        )
    else:
        stages = rng.choice([3, 4])
        config.update(
            widths=[min(rng.choice([16, 32, 64]) * 2**i, 256) for i in range(stages)],
            depths=[rng.randint(1, 3) for _ in range(stages)],
            stem_stride=rng.choice([1, 2]),
            resolution=rng.choice([96, 112, 128, 160, 192]),
            outputs=rng.choice([128, 212, 256, 512]),  # an embedding, or 106 (x, y) landmarks
        )
    config["num_classes"] = {  # the output's width
        "cascade": 2 + 4 + (10 if config.get("landmarks") else 0),
        "mobilefacenet": config.get("embedding"),
        "resnet-prelu": config.get("outputs"),
    }[kind]
    config["layout"] = rng.choice(["nchw", "nchw", "nchw", "nhwc"])
    config["opset"] = rng.choice(OPSETS)
    return config


def input_shape(config: Config) -> tuple[int, ...]:
    """``(1, 3, H, W)`` (or NHWC): a pyramid level, a crop, or an aligned face."""
    if config["kind"] == "cascade":
        h, w = config["size"] or (config["crop"], config["crop"])
    else:
        h = w = config["resolution"]
    return (1, h, w, 3) if config["layout"] == "nhwc" else (1, 3, h, w)


MODELS = {"cascade": Cascade, "mobilefacenet": MobileFaceNet, "resnet-prelu": ResNetPRelu}


def output_shape(config: Config) -> tuple[int, ...]:
    """Class, box (and landmark) maps of a proposal stage; otherwise one vector."""
    if config.get("stage") == "proposal":
        return (1, config["num_classes"], -1, -1)
    return (1, config["num_classes"])


def build(config: Config) -> nn.Module:
    """The configuration's network, random weights."""
    return MODELS[config["kind"]](config)


def export(config: Config) -> onnx.ModelProto:
    """The configuration's face model exported at its opset, seeded weights."""
    return export_image_model(build, config, "input", input_shape(config))


FAMILY = Family(
    name="face-cnn",
    summary="face models with PRelu: MTCNN-style stages, MobileFaceNet, insightface ResNets",
    sample=sample,
    build=build,
    input_shape=input_shape,
    output_shape=output_shape,
    export_onnx=export,
)
