"""``inspect(model) → ModelSummary``: what ``nnlat inspect`` prints."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from nnlat.graph.cost import graph_cost
from nnlat.graph.hashing import HASH_SCHEME_VERSION, graph_key
from nnlat.graph.ir import Graph
from nnlat.graph.kernels import kernel_histogram, split_kernels
from nnlat.graph.load import ModelSource, load
from nnlat.graph.ops import op_name


@dataclass(frozen=True)
class InputSummary:
    """A graph input: name, dtype, static shape."""

    name: str
    dtype: str
    shape: tuple[int | None, ...] | None


@dataclass(frozen=True)
class ModelSummary:
    """Structure and cost of a model (FLOPs = 2 × MACs for linear-algebra ops).

    Attributes:
        graph_hash: the structural hash (16 hex chars) — the database key.
        hash_scheme: version of the hashing scheme.
        flops, macs, params, bytes: totals (see :mod:`nnlat.graph.cost`).
        nodes: number of nodes, sub-graph nodes included.
        op_counts: op name → count, most common first.
        kernels: number of fused kernels (top-level graph).
        kernel_patterns: kernel pattern → count, most common first.
        unknown_ops: op name → count of ops with no cost model (counted as zero FLOPs).
        uncosted_ops: op name → count of known ops left uncosted for lack of shapes.
        inputs, outputs: the graph's interface after shape overrides.
        onnx_bytes: size of the normalised weight-free ONNX (the storage form).
    """

    graph_hash: str
    hash_scheme: int
    flops: int
    macs: int
    params: int
    bytes: int
    nodes: int
    op_counts: dict[str, int]
    kernels: int
    kernel_patterns: dict[str, int]
    unknown_ops: dict[str, int]
    uncosted_ops: dict[str, int]
    inputs: tuple[InputSummary, ...]
    outputs: tuple[InputSummary, ...]
    onnx_bytes: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists)."""
        return asdict(self)


def summarize(graph: Graph) -> ModelSummary:
    """Summarise an already loaded graph."""
    cost = graph_cost(graph)
    kernels = split_kernels(graph)
    ops = Counter(op_name(owner.nodes[i]) for owner, i in graph.walk())
    return ModelSummary(
        graph_hash=graph_key(graph).digest,
        hash_scheme=HASH_SCHEME_VERSION,
        flops=cost.flops,
        macs=cost.macs,
        params=cost.params,
        bytes=cost.bytes,
        nodes=sum(ops.values()),
        op_counts=dict(ops.most_common()),
        kernels=len(kernels),
        kernel_patterns=kernel_histogram(kernels),
        unknown_ops=cost.unknown_ops,
        uncosted_ops=cost.uncosted_ops,
        inputs=tuple(InputSummary(s.name, s.dtype, s.shape) for s in graph.inputs),
        outputs=tuple(InputSummary(s.name, s.dtype, s.shape) for s in graph.outputs),
        onnx_bytes=len(graph.onnx_bytes),
    )


def inspect(
    model: ModelSource,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    batch_size: int | None = None,
) -> ModelSummary:
    """Load ``model`` and summarise its structure and cost.

    Args:
        model: a path, ONNX bytes, an ``onnx.ModelProto`` or a loaded ``Graph``.
        input_shapes: input name → shape overrides (fix dynamic dimensions).
        batch_size: sets dimension 0 of every input without an override.

    Returns:
        A :class:`ModelSummary`.

    Raises:
        NnlatError: the model cannot be loaded or the shapes do not fit.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> s = inspect(tiny_model(), batch_size=2)
        >>> s.op_counts, s.macs
        ({'Conv': 1, 'Relu': 1}, 442368)
    """
    return summarize(load(model, input_shapes=input_shapes, batch_size=batch_size))
