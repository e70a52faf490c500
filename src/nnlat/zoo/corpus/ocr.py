"""``ocr-crnn``: text-line recognisers — a CNN, a bidirectional LSTM/GRU and a CTC head.

The CRNN structure of deployed OCR models (PaddleOCR's and EasyOCR's recognisers,
captcha solvers): a VGG- or ResNet-like CNN that pools height faster than width, the
feature map turned into a sequence (``Reshape``/``Squeeze`` + ``Transpose``), zero to two
bidirectional recurrent layers, a ``Linear`` over the alphabet and a ``Softmax`` or
``LogSoftmax`` for CTC decoding. Grayscale or RGB, NCHW or NHWC; opsets 9–18.

Scaled down: text lines 32–48 px high and 64–320 px wide, CNN widths from 16–64, recurrent
hidden sizes 32–256, alphabets of 37–2,000 symbols (published: up to 6,625).
"""

from __future__ import annotations

import random

import onnx
import torch
from torch import nn

from nnlat.zoo.corpus.export import OPSETS
from nnlat.zoo.corpus.layers import conv_bn_act, export_image_model
from nnlat.zoo.family import Config, Family


class Crnn(nn.Module):
    """CNN → sequence → recurrent layers → per-step class scores."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        cin, height = c["channels"], c["height"]
        for i, width in enumerate(c["widths"]):
            for _ in range(c["convs_per_stage"]):
                layers.append(conv_bn_act(cin, width, 3, 1, c["act"]))
                cin = width
            # halve both sides in the first two stages, then only the height (CRNN)
            kernel = (2, 2) if i < 2 else (2, 1)
            layers.append(
                nn.MaxPool2d(kernel, kernel) if c["pool"] == "max" else nn.AvgPool2d(kernel, kernel)
            )
            height //= 2
        self.cnn = nn.Sequential(*layers)
        self.collapse = nn.Conv2d(cin, cin, (height, 1)) if c["collapse"] == "conv" else None
        self.height = height
        features = cin if c["collapse"] == "conv" else cin * height
        rnn_class = nn.LSTM if c["rnn"] == "lstm" else nn.GRU
        self.rnn = (
            rnn_class(features, c["hidden"], num_layers=c["rnn_layers"], bidirectional=True)
            if c["rnn_layers"]
            else None
        )
        self.fc = nn.Linear(2 * c["hidden"] if c["rnn_layers"] else features, c["num_classes"])
        self.log = c["output"] == "log_softmax"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.cnn(x)
        # (N, C, W) by a full-height convolution, or (N, C*H, W)
        x = self.collapse(x).squeeze(2) if self.collapse is not None else x.flatten(1, 2)
        x = x.permute(2, 0, 1)  # (T, N, C): the recurrent layers' time-major layout
        if self.rnn is not None:
            x, _ = self.rnn(x)
        x = self.fc(x)
        return x.log_softmax(-1) if self.log else x.softmax(-1)


def sample(rng: random.Random) -> Config:
    """Draw a recogniser: CNN, sequence collapse, recurrent layers, alphabet, input.

    Example:
        >>> c = sample(random.Random(0))
        >>> c["height"] in (32, 48)
        True
    """
    stages = rng.choice([3, 4])
    height, width = rng.choice([32, 48]), rng.choice([64, 100, 128, 160, 200, 256, 320])
    # the first stage runs at full resolution: keep its convolutions under ~0.15 G MACs
    base = rng.choice([b for b in (16, 24, 32, 48, 64) if height * width * b * b * 9 <= 1.5e8])
    return {
        "channels": rng.choice([1, 3]),
        "height": height,
        "width": width,
        "widths": [min(base * 2**i, 256) for i in range(stages)],
        "convs_per_stage": rng.randint(1, 2),
        "act": rng.choice(["relu", "leaky_relu", "hardswish"]),
        "pool": rng.choice(["max", "avg"]),
        "collapse": rng.choice(["conv", "flatten"]),
        "rnn": rng.choice(["lstm", "gru"]),
        "rnn_layers": rng.choice([0, 1, 1, 2]),
        "hidden": rng.choice([32, 64, 96, 128, 256]),
        "num_classes": rng.choice([37, 63, 97, 500, 2000]),
        "output": rng.choice(["softmax", "log_softmax"]),
        "layout": rng.choice(["nchw", "nchw", "nchw", "nhwc"]),
        "opset": rng.choice(OPSETS),
        "seed": 0,
    }


def input_shape(config: Config) -> tuple[int, ...]:
    """``(1, C, H, W)``, or ``(1, H, W, C)`` for an NHWC configuration."""
    c, h, w = config["channels"], config["height"], config["width"]
    return (1, h, w, c) if config["layout"] == "nhwc" else (1, c, h, w)


def export(config: Config) -> onnx.ModelProto:
    """The configuration's recogniser exported at its opset, seeded weights."""
    return export_image_model(Crnn, config, "image", input_shape(config))


FAMILY = Family(
    name="ocr-crnn",
    summary="OCR text-line recognisers: CNN + BiLSTM/BiGRU + CTC softmax, NCHW/NHWC",
    sample=sample,
    build=Crnn,
    input_shape=input_shape,
    output_shape=lambda c: (c["width"] // 4, 1, c["num_classes"]),
    export_onnx=export,
)
