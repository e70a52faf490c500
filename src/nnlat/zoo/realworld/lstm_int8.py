"""A dynamic-int8 keyword-spotting LSTM (onnxruntime ``quantize_dynamic``), opset 14.

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import onnx
import torch
from torch import nn

from nnlat.zoo.realworld.export import export_torchscript, quantize_int8, seeded


class _KeywordSpotter(nn.Module):
    def __init__(self, mels: int = 40, hidden: int = 64, keywords: int = 12) -> None:
        super().__init__()
        self.lstm = nn.LSTM(mels, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, keywords)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        sequence, _ = self.lstm(features)
        return self.fc(sequence[:, -1])


def lstm_int8() -> onnx.ModelProto:
    """A dynamic-int8 keyword-spotting LSTM (onnxruntime ``quantize_dynamic``), opset 14.

    ``features`` (N, T, 40), dynamic batch and length → com.microsoft
    ``DynamicQuantizeLSTM`` (int8 weights, their scales and zero points as inputs) →
    last step ``Gather`` → ``MatMulInteger`` classifier.
    """
    with seeded():
        module = _KeywordSpotter()
    model = export_torchscript(
        module,
        (torch.zeros(1, 20, 40),),
        opset=14,
        input_names=["features"],
        output_names=["keyword_logits"],
        dynamic_axes={"features": {0: "batch", 1: "frames"}, "keyword_logits": {0: "batch"}},
    )
    return quantize_int8(model, {"DynamicQuantizeLSTM", "MatMulInteger"})
