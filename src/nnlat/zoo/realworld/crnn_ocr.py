"""A CRNN text recogniser (PaddleOCR / EasyOCR / deep-text-recognition style).

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import onnx
import torch
from torch import nn

from nnlat.zoo.realworld.export import export_torchscript, seeded


class _Crnn(nn.Module):
    """CNN feature extractor → bidirectional LSTM over image columns → per-column classes."""

    def __init__(self, classes: int = 37, hidden: int = 32) -> None:
        super().__init__()

        def block(c_in: int, c_out: int, pool: tuple[int, int]) -> list[nn.Module]:
            return [
                nn.Conv2d(c_in, c_out, 3, padding=1),
                nn.BatchNorm2d(c_out),
                nn.ReLU(),
                nn.MaxPool2d(pool, pool),
            ]

        self.cnn = nn.Sequential(
            *block(1, 16, (2, 2)),  # 16 x W/2
            *block(16, 32, (2, 2)),  # 8 x W/4
            *block(32, 64, (2, 1)),  # 4 x W/4
            nn.Conv2d(64, 64, (4, 1)),  # 1 x W/4: one feature vector per column
            nn.ReLU(),
        )
        self.rnn = nn.LSTM(64, hidden, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        features = self.cnn(image).squeeze(2).permute(2, 0, 1)  # (T, N, C)
        sequence, _ = self.rnn(features)
        return self.fc(sequence).log_softmax(-1)


def crnn_ocr() -> onnx.ModelProto:
    """A CRNN text recogniser (PaddleOCR / EasyOCR / deep-text-recognition style).

    Grayscale text-line image ``image`` (N, 1, 32, W) with dynamic batch and width →
    Conv/Relu/MaxPool stack (BatchNorm folded by the exporter) → Squeeze + Transpose to
    (T, N, C) → bidirectional ``LSTM`` → ``MatMul``/``Add`` classifier → ``LogSoftmax``.
    Opset 11 (Squeeze axes as an attribute). The exporter builds the LSTM's initial
    state with ``Shape``/``Gather``/``Concat``/``ConstantOfShape`` on the dynamic batch.
    """
    with seeded():
        module = _Crnn()
    return export_torchscript(
        module,
        (torch.zeros(1, 1, 32, 64),),
        opset=11,
        input_names=["image"],
        output_names=["logits"],
        dynamic_axes={"image": {0: "batch", 3: "width"}, "logits": {0: "steps", 1: "batch"}},
    )
