"""``audio-frontend``: waveform-in audio classifiers with the front-end inside the graph.

What keyword spotters, voice-activity detectors and sound classifiers ship: the STFT as a
strided ``Conv1d`` with cosine and sine kernels (never ONNX's own ``STFT`` operator, which
shipped preprocessors use too: held-out set 8's ``whisper128``), the power spectrum
(``Mul``/``Pow``, ``Add``, optionally ``Sqrt``), a mel filter bank as a ``MatMul``,
``Log`` of a clamped value, optional per-utterance normalisation, then a back-end: a 2-D
CNN, a 1-D TDNN, a GRU/LSTM or a transformer encoder, and a linear classifier. Opsets
9–18.

Scaled down: 0.25–1 s of 16 kHz audio, FFT sizes 256–512, 32–80 mel bands, back-ends of
16–128 channels, so that one inference takes a few milliseconds on one core.
"""

from __future__ import annotations

import math
import random

import onnx
import torch
from torch import nn

from nnlat.zoo.corpus.export import OPSETS, export_torchscript, seeded
from nnlat.zoo.corpus.layers import ACTIVATIONS
from nnlat.zoo.family import Config, Family


class ConvStft(nn.Module):
    """Power (or magnitude) spectrum by a fixed ``Conv1d`` of windowed cos/sin kernels."""

    def __init__(self, n_fft: int, hop: int, magnitude: bool) -> None:
        super().__init__()
        bins = n_fft // 2 + 1
        t = torch.arange(n_fft, dtype=torch.float32)
        k = torch.arange(bins, dtype=torch.float32).unsqueeze(1)
        window = torch.hann_window(n_fft)
        angle = 2 * math.pi * k * t / n_fft
        kernels = torch.cat([torch.cos(angle) * window, -torch.sin(angle) * window])
        self.conv = nn.Conv1d(1, 2 * bins, n_fft, hop, bias=False)
        self.conv.weight.data = kernels.unsqueeze(1)
        self.bins, self.magnitude = bins, magnitude

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        spec = self.conv(wave.unsqueeze(1))  # (N, 2*bins, frames)
        real, imag = spec[:, : self.bins], spec[:, self.bins :]
        power = real * real + imag * imag
        return power.sqrt() if self.magnitude else power


class AudioClassifier(nn.Module):
    """Front-end (STFT, mel, log) and a back-end classifier."""

    def __init__(self, c: Config) -> None:
        super().__init__()
        self.c = c
        self.stft = ConvStft(c["n_fft"], c["hop"], c["magnitude"])
        bins = c["n_fft"] // 2 + 1
        self.mel = nn.Parameter(torch.rand(c["n_mels"], bins))  # stands in for a filter bank
        act, width = ACTIVATIONS[c["act"]], c["width"]
        backend = c["backend"]
        if backend == "cnn2d":
            self.body = nn.Sequential(
                nn.Conv2d(1, width, 3, 2, 1),
                act(),
                nn.Conv2d(width, width, 3, 2, 1, groups=width if c["dw"] else 1),
                act(),
                nn.Conv2d(width, width * 2, 3, 2, 1),
                act(),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            out = width * 2
        elif backend == "tdnn":
            self.body = nn.Sequential(
                nn.Conv1d(c["n_mels"], width, 5, 1, 2),
                act(),
                nn.Conv1d(width, width, 3, 1, 2, dilation=2),
                act(),
                nn.Conv1d(width, width, 3, 1, 3, dilation=3),
                act(),
            )
            out = width
        elif backend in ("gru", "lstm"):
            rnn = nn.GRU if backend == "gru" else nn.LSTM
            self.body = rnn(c["n_mels"], width, num_layers=c["layers"], batch_first=True)
            out = width
        else:
            self.proj = nn.Linear(c["n_mels"], width)
            layer = nn.TransformerEncoderLayer(
                width, max(1, width // 32), width * 2, batch_first=True, dropout=0.0
            )
            self.body = nn.TransformerEncoder(layer, c["layers"], enable_nested_tensor=False)
            out = width
        self.fc = nn.Linear(out, c["num_classes"])

    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        c = self.c
        spec = self.stft(wave)  # (N, bins, frames)
        mel = torch.matmul(self.mel, spec)  # (N, mels, frames)
        x = torch.log(torch.clamp(mel, min=1e-6)) if c["log"] == "ln" else torch.log10(mel + 1e-6)
        if c["normalize"]:
            x = (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + 1e-5)
        backend = c["backend"]
        if backend == "cnn2d":
            x = self.body(x.unsqueeze(1))
        elif backend == "tdnn":
            x = self.body(x).mean(-1)
        elif backend in ("gru", "lstm"):
            x, _ = self.body(x.transpose(1, 2))
            x = x[:, -1]
        else:
            x = self.body(self.proj(x.transpose(1, 2))).mean(1)
        return self.fc(x)


def sample(rng: random.Random) -> Config:
    """Draw a front-end (FFT size, hop, mels, log) and a back-end.

    Example:
        >>> c = sample(random.Random(0))
        >>> c["backend"] in ("cnn2d", "tdnn", "gru", "lstm", "transformer")
        True
    """
    backend = rng.choice(["cnn2d", "tdnn", "gru", "lstm", "transformer"])
    n_fft = rng.choice([256, 400, 512])
    return {
        "samples": rng.choice([4000, 8000, 12000, 16000]),
        "n_fft": n_fft,
        "hop": rng.choice([n_fft // 4, n_fft // 2, 160]),
        "magnitude": rng.random() < 0.3,
        "n_mels": rng.choice([32, 40, 64, 80]),
        "log": rng.choice(["ln", "log10"]),
        "normalize": rng.random() < 0.5,
        "backend": backend,
        "width": rng.choice([16, 32, 64, 96, 128]),
        "layers": rng.randint(1, 2),
        "dw": rng.random() < 0.3,
        "act": rng.choice(["relu", "silu", "leaky_relu"]),
        "num_classes": rng.choice([2, 12, 35, 527]),
        # the transformer's attention exports from opset 11 (Where, Range) on
        "opset": rng.choice([o for o in OPSETS if backend != "transformer" or o >= 11]),
        "seed": 0,
    }


def export(config: Config) -> onnx.ModelProto:
    """The configuration's classifier exported at its opset, seeded weights."""
    with seeded(config["seed"]):
        model = AudioClassifier(config)
    return export_torchscript(
        model, {"waveform": torch.randn(1, config["samples"])}, config["opset"]
    )


FAMILY = Family(
    name="audio-frontend",
    summary="waveform-in audio classifiers: conv STFT, mel MatMul, log, CNN/TDNN/RNN/transformer",
    sample=sample,
    build=AudioClassifier,
    input_shape=lambda c: (1, c["samples"]),
    export_onnx=export,
)
