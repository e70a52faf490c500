"""Sequence models over frame features: recurrent cells and attention, as in speech and OCR.

The CNN families never show a latency predictor the operators of audio, OCR and text
models; this family does: ONNX ``LSTM`` and ``GRU`` (uni- and bidirectional, stacked),
``Conv`` over one dimension, ``MatMul`` + ``Softmax`` attention, ``LayerNormalization``,
GELU (``Erf``) and the ``Transpose``/``Reshape`` between them.

The input is ``(1, frames, features)``: e.g. filterbank frames of speech or the column
features of a text line. This family has no ``resolution``: a configuration carries
``frames`` and ``features`` instead, and :func:`input_shape` maps them to the input. The
network, batch-first throughout so that every exported shape is static:

1. an optional Conv1d front end (0 to :data:`MAX_FRONTEND` layers, kernel 3/5/11, stride
   1 or 2, "same" padding, ReLU/GELU/HardSwish, optional BatchNorm — which the exporter
   folds into the convolution) that may shorten the sequence, as speech front ends do;
2. 1 to :data:`MAX_BLOCKS` blocks, each a one-layer ``nn.LSTM`` or ``nn.GRU`` (hidden
   64–512, bidirectional or not) or a pre-norm transformer encoder block (the one of
   :mod:`nnlat.zoo.vit`, attention written out op by op), preceded by a Linear
   projection where the incoming width differs from the block's; kinds may mix, as in
   CRNN-like or conformer-ish stacks;
3. a LayerNorm if the last block is a transformer block (pre-norm blocks leave their
   output unnormalised), and a Linear to ``num_classes`` on every frame (CTC-style).

A configuration holds ``frames``, ``features``, ``num_classes``, ``frontend`` (a list of
``{"channels", "kernel", "stride", "activation", "batch_norm"}``) and ``blocks`` (a list
of ``{"kind": "lstm" | "gru", "hidden", "bidirectional"}`` or ``{"kind": "transformer",
"dim", "heads", "mlp_dim"}``). Half the stacks repeat one block, as most published models
do; the rest draw every block independently. Variants over :data:`MAX_MACS` are redrawn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from torch import Tensor, nn

from nnlat.zoo.family import Config, Family
from nnlat.zoo.vit import EncoderBlock

FRAMES = tuple(range(25, 401, 25))
FEATURES = (40, 64, 80, 128, 256)  # filterbank sizes; 128/256 also OCR column features
# Per-frame outputs: character sets (29: DeepSpeech's English, 37: alphanumerics + CTC
# blank), phone sets, then subword and word vocabularies.
CLASSES = (29, 37, 41, 80, 256, 500, 1000, 2000, 5000)
MAX_FRONTEND = 3
CONV_CHANNELS = tuple(range(64, 513, 32))
CONV_KERNELS = (3, 5, 11)
CONV_STRIDES = (1, 2)
ACTIVATIONS = ("relu", "gelu", "hardswish")
MAX_BLOCKS = 4
BLOCK_KINDS = ("lstm", "gru", "transformer")
HIDDEN = tuple(range(64, 513, 32))
DIMS = tuple(range(128, 513, 64))  # multiples of both head widths
HEAD_DIMS = (32, 64)
MLP_RATIOS = (2, 4)
# Keeps a variant well under a second on one CPU thread: recurrent cells run step by step.
MAX_MACS = 1.5e9


@dataclass(frozen=True)
class SampleSpace:
    """The choices :func:`sample` draws from; :data:`SPACE` is the default, others smaller.

    Attributes:
        frames, features, classes: input length, input width and per-frame outputs.
        max_frontend: most Conv1d front-end layers.
        conv_channels: front-end widths.
        max_blocks: most recurrent or transformer blocks.
        hidden: recurrent hidden sizes.
        dims, head_dims: transformer widths and per-head widths (each dim a multiple of
            every head width).
        max_macs: multiply-accumulate budget of a whole network.
    """

    frames: tuple[int, ...] = FRAMES
    features: tuple[int, ...] = FEATURES
    classes: tuple[int, ...] = CLASSES
    max_frontend: int = MAX_FRONTEND
    conv_channels: tuple[int, ...] = CONV_CHANNELS
    max_blocks: int = MAX_BLOCKS
    hidden: tuple[int, ...] = HIDDEN
    dims: tuple[int, ...] = DIMS
    head_dims: tuple[int, ...] = HEAD_DIMS
    max_macs: float = MAX_MACS


SPACE = SampleSpace()

# ONNX gate count per cell type, as in nnlat.graph.cost.
_GATES = {"lstm": 4, "gru": 3}

_ACTIVATION: dict[str, type[nn.Module]] = {
    "relu": nn.ReLU,
    "gelu": nn.GELU,
    "hardswish": nn.Hardswish,
}

CANONICAL: dict[str, Config] = {
    # The recurrent part of CRNN (Shi et al., "An End-to-End Trainable Neural Network for
    # Image-based Sequence Recognition", TPAMI 2017): the CNN maps a 100x32 text image to
    # 26 columns of 512 features; two bidirectional LSTM layers of 256 units and a per-frame
    # transcription to 36 alphanumerics + blank. The CNN is left out, and so is the Linear
    # that the crnn.pytorch code adds after each LSTM.
    "crnn_rnn": {
        "frames": 26,
        "features": 512,
        "num_classes": 37,
        "frontend": [],
        "blocks": [
            {"kind": "lstm", "hidden": 256, "bidirectional": True},
            {"kind": "lstm", "hidden": 256, "bidirectional": True},
        ],
    },
}


class Recurrent(nn.Module):
    """One ``nn.LSTM`` or ``nn.GRU`` layer on ``(N, T, C)``, returning only its outputs.

    No initial state is passed: the exporter then builds the zero state from the input's
    batch size (``Shape``/``Expand``), so the export loads at any batch size; normalisation
    folds that state into a constant of the batch it loads at.
    """

    def __init__(self, kind: str, width: int, hidden: int, bidirectional: bool) -> None:
        super().__init__()
        cell = nn.LSTM if kind == "lstm" else nn.GRU
        self.rnn = cell(width, hidden, batch_first=True, bidirectional=bidirectional)

    def forward(self, x: Tensor) -> Tensor:
        return self.rnn(x)[0]


class SeqNet(nn.Module):
    """Conv1d front end → recurrent/transformer blocks → per-frame Linear.

    Args:
        frames: input sequence length.
        features: input features per frame.
        num_classes: outputs per frame.
        frontend: the Conv1d layers, as in a configuration.
        blocks: the blocks, as in a configuration.
    """

    def __init__(
        self,
        *,
        frames: int,
        features: int,
        num_classes: int,
        frontend: list[dict[str, Any]],
        blocks: list[dict[str, Any]],
    ) -> None:
        super().__init__()
        width = features
        convs: list[nn.Module] = []
        for layer in frontend:
            channels, kernel, stride = layer["channels"], layer["kernel"], layer["stride"]
            bias = not layer["batch_norm"]  # BatchNorm brings its own shift
            convs.append(nn.Conv1d(width, channels, kernel, stride, kernel // 2, bias=bias))
            if layer["batch_norm"]:
                convs.append(nn.BatchNorm1d(channels))
            convs.append(_ACTIVATION[layer["activation"]]())
            width, frames = channels, _conv_frames(frames, stride)
        self.frontend = nn.Sequential(*convs) if convs else None
        layers: list[nn.Module] = []
        for block in blocks:
            if block["kind"] == "transformer":
                dim = block["dim"]
                if dim % block["heads"]:
                    raise ValueError(f"dim {dim} must be a multiple of heads {block['heads']}")
                if width != dim:
                    layers.append(nn.Linear(width, dim))
                layers.append(EncoderBlock(dim, block["heads"], block["mlp_dim"], frames))
            else:
                bidirectional = block["bidirectional"]
                layers.append(Recurrent(block["kind"], width, block["hidden"], bidirectional))
            width = _block_width(block)
        if blocks[-1]["kind"] == "transformer":
            layers.append(nn.LayerNorm(width))
        self.blocks = nn.Sequential(*layers)
        self.head = nn.Linear(width, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        if self.frontend is not None:
            # Conv1d wants channels first: (N, T, F) → (N, F, T) and back.
            x = self.frontend(x.transpose(1, 2)).transpose(1, 2)
        return self.head(self.blocks(x))


def _conv_frames(frames: int, stride: int) -> int:
    """Output length of an odd-kernel convolution with "same" padding."""
    return (frames - 1) // stride + 1


def _block_width(block: dict[str, Any]) -> int:
    if block["kind"] == "transformer":
        return int(block["dim"])
    return int(block["hidden"]) * (2 if block["bidirectional"] else 1)


def output_frames(config: Config) -> int:
    """Frames left after the front end's strides.

    Example:
        >>> output_frames({"frames": 100, "frontend": [{"stride": 2}, {"stride": 2}]})
        25
    """
    frames = config["frames"]
    for layer in config["frontend"]:
        frames = _conv_frames(frames, layer["stride"])
    return int(frames)


def output_shape(config: Config) -> tuple[int, ...]:
    """``(1, T, num_classes)``: per-frame logits, ``T`` = :func:`output_frames`.

    Example:
        >>> output_shape({"frames": 100, "frontend": [{"stride": 2}], "num_classes": 29})
        (1, 50, 29)
    """
    return (1, output_frames(config), config["num_classes"])


def estimate_macs(config: Config) -> int:
    """Multiply-accumulates of the convolutions, recurrent cells, Linears and attention.

    Recurrent cells count ``gates × hidden × (input + hidden)`` per frame and direction,
    as :mod:`nnlat.graph.cost` does for ONNX ``LSTM``/``GRU``.

    Args:
        config: a seqnet configuration.

    Returns:
        The MAC count for one input sequence.

    Example:
        >>> estimate_macs(CANONICAL["crnn_rnn"])
        82281472
    """
    frames, width, macs = config["frames"], config["features"], 0
    for layer in config["frontend"]:
        frames = _conv_frames(frames, layer["stride"])
        macs += frames * layer["channels"] * width * layer["kernel"]
        width = layer["channels"]
    for block in config["blocks"]:
        if block["kind"] == "transformer":
            dim, mlp_dim = block["dim"], block["mlp_dim"]
            if width != dim:
                macs += frames * width * dim
            # qkv + out projections and the MLP per frame, plus q @ k^T and attention @ v.
            macs += frames * (4 * dim * dim + 2 * dim * mlp_dim) + 2 * frames * frames * dim
        else:
            hidden = block["hidden"]
            directions = 2 if block["bidirectional"] else 1
            macs += frames * directions * _GATES[block["kind"]] * hidden * (width + hidden)
        width = _block_width(block)
    return int(macs + frames * width * config["num_classes"])


def input_shape(config: Config) -> tuple[int, ...]:
    """``(1, frames, features)``.

    Example:
        >>> input_shape(CANONICAL["crnn_rnn"])
        (1, 26, 512)
    """
    return (1, config["frames"], config["features"])


def _sample_block(rng: random.Random, kind: str, space: SampleSpace) -> dict[str, Any]:
    if kind == "transformer":
        dim = rng.choice(space.dims)
        return {
            "kind": kind,
            "dim": dim,
            "heads": dim // rng.choice(space.head_dims),
            "mlp_dim": dim * rng.choice(MLP_RATIOS),
        }
    return {"kind": kind, "hidden": rng.choice(space.hidden), "bidirectional": rng.random() < 0.5}


def _sample_frontend_layer(rng: random.Random, space: SampleSpace) -> dict[str, Any]:
    return {
        "channels": rng.choice(space.conv_channels),
        "kernel": rng.choice(CONV_KERNELS),
        "stride": rng.choice(CONV_STRIDES),
        "activation": rng.choice(ACTIVATIONS),
        "batch_norm": rng.random() < 0.5,
    }


def sample(rng: random.Random, space: SampleSpace = SPACE) -> Config:
    """Draw a sequence model of at most ``space.max_macs`` multiply-accumulates.

    Args:
        rng: the only source of randomness.
        space: the choices drawn from.

    Returns:
        A configuration for :func:`build`.

    Example:
        >>> config = sample(random.Random(0))
        >>> estimate_macs(config) <= MAX_MACS
        True
    """
    while True:
        depth = rng.randint(1, space.max_blocks)
        if rng.random() < 0.5:  # a uniform stack, as most published models are
            blocks = [_sample_block(rng, rng.choice(BLOCK_KINDS), space)] * depth
        else:
            blocks = [_sample_block(rng, rng.choice(BLOCK_KINDS), space) for _ in range(depth)]
        # Drawn in this order so that the default space draws the variants already measured.
        frames, features = rng.choice(space.frames), rng.choice(space.features)
        num_classes = rng.choice(space.classes)
        frontend_depth = rng.randint(0, space.max_frontend)
        config: Config = {
            "frames": frames,
            "features": features,
            "num_classes": num_classes,
            "frontend": [_sample_frontend_layer(rng, space) for _ in range(frontend_depth)],
            "blocks": [dict(block) for block in blocks],  # no shared dicts in the config
        }
        if estimate_macs(config) <= space.max_macs:
            return config


def build(config: Config) -> nn.Module:
    """Build the sequence model of ``config``.

    Args:
        config: a configuration from :func:`sample` or :data:`CANONICAL`.

    Returns:
        The network; it maps ``(N, frames, features)`` to ``(N, T, num_classes)`` per-frame
        logits, ``T`` = :func:`output_frames`.
    """
    return SeqNet(**config)


FAMILY = Family(
    name="seqnet",
    summary="Speech/OCR sequence models: Conv1d front end, LSTM/GRU/transformer blocks",
    sample=sample,
    build=build,
    input_shape=input_shape,
    output_shape=output_shape,
    canonical=CANONICAL,
)
