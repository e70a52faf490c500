"""Per-node and per-graph costs: FLOPs, MACs, parameters, bytes moved.

Conventions:
    * ``macs``: multiply-accumulates of the linear-algebra families (conv, conv_transpose,
      gemm, matmul, rnn) — the figure papers publish as "MACs" (or, loosely, "FLOPs").
    * ``flops``: 2 × MACs for those families, plus the arithmetic of every other node
      (one per output element for element-wise ops; see each family below). Bias adds are
      not counted separately.
    * ``params``: elements of the constant tensors a node reads (int64 index/shape
      constants excluded).
    * ``bytes``: bytes read and written by the node: every input (weights included) and
      every output, by dtype size.

An op type without a family (:mod:`nnlat.graph.ops`) gets zero and is listed in
``GraphCost.unknown_ops``; a known op whose shapes could not be inferred gets zero and
is listed in ``GraphCost.uncosted_ops``. Sub-graph nodes (If/Loop bodies) are counted
once each; a Loop's trip count is not multiplied in.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from nnlat.graph.ir import Graph, Node, TensorSpec
from nnlat.graph.ops import op_family, op_name


@dataclass(frozen=True)
class NodeCost:
    """The cost of one node (see the module docstring for the units)."""

    op: str
    family: str
    flops: int
    macs: int
    params: int
    bytes: int
    shapes_known: bool


@dataclass(frozen=True)
class GraphCost:
    """The cost of a graph: totals, per-node costs, and what could not be costed.

    Attributes:
        flops, macs, params, bytes: totals over all nodes (sub-graphs included); ``params``
            counts each constant tensor once even if several nodes read it.
        nodes: per-node costs, top-level graph first then sub-graphs (``Graph.walk`` order).
        unknown_ops: op name → count of nodes with no cost family.
        uncosted_ops: op name → count of known nodes skipped for lack of shapes.
    """

    flops: int
    macs: int
    params: int
    bytes: int
    nodes: tuple[NodeCost, ...]
    unknown_ops: dict[str, int]
    uncosted_ops: dict[str, int]


class _MissingShapeError(Exception):
    """A shape the cost formula needs is unknown."""


def _numel(spec: TensorSpec | None) -> int:
    if spec is None or spec.numel is None:
        raise _MissingShapeError
    return spec.numel


def _dims(spec: TensorSpec | None) -> tuple[int, ...]:
    if spec is None or not spec.is_static:
        raise _MissingShapeError
    return spec.shape  # type: ignore[return-value]


@dataclass(frozen=True)
class _Ctx:
    node: Node
    inputs: tuple[TensorSpec | None, ...]
    outputs: tuple[TensorSpec | None, ...]

    def input(self, index: int) -> TensorSpec | None:
        return self.inputs[index] if index < len(self.inputs) else None

    @property
    def out_numel(self) -> int:
        return _numel(self.outputs[0] if self.outputs else None)


# Each family: ctx → (flops, macs).
def _conv(ctx: _Ctx) -> tuple[int, int]:
    weight = ctx.input(3 if ctx.node.op_type == "QLinearConv" else 1)
    w = _dims(weight)
    macs = ctx.out_numel * w[1] * math.prod(w[2:])
    return 2 * macs, macs


def _conv_transpose(ctx: _Ctx) -> tuple[int, int]:
    w = _dims(ctx.input(1))
    macs = _numel(ctx.input(0)) * w[1] * math.prod(w[2:])
    return 2 * macs, macs


def _gemm(ctx: _Ctx) -> tuple[int, int]:
    a = _dims(ctx.input(0))
    k = a[0] if ctx.node.attr("transA", 0) else a[-1]
    macs = ctx.out_numel * k
    return 2 * macs, macs


def _matmul(ctx: _Ctx) -> tuple[int, int]:
    macs = ctx.out_numel * _dims(ctx.input(0))[-1]
    return 2 * macs, macs


_RNN_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1, "DynamicQuantizeLSTM": 4}


def _rnn(ctx: _Ctx) -> tuple[int, int]:
    x = _dims(ctx.input(0))
    seq, batch = (x[1], x[0]) if ctx.node.attr("layout", 0) else (x[0], x[1])
    hidden = int(ctx.node.attr("hidden_size", 0) or 0)
    if hidden == 0:
        raise _MissingShapeError
    directions = 2 if ctx.node.attr("direction", "forward") == "bidirectional" else 1
    gates = _RNN_GATES[ctx.node.op_type]
    steps = seq * batch * directions * gates * hidden
    macs = steps * (x[-1] + hidden)
    return 2 * macs + steps, macs  # + one pointwise op per gate unit


def _pool(ctx: _Ctx) -> tuple[int, int]:
    kernel = ctx.node.attr("kernel_shape") or ctx.node.attr("pooled_shape") or (2, 2)
    return ctx.out_numel * math.prod(kernel), 0  # type: ignore[arg-type]


def _per_input_element(ctx: _Ctx) -> tuple[int, int]:
    return _numel(ctx.input(0)), 0


def _per_output(factor: int) -> Callable[[_Ctx], tuple[int, int]]:
    return lambda ctx: (factor * ctx.out_numel, 0)


def _elementwise(ctx: _Ctx) -> tuple[int, int]:
    operands = sum(1 for spec in ctx.inputs if spec is not None)
    return ctx.out_numel * max(1, operands - 1), 0


_RESIZE_FLOPS = {"nearest": 1, "linear": 4, "bilinear": 4, "cubic": 16}


def _resize(ctx: _Ctx) -> tuple[int, int]:
    return ctx.out_numel * _RESIZE_FLOPS.get(str(ctx.node.attr("mode", "nearest")), 4), 0


def _free(ctx: _Ctx) -> tuple[int, int]:
    return 0, 0


_COST_OF_FAMILY: dict[str, Callable[[_Ctx], tuple[int, int]]] = {
    "conv": _conv,
    "conv_transpose": _conv_transpose,
    "gemm": _gemm,
    "matmul": _matmul,
    "rnn": _rnn,
    "pool": _pool,
    "global_pool": _per_input_element,
    "reduce": _per_input_element,
    "batch_norm": _per_output(2),  # scale and shift
    "norm": _per_output(5),  # mean, variance, subtract, divide, affine
    "softmax": _per_output(5),  # max, subtract, exp, sum, divide
    "elementwise": _elementwise,
    "quantize": _per_output(2),  # scale and round/shift
    "resize": _resize,
    "data_movement": _free,
    "control_flow": _free,
}


def _is_param(spec: TensorSpec) -> bool:
    return spec.dtype != "int64"


def node_cost(
    graph: Graph, index: int, outer_weights: Mapping[str, TensorSpec] | None = None
) -> NodeCost:
    """The cost of node ``index`` of ``graph``.

    Args:
        graph: the graph holding the node (a sub-graph for an If/Loop body node).
        index: the node's index in ``graph.nodes``.
        outer_weights: weights of the enclosing graphs, for a sub-graph node: a body
            reads the outer graph's weights by name, and they are its parameters too.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> node_cost(load(tiny_model()), 0).macs  # 8x32x32 outputs x 3x3x3 window
        221184
    """
    node = graph.nodes[index]
    family = op_family(node)
    inputs = graph.node_inputs(index)
    outputs = graph.node_outputs(index)
    # A named tensor without a type is unknown, not free: it makes the node uncosted.
    names = (*node.inputs, *node.outputs)
    moved = [
        None if s is None else s.nbytes
        for n, s in zip(names, (*inputs, *outputs), strict=True)
        if n
    ]
    weights = {**(outer_weights or {}), **graph.weights}
    params = sum(
        weights[n].numel or 0 for n in node.inputs if n in weights and _is_param(weights[n])
    )
    shapes_known = True
    flops = macs = 0
    if family != "unknown":
        try:
            flops, macs = _COST_OF_FAMILY[family](_Ctx(node, inputs, outputs))
        except _MissingShapeError:
            shapes_known = False
    shapes_known = shapes_known and all(m is not None for m in moved)
    return NodeCost(
        op=op_name(node),
        family=family,
        flops=int(flops),
        macs=int(macs),
        params=int(params),
        bytes=int(sum(m for m in moved if m is not None)),
        shapes_known=shapes_known,
    )


def _scoped_walk(
    graph: Graph, outer: Mapping[str, TensorSpec]
) -> list[tuple[Graph, int, Mapping[str, TensorSpec]]]:
    """``Graph.walk()`` order, with the enclosing graphs' weights visible to each node."""
    found: list[tuple[Graph, int, Mapping[str, TensorSpec]]] = []
    inner = {**outer, **graph.weights}
    for i, node in enumerate(graph.nodes):
        found.append((graph, i, outer))
        for sub in node.subgraphs:
            found.extend(_scoped_walk(sub, inner))
    return found


def graph_cost(graph: Graph) -> GraphCost:
    """Costs of every node of ``graph`` and its sub-graphs, with totals.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> cost = graph_cost(load(tiny_model()))
        >>> cost.macs, cost.params
        (221184, 224)
    """
    costs: list[NodeCost] = []
    seen: set[int] = set()  # ids of the weights' specs: one object per weight, any scope
    params = 0
    for owner, index, outer in _scoped_walk(graph, {}):
        costs.append(node_cost(owner, index, outer))
        for name in owner.nodes[index].inputs:
            spec = owner.weights.get(name) or outer.get(name)
            if spec is not None and id(spec) not in seen and _is_param(spec):
                seen.add(id(spec))
                params += spec.numel or 0
    unknown = Counter(c.op for c in costs if c.family == "unknown")
    uncosted = Counter(c.op for c in costs if c.family != "unknown" and not c.shapes_known)
    return GraphCost(
        flops=sum(c.flops for c in costs),
        macs=sum(c.macs for c in costs),
        params=params,
        bytes=sum(c.bytes for c in costs),
        nodes=tuple(costs),
        unknown_ops=dict(sorted(unknown.items())),
        uncosted_ops=dict(sorted(uncosted.items())),
    )
