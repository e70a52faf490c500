"""Graph → raw features: numbers read off the IR, before any vocabulary or scaling.

Raw features depend only on the graph, so they can be cached by graph hash and reused
by every predictor; :class:`~nnlat.features.schema.FeatureSchema` turns them into model
inputs with a vocabulary and scalers fitted on training data.

Per node (top-level nodes; a node holding sub-graphs — If, Loop, Scan — carries the
costs of its bodies): the operator name, the window attributes (kernel, strides, pads,
dilations, group), the first input's and the first output's shapes right-aligned to
four dimensions (N, C, H, W for a 2-D convolution) and their ranks, and the node's
FLOPs, MACs, parameters and bytes moved. Per graph: batch size and the cost totals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nnlat.graph.cost import graph_cost
from nnlat.graph.ir import Graph, Node
from nnlat.graph.kernels import split_kernels
from nnlat.graph.ops import op_name

NODE_COLUMNS: tuple[str, ...] = (
    "kernel_h",
    "kernel_w",
    "stride_h",
    "stride_w",
    "pad_h",
    "pad_w",
    "dilation_h",
    "dilation_w",
    "group",
    "in_rank",
    "in_d0",
    "in_d1",
    "in_d2",
    "in_d3",
    "out_rank",
    "out_d0",
    "out_d1",
    "out_d2",
    "out_d3",
    "flops",
    "macs",
    "params",
    "bytes",
)
GRAPH_COLUMNS: tuple[str, ...] = (
    "batch_size",
    "flops",
    "macs",
    "params",
    "bytes",
    "nodes",
    "kernels",
)


@dataclass(frozen=True)
class RawFeatures:
    """The raw features of one graph.

    Attributes:
        op_types: operator name per node (``Conv``, ``com.microsoft:Attention``).
        node_values: float64, nodes × ``len(NODE_COLUMNS)``, unscaled.
        edge_index: int64, 2 × edges, (producer, consumer) node indices.
        graph_values: float64, ``len(GRAPH_COLUMNS)``, unscaled.
        kernel_ids: int64 per node, the index of its kernel (:func:`split_kernels`), for
            predictors that work kernel by kernel.
    """

    op_types: tuple[str, ...]
    node_values: np.ndarray
    edge_index: np.ndarray
    graph_values: np.ndarray
    kernel_ids: np.ndarray

    def kernel_patterns(self) -> list[str]:
        """Each kernel's op types joined by ``+`` (``Conv+Relu``), in kernel order."""
        members: dict[int, list[str]] = {}
        for op, kernel in zip(self.op_types, self.kernel_ids.tolist(), strict=True):
            members.setdefault(kernel, []).append(op)
        return ["+".join(members[k]) for k in sorted(members)]

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The arrays to save with ``numpy.savez`` (see :meth:`from_arrays`)."""
        return {
            "op_types": np.array(self.op_types, dtype=str),
            "node_values": self.node_values,
            "edge_index": self.edge_index,
            "graph_values": self.graph_values,
            "kernel_ids": self.kernel_ids,
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> RawFeatures:
        """Inverse of :meth:`to_arrays`."""
        return cls(
            tuple(str(op) for op in arrays["op_types"]),
            np.asarray(arrays["node_values"], dtype=np.float64),
            np.asarray(arrays["edge_index"], dtype=np.int64).reshape(2, -1),
            np.asarray(arrays["graph_values"], dtype=np.float64),
            np.asarray(arrays["kernel_ids"], dtype=np.int64),
        )


def _pair(value: object, default: int) -> tuple[int, int]:
    """The last two entries of an int list attribute (H, W), or ``default`` twice."""
    if isinstance(value, tuple) and value:
        ints = [int(v) for v in value]
        return (ints[-2] if len(ints) >= 2 else ints[-1], ints[-1])
    return default, default


def _pads(value: object) -> tuple[int, int]:
    """Total padding along H and W from ONNX ``pads`` (all begins, then all ends)."""
    if not isinstance(value, tuple) or not value:
        return 0, 0
    ints = [int(v) for v in value]
    half = len(ints) // 2
    totals = [ints[i] + ints[i + half] for i in range(half)]
    return (totals[-2] if half >= 2 else totals[-1], totals[-1])


def _shape4(shape: tuple[int | None, ...] | None) -> list[int]:
    """Rank, then the last four dimensions right-aligned (missing or unknown → 0)."""
    if shape is None:
        return [0, 0, 0, 0, 0]
    dims = [d or 0 for d in shape][-4:]
    return [len(shape), *([0] * (4 - len(dims))), *dims]


def _window(node: Node) -> list[int]:
    kernel = _pair(node.attr("kernel_shape"), 0)
    strides = _pair(node.attr("strides"), 1)
    pads = _pads(node.attr("pads"))
    dilations = _pair(node.attr("dilations"), 1)
    group = node.attr("group", 1)
    return [*kernel, *strides, *pads, *dilations, int(group) if isinstance(group, int) else 1]


def raw_features(graph: Graph) -> RawFeatures:
    """Read the raw features off ``graph``.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> raw = raw_features(load(tiny_model()))
        >>> raw.op_types, raw.node_values.shape, raw.edge_index.tolist()
        (('Conv', 'Relu'), (2, 23), [[0], [1]])
        >>> float(raw.node_values[0, NODE_COLUMNS.index("kernel_h")])
        3.0
        >>> raw.kernel_patterns()
        ['Conv+Relu']
    """
    total = graph_cost(graph)
    # Per top-level node: its own cost plus its bodies'. graph_cost lists nodes in
    # Graph.walk order, where a node's sub-graph nodes follow it.
    costs = np.zeros((len(graph.nodes), 4))
    current = 0
    for (owner, index), cost in zip(graph.walk(), total.nodes, strict=True):
        if owner is graph:
            current = index
        costs[current] += (cost.flops, cost.macs, cost.params, cost.bytes)
    rows = []
    for index, node in enumerate(graph.nodes):
        first_in = graph.tensors.get(node.inputs[0]) if node.inputs and node.inputs[0] else None
        first_out = graph.tensors.get(node.outputs[0]) if node.outputs else None
        rows.append(
            [
                *_window(node),
                *_shape4(None if first_in is None else first_in.shape),
                *_shape4(None if first_out is None else first_out.shape),
                *costs[index],
            ]
        )
    edges = sorted({(e.src, e.dst) for e in graph.edges})
    kernels = split_kernels(graph)
    kernel_ids = np.zeros(len(graph.nodes), dtype=np.int64)
    for k, kernel in enumerate(kernels):
        kernel_ids[list(kernel.nodes)] = k
    batch = graph.inputs[0].shape[0] if graph.inputs and graph.inputs[0].shape else 1
    return RawFeatures(
        op_types=tuple(op_name(node) for node in graph.nodes),
        node_values=np.asarray(rows, dtype=np.float64).reshape(len(rows), len(NODE_COLUMNS)),
        edge_index=np.asarray(edges, dtype=np.int64).reshape(-1, 2).T.copy(),
        graph_values=np.asarray(
            [
                batch or 1,
                total.flops,
                total.macs,
                total.params,
                total.bytes,
                len(graph.nodes),
                len(kernels),
            ],
            dtype=np.float64,
        ),
        kernel_ids=kernel_ids,
    )
