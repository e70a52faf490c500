"""A streaming speech recogniser / keyword spotter (DeepSpeech-like), opset 14.

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import onnx
import torch
import torch.nn.functional as F  # noqa: N812 (the conventional name)
from torch import nn

from nnlat.zoo.realworld.export import export_torchscript, seeded


class _SpeechModel(nn.Module):
    """Conv1d front-end over filterbank frames → 2-layer LSTM → GRU → character logits."""

    def __init__(self, mels: int = 40, hidden: int = 48, chars: int = 29) -> None:
        super().__init__()
        self.frontend = nn.Conv1d(mels, 64, 5, padding=2)
        self.lstm = nn.LSTM(64, hidden, num_layers=2, batch_first=True)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, chars)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.frontend(features.transpose(1, 2))).transpose(1, 2)  # (N, T, 64)
        x, _ = self.lstm(x)
        x, _ = self.gru(x)
        return self.fc(x)


def speech_lstm() -> onnx.ModelProto:
    """A streaming speech recogniser / keyword spotter (DeepSpeech-like), opset 14.

    ``features`` (N, T, 40) log-mel frames, dynamic batch and sequence length →
    ``Transpose`` + ``Conv`` (1-D) + ``Relu`` → two stacked ``LSTM`` layers → ``GRU`` →
    ``MatMul``/``Add`` classifier. batch_first RNNs export with ``Transpose`` around
    each RNN and ``Squeeze`` of the direction axis.
    """
    with seeded():
        module = _SpeechModel()
    return export_torchscript(
        module,
        (torch.zeros(1, 20, 40),),
        opset=14,
        input_names=["features"],
        output_names=["logits"],
        dynamic_axes={"features": {0: "batch", 1: "frames"}, "logits": {0: "batch", 1: "frames"}},
    )
