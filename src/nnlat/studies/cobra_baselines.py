"""The baselines of COBRA's Table 1, on the same networks and split as COBRA.

* :func:`layerwise_sum`: each layer of a network timed alone (the per-layer pass,
  :func:`nnlat.datasets.cobra.measure_snippets`), summed, times one scale fitted on the
  training networks (the paper's "calibrated by a scaling factor");
* :func:`brpnas_features`: BRP-NAS's hand-crafted layer representation (after nn-Meter):
  the one-hot layer kind and all its parameters, read off the snippet; with
  ``latency=True`` also the layer's measured latency (BRP-NAS++). The GCN is
  :class:`~nnlat.predictor.networks.brpnas.BrpnasGcn`;
* NNLP on the exported ONNX graph needs nothing here: the study hands
  :class:`~nnlat.predictor.predictor.Predictor` the networks' ONNX records.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch_geometric.data import Data

from nnlat.code.graph import CodeGraph
from nnlat.code.snippet import snippet_input_shapes
from nnlat.datasets.cobra import snippet_key

# Constructor parameters read as numbers (a pair for 2-D ones), in this order.
PARAMETERS = (
    "in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups",
    "num_features", "in_features", "out_features", "output_size",
)  # fmt: skip
SHAPE_DIMS = 4  # input and output shapes are padded / cut to 4 dimensions
UNKNOWN_KIND = "<unk>"


def layerwise_scale(sums: Sequence[float], measured: Sequence[float]) -> float:
    """The scale ``s`` minimising Σ((s·sum − y)/y)²: the calibration of the layer-wise sum.

    Example:
        >>> layerwise_scale([1.0, 2.0], [2.0, 4.0])
        2.0
    """
    ratio = np.asarray(sums, dtype=np.float64) / np.asarray(measured, dtype=np.float64)
    return float(ratio.sum() / (ratio**2).sum())


def layer_sum(graph: CodeGraph, latencies: Mapping[str, float]) -> float:
    """Σ of the measured latencies of a graph's snippets (ms), each looked up by its key."""
    return sum(latencies[snippet_key(s.text)] for s in graph.snippets)


def covered(graph: CodeGraph, latencies: Mapping[str, float]) -> bool:
    """Whether every snippet of ``graph`` was timed alone."""
    return all(snippet_key(s.text) in latencies for s in graph.snippets)


def _numbers(text: str, name: str) -> tuple[float, float]:
    match = re.search(rf"\b{name}=(\(([^)]*)\)|[-\w.]+)", text)
    if match is None:
        return 0.0, 0.0
    raw = match.group(2) if match.group(2) is not None else match.group(1)
    values = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", raw)] or [0.0]
    return values[0], values[1] if len(values) > 1 else values[0]


def _shape(shape: Sequence[int]) -> list[float]:
    dims = [float(d) for d in shape][:SHAPE_DIMS]
    return dims + [0.0] * (SHAPE_DIMS - len(dims))


def brpnas_features(
    graph: CodeGraph,
    kinds: Sequence[str],
    latencies: Mapping[str, float] | None = None,
) -> np.ndarray:
    """Node features of a graph: one-hot kind, log1p of every parameter (and latency).

    Args:
        graph: the interpreted network.
        kinds: the kind vocabulary (from the training networks; others are unknown).
        latencies: snippet key → measured ms, for BRP-NAS++ (None: BRP-NAS).

    Returns:
        nodes × (kinds + 1 + 2·parameters + 1 + 2·4 [+ 1]) float32.
    """
    index = {k: i for i, k in enumerate(kinds)}
    rows = []
    for snippet in graph.snippets:
        onehot = [0.0] * (len(kinds) + 1)
        onehot[index.get(snippet.kind, len(kinds))] = 1.0
        numbers = [v for name in PARAMETERS for v in _numbers(snippet.text, name)]
        inputs = snippet_input_shapes(snippet.text)
        numbers += [float(len(inputs)), *_shape(inputs[0] if inputs else ())]
        numbers += _shape(snippet.output_shapes[0] if snippet.output_shapes else ())
        if latencies is not None:
            numbers.append(latencies[snippet_key(snippet.text)])
        rows.append(onehot + [math.log1p(max(v, 0.0)) for v in numbers])
    return np.asarray(rows, dtype=np.float32)


def brpnas_data(
    features: np.ndarray,
    graph: CodeGraph,
    scaler: tuple[np.ndarray, np.ndarray],
    latency_ms: float,
) -> Data:
    """One BRP-NAS input graph (standardised features, no static features)."""
    mean, std = scaler
    edges = np.array(graph.edges, dtype=np.int64).reshape(-1, 2).T
    return Data(
        x=torch.from_numpy(((features - mean) / std).astype(np.float32)),
        edge_index=torch.from_numpy(edges),
        global_x=torch.zeros(1, 0),
        platform=torch.tensor([0]),
        y=torch.tensor([latency_ms], dtype=torch.float32),
    )
