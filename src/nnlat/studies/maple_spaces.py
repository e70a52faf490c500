"""The search spaces the MAPLE study reads: an architecture as a CSV cell, an encoding, a recipe.

The study's tables keep one architecture per row as a string (``arch``). For NAS-Bench-201
that is the cell's usual string; for PerfSAGE's keyword-spotting space (``cnn-kws``, the
issue's EdgeDLPerf-like space) it is the zoo recipe as compact, key-sorted JSON. Each space
says how that string becomes MAPLE's architecture encoding and the zoo recipe to export.

Only NAS-Bench-201 has primitive workloads that compose with an architecture's operator
counts (``composes``): the look-up-table methods (``maple-ops``, ``maple-lut``, ``lut``…)
need them; the regressors (``maple``, its ablation, ``help``) and ``nnlp-ft`` need only
the encoding or the graph, so they run on every space.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nnlat.zoo.edge import cnn_kws
from nnlat.zoo.family import Config
from nnlat.zoo.nasbench201 import OPS, arch_config, parse_arch


@dataclass(frozen=True)
class Space:
    """How the study reads one search space.

    Attributes:
        family: the zoo family the campaign measured (``nnlat dataset build -f``).
        label: the space in a report's words.
        arch: a stored zoo recipe (``zoo_spec["config"]``) → the table's ``arch`` string.
        config: the inverse: an ``arch`` string → the recipe the family builds.
        encode: an ``arch`` string → MAPLE's architecture encoding (a fixed-length vector).
        encoding: that encoding in a report's words.
        composes: whether the descriptor's primitives compose with the architecture's
            operator counts (the look-up-table methods need it).
        graph_family: the zoo family whose export ``nnlp-ft`` reads as a graph (for
            NAS-Bench-201 the float ONNX network the int8 files were converted from).
    """

    family: str
    label: str
    arch: Callable[[Config], str]
    config: Callable[[str], Config]
    encode: Callable[[str], np.ndarray]
    encoding: str
    composes: bool
    graph_family: str


def encode_nb201(arch: str) -> np.ndarray:
    """One-hot operation matrix of a cell (MAPLE's encoding, after White et al.): 6 × 5 → 30.

    Example:
        >>> from nnlat.zoo.nasbench201 import ALL_CONV3X3
        >>> encode_nb201(ALL_CONV3X3).reshape(6, 5)[0].tolist()
        [0.0, 0.0, 0.0, 1.0, 0.0]
    """
    edges = [op for node in parse_arch(arch) for op, _ in node]
    out = np.zeros((len(edges), len(OPS)))
    for row, op in enumerate(edges):
        out[row, OPS.index(op)] = 1.0
    return out.ravel()


def kws_arch(config: Config) -> str:
    """A keyword spotter's recipe as the table's ``arch`` string: compact, key-sorted JSON.

    Example:
        >>> kws_arch({"layers": [], "frames": 49})
        '{"frames":49,"layers":[]}'
    """
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def _one_hot(value: int, options: tuple[int, ...]) -> list[float]:
    return [float(value == option) for option in options]


def _width(channels: int) -> float:
    """Channels 32 … 512 as 0 … 1 on a log scale (a layer's cost grows with its width's square)."""
    low, high = cnn_kws.CHANNELS[0], cnn_kws.CHANNELS[-1]
    return float(np.log2(channels / low) / np.log2(high / low))


def encode_kws(arch: str) -> np.ndarray:
    """A keyword spotter as 80 numbers: the first convolution, then eight layer slots.

    First convolution: one-hot time kernel (4) and frequency kernel (3), log width (1).
    Each slot of :data:`~nnlat.zoo.edge.cnn_kws.MAX_LAYERS`: present (1), log width (1),
    one-hot depthwise time kernel (4) and frequency kernel (3); empty slots are zeros.
    Layers fill the slots in order, as MAPLE's fixed-length encodings do.

    Example:
        >>> import random
        >>> from nnlat.zoo.edge.cnn_kws import sample
        >>> vector = encode_kws(kws_arch(sample(random.Random(0)).to_config()))
        >>> vector.shape
        (80,)
    """
    config = json.loads(arch)
    time, freq = config["first_kernel"]
    values = [
        *_one_hot(time, cnn_kws.FIRST_TIME_KERNELS),
        *_one_hot(freq, cnn_kws.FIRST_FREQ_KERNELS),
        _width(config["first_channels"]),
    ]
    layers = config["layers"]
    for slot in range(cnn_kws.MAX_LAYERS):
        if slot >= len(layers):
            values += [0.0] * (2 + len(cnn_kws.TIME_KERNELS) + len(cnn_kws.FREQ_KERNELS))
            continue
        time, freq = layers[slot]["kernel"]
        values += [
            1.0,
            _width(layers[slot]["channels"]),
            *_one_hot(time, cnn_kws.TIME_KERNELS),
            *_one_hot(freq, cnn_kws.FREQ_KERNELS),
        ]
    return np.array(values)


NB201 = Space(
    family="nasbench201-int8",
    label="NAS-Bench-201 int8 TFLite",
    arch=lambda config: config["arch"],
    config=arch_config,
    encode=encode_nb201,
    encoding="one-hot cell",
    composes=True,
    graph_family="nasbench201",
)
KWS = Space(
    family="cnn-kws",
    label="CNN-KWS (PerfSAGE's keyword-spotting space) int8 TFLite",
    arch=kws_arch,
    config=json.loads,
    encode=encode_kws,
    encoding="the 80-number layer encoding of `maple_spaces.encode_kws`",
    composes=False,
    graph_family="cnn-kws",
)
SPACES = {space.family: space for space in (NB201, KWS)}


def space_of(family: str) -> Space:
    """The :class:`Space` of a zoo family.

    Raises:
        ValueError: a family the study cannot read, with the ones it can.

    Example:
        >>> space_of("cnn-kws").composes
        False
    """
    if family not in SPACES:
        raise ValueError(f"the MAPLE study reads {', '.join(SPACES)}, not {family!r}")
    return SPACES[family]
