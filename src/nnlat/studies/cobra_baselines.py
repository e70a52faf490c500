"""The baselines of COBRA's Table 1, on the same networks and split as COBRA.

* :func:`layerwise_sum`: each layer of a network timed alone (the per-layer pass,
  :func:`nnlat.datasets.cobra.measure_snippets`), summed, times one scale fitted on the
  training networks (the paper's "calibrated by a scaling factor");
* :func:`brpnas_features`: BRP-NAS's hand-crafted layer representation (after nn-Meter):
  the one-hot layer kind and all its parameters, read off the snippet; with
  ``latency=True`` also the layer's measured latency (BRP-NAS++). The GCN is
  :class:`~nnlat.predictor.networks.brpnas.BrpnasGcn`;
* NNLP on the exported ONNX graph: :class:`~nnlat.predictor.predictor.Predictor` on
  the networks' ONNX features (exported once per study, :mod:`cobra_tasks`).

:func:`baseline` trains any of them and predicts the test networks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch_geometric.data import Data

from nnlat.code.graph import CodeGraph
from nnlat.code.snippet import snippet_input_shapes
from nnlat.datasets.cobra import snippet_key
from nnlat.predictor.training import TrainSettings

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


def baseline(
    method: str,
    data: Mapping[str, Any],
    split: tuple,
    settings: TrainSettings,
    features: Sequence[Any] | None = None,
) -> list[float]:
    """Test predictions (ms) of one baseline trained on the split's training networks.

    Args:
        method: ``layerwise``, ``brpnas``, ``brpnas++`` or ``nnlp``.
        data: the study's ``graphs``, ``networks`` and ``snippets`` (latencies by key).
        split: training, validation and test indices into ``networks``.
        settings: the GCNs' training.
        features: for ``nnlp``, each network's raw ONNX features (in ``networks`` order).
    """
    graphs, networks, snippets = data["graphs"], data["networks"], data["snippets"]
    train, valid, test = split
    y = {i: networks[i]["latency_ms"] for i in range(len(networks))}
    if method == "layerwise":
        sums = {i: layer_sum(graphs[i], snippets) for i in range(len(graphs))}
        scale = layerwise_scale([sums[i] for i in train + valid], [y[i] for i in train + valid])
        return [scale * sums[i] for i in test]
    if method == "nnlp":
        if features is None:
            raise ValueError("nnlp needs the networks' ONNX features")
        return _nnlp(networks, features, split, settings)
    return _brpnas(data, split, settings, with_latency=method == "brpnas++")


def _brpnas(
    data: Mapping[str, Any], split: tuple, settings: TrainSettings, with_latency: bool
) -> list[float]:
    from nnlat.predictor.networks.brpnas import BrpnasConfig, BrpnasGcn
    from nnlat.predictor.training import predict_log, train_network

    graphs, networks = data["graphs"], data["networks"]
    train, valid, test = split
    kinds = sorted({s.kind for i in train for s in graphs[i].snippets})
    latencies = data["snippets"] if with_latency else None
    features = {i: brpnas_features(graphs[i], kinds, latencies) for i in train + valid + test}
    stacked = np.concatenate([features[i] for i in train])
    scaler = (stacked.mean(0), stacked.std(0) + 1e-6)
    as_data = lambda idx: [  # noqa: E731
        brpnas_data(features[i], graphs[i], scaler, networks[i]["latency_ms"]) for i in idx
    ]
    torch.manual_seed(settings.seed)
    net = BrpnasGcn(
        BrpnasConfig(
            node_dim=stacked.shape[1], global_dim=0, platforms=1, hidden=256, static_features=False
        )
    )
    train_network(net, as_data(train), as_data(valid), settings)
    return np.exp(predict_log(net, as_data(test))).tolist()


def _nnlp(
    networks: Sequence[dict], features: Sequence[Any], split: tuple, settings: TrainSettings
) -> list[float]:
    from nnlat.features.records import LatencyRecord
    from nnlat.predictor.predictor import Predictor

    def record(i: int) -> LatencyRecord:
        n = networks[i]
        return LatencyRecord(
            n["graph_hash"], "cobra-net", n["platform"], 1, n["latency_ms"], features[i]
        )

    train, valid, test = split
    fit = [record(i) for i in train + valid]
    # Predictor.fit draws its own validation networks (by graph hash) from the fit pool,
    # the same share as the study's.
    share = len(valid) / len(fit)
    predictor, _ = Predictor.fit(
        fit, network="nnlp", settings=settings.model_copy(update={"valid_fraction": share})
    )
    return predictor.predict_records([record(i) for i in test]).tolist()
