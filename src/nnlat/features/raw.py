"""Graph → raw features: numbers read off the IR, before any vocabulary or scaling.

Raw features depend only on the graph, so they can be cached by graph hash and reused
by every predictor; :class:`~nnlat.features.schema.FeatureSchema` turns them into model
inputs with a vocabulary and scalers fitted on training data.

Per node (top-level nodes; a node holding sub-graphs — If, Loop, Scan — carries the
costs of its bodies): the operator name, the window attributes (kernel, strides, pads,
dilations, group), the first input's and the first output's shapes right-aligned to
four dimensions (N, C, H, W for a 2-D convolution) and their ranks, and the node's
FLOPs, MACs, parameters and bytes moved. Per graph: batch size and the cost totals.

A node's row depends only on the node and the types of its tensors, so rows are kept
by that signature across graphs: a batch from one search space computes each distinct
row once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from nnlat.graph.cost import CostTable, cost_table, node_coster, weight_params
from nnlat.graph.ir import Graph, Node, TensorSpec
from nnlat.graph.kernels import kernel_groups
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


@lru_cache(maxsize=4096)
def _shape4(shape: tuple[int | None, ...] | None) -> tuple[int, ...]:
    """Rank, then the last four dimensions right-aligned (missing or unknown → 0).

    Cached: a graph has few distinct shapes, and most tensors are some node's first
    output and another's first input.
    """
    if shape is None:
        return (0, 0, 0, 0, 0)
    dims = [d or 0 for d in shape][-4:]
    return (len(shape), *([0] * (4 - len(dims))), *dims)


# The window columns of a node without attributes: every entry at its default.
_NO_WINDOW = (0, 0, 1, 1, 0, 0, 1, 1, 1)


def _window(node: Node) -> tuple[int, ...]:
    if not node.attributes:
        return _NO_WINDOW
    # One dict rather than five Node.attr scans; reversed so that, as with Node.attr, the
    # first of duplicated names wins (load does not reject duplicates).
    attrs = dict(reversed(node.attributes))
    return _window_of(
        attrs.get("kernel_shape"),
        attrs.get("strides"),
        attrs.get("pads"),
        attrs.get("dilations"),
        attrs.get("group", 1),
    )


# typed: a float group of 2.0 equals 2 as a key but gives a group column of 1.
@lru_cache(maxsize=4096, typed=True)
def _window_of(
    kernel_shape: object, strides: object, pads: object, dilations: object, group: object
) -> tuple[int, ...]:
    """The window columns from the attribute values (cached: a graph has few windows)."""
    return (
        *_pair(kernel_shape, 0),
        *_pair(strides, 1),
        *_pads(pads),
        *_pair(dilations, 1),
        int(group) if isinstance(group, int) else 1,
    )


def _node_costs(graph: Graph, table: CostTable) -> np.ndarray:
    """Per top-level node: flops, macs, params and bytes of itself and its bodies.

    Returns:
        float64, nodes × 4.
    """
    walked = np.array(table.nodes, dtype=np.float64).reshape(-1, 4)
    if len(walked) == len(graph.nodes):
        return walked  # no node has a body: walk order is node order
    # The table lists nodes in Graph.walk order, where a node's sub-graph nodes follow
    # it; the float64 sums run in that order.
    costs = np.zeros((len(graph.nodes), 4))
    current = 0
    for (owner, index), row in zip(graph.walk(), walked, strict=True):
        if owner is graph:
            current = index
        costs[current] += row
    return costs


def _edge_index(graph: Graph) -> np.ndarray:
    """int64, 2 × edges: the distinct ``(src, dst)`` pairs of ``graph.edges``, sorted.

    Read off ``graph.producer`` directly: building the :class:`~nnlat.graph.ir.Edge`
    objects costs more than the rest of the features of a small graph.
    """
    producer = graph.producer
    n = len(graph.nodes)
    # Each pair as the integer src * n + dst (dst < n): sorting these sorts the pairs.
    codes = {
        producer[name] * n + dst
        for dst, node in enumerate(graph.nodes)
        for name in (*node.inputs, *node.implicit_inputs)
        if name in producer
    }
    flat = np.array(sorted(codes), dtype=np.int64)
    return np.stack([flat // n, flat % n])


def _layout(node: Node, tensors: Mapping[str, TensorSpec]) -> tuple[int, ...]:
    """The window columns of ``node``, then its first input's and first output's shape."""
    first_in = tensors.get(node.inputs[0]) if node.inputs and node.inputs[0] else None
    first_out = tensors.get(node.outputs[0]) if node.outputs else None
    return (
        *_window(node),
        *_shape4(None if first_in is None else first_in.shape),
        *_shape4(None if first_out is None else first_out.shape),
    )


# A node's row is a function of its signature (:func:`_signature`), and in a batch of
# graphs from one search space the same signatures come back again and again (a
# NAS-Bench-201 graph has ~140 nodes and ~25 distinct rows), so rows are kept by it.
# Emptied when full (~1.3 KB a row, so under 30 MB): one search space's rows fit many
# times over.
_ROWS: dict[tuple[object, ...], tuple[float, ...]] = {}
MAX_KEPT_ROWS = 20_000


def _signature(
    node: Node, tensors: Mapping[str, TensorSpec], weights: Mapping[str, TensorSpec]
) -> tuple[object, ...] | None:
    """All a top-level node's row is computed from: operator, attributes, and the type of
    each input and output with whether it is a weight. None where a tensor is untyped."""
    key: list[object] = [node.op_type, node.domain, node.attributes, len(node.inputs)]
    get = tensors.get
    for name in node.inputs + node.outputs:
        if not name:
            key.append(None)
            continue
        spec = get(name)
        if spec is None:
            return None
        key += (spec.dtype, spec.shape, name in weights)  # the dtype fixes the item size
    return tuple(key)


def _kept_rows(graph: Graph) -> list[tuple[float, ...]] | None:
    """Each node's row, from :data:`_ROWS` where kept; None if a node holds bodies."""
    tensors, weights = graph.tensors, graph.weights
    coster = None
    rows = []
    for node in graph.nodes:
        key = _signature(node, tensors, weights)
        row = _ROWS.get(key) if key is not None else None
        if row is None:
            # Only rows of body-free nodes are kept, and a Graph attribute equals only
            # itself: a node found in _ROWS has no bodies, so only a miss is checked.
            if node.subgraphs:
                return None
            coster = coster or node_coster(graph)
            row = (*_layout(node, tensors), *coster(node))
            if key is not None:
                if len(_ROWS) >= MAX_KEPT_ROWS:
                    _ROWS.clear()
                _ROWS[key] = row
        rows.append(row)
    return rows


def _node_values(graph: Graph) -> tuple[np.ndarray, int]:
    """float64 nodes × ``NODE_COLUMNS``, and the parameters of the whole graph."""
    nodes = graph.nodes
    rows = _kept_rows(graph)
    if rows is None:
        # A node holding bodies carries their costs: the graph is costed in one walk.
        table = cost_table(graph)
        layout = [_layout(node, graph.tensors) for node in nodes]
        costs = _node_costs(graph, table)
        return np.concatenate([np.array(layout, dtype=np.float64), costs], axis=1), table.params
    values = np.array(rows, dtype=np.float64).reshape(len(nodes), len(NODE_COLUMNS))
    return values, weight_params(graph, graph.consumers)  # the kernel split reads it too


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
    nodes = graph.nodes
    node_values, params = _node_values(graph)
    flops, macs, _, moved = node_values[:, -4:].sum(axis=0).tolist()
    groups = kernel_groups(graph)
    kernel_ids = [0] * len(nodes)
    for k, group in enumerate(groups):
        for index in group:
            kernel_ids[index] = k
    batch = graph.inputs[0].shape[0] if graph.inputs and graph.inputs[0].shape else 1
    return RawFeatures(
        op_types=tuple(op_name(node) for node in nodes),
        node_values=node_values,
        edge_index=_edge_index(graph),
        graph_values=np.array(
            [batch or 1, flops, macs, params, moved, len(nodes), len(groups)], dtype=np.float64
        ),
        kernel_ids=np.array(kernel_ids, dtype=np.int64),
    )
