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
is listed in ``GraphCost.uncosted_ops``. Sub-graph nodes count once per run of their body:
a Scan body's FLOPs, MACs and bytes are multiplied by the Scan's length
(:func:`scan_iterations`); If branches and Loop bodies count once (a Loop's trip count is
a runtime value).

:func:`graph_cost` describes every node with a :class:`NodeCost`; :func:`cost_table` gives
the same numbers without them (about a fifth cheaper), for feature extraction.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Container, Mapping
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
    numel = None if spec is None else spec.numel
    if numel is None:
        raise _MissingShapeError
    return numel


def _dims(spec: TensorSpec | None) -> tuple[int, ...]:
    if spec is None or not spec.is_static:
        raise _MissingShapeError
    return spec.shape  # type: ignore[return-value]


@dataclass(slots=True)
class _Ctx:
    """What a family's formula reads: the node, and its graph's tensor types by name.

    Types are looked up when a formula asks: most formulas read one or two of them.
    """

    node: Node
    tensors: Mapping[str, TensorSpec]

    def input(self, index: int) -> TensorSpec | None:
        names = self.node.inputs
        return self.tensors.get(names[index]) if index < len(names) and names[index] else None

    def typed_inputs(self) -> int:
        """How many inputs are given and typed."""
        count = 0
        for name in self.node.inputs:
            if name and name in self.tensors:
                count += 1
        return count

    @property
    def out_numel(self) -> int:
        names = self.node.outputs
        spec = self.tensors.get(names[0]) if names and names[0] else None
        numel = None if spec is None else spec.numel
        if numel is None:
            raise _MissingShapeError
        return numel


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
    operands = ctx.typed_inputs()
    return ctx.out_numel * max(1, operands - 1), 0


_RESIZE_FLOPS = {"nearest": 1, "linear": 4, "bilinear": 4, "cubic": 16}


def _resize(ctx: _Ctx) -> tuple[int, int]:
    return ctx.out_numel * _RESIZE_FLOPS.get(str(ctx.node.attr("mode", "nearest")), 4), 0


def _free(ctx: _Ctx) -> tuple[int, int]:
    return 0, 0


def _transform_flops(length: int) -> float:
    """Flops of one Fourier transform of ``length`` points as onnxruntime 1.32 computes it.

    A power of two takes a complex radix-2 FFT, 5·N·log2 N, also for a real input's
    one-sided output (the half is copied out after). Any other length takes Bluestein's
    chirp transform through the next power of two M ≥ 2N - 1, about two FFTs of M: timed
    by ``benchmarks/stft_lengths.py``, every frame length from 300 to 511 points costs the
    same (M = 1,024), 2.3 times a 1,024-point frame, and 520 to 700 points twice that.
    """
    length = max(length, 2)
    if length & (length - 1) == 0:
        return 5 * length * math.log2(length)
    chirp = 1 << (2 * length - 2).bit_length()
    return 2 * 5 * chirp * math.log2(chirp)


def _spectral(ctx: _Ctx) -> tuple[int, int]:
    """DFT and STFT: :func:`_transform_flops` per transform in the output.

    Read off the output (``[..., bins, 2]``, real and imaginary last): the transform
    length N is the bins, or 2·(bins - 1) for a one-sided (real-input) transform.
    """
    names = ctx.node.outputs
    spec = ctx.tensors.get(names[0]) if names and names[0] else None
    dims = _dims(spec)
    if len(dims) < 2 or spec is None or spec.numel is None:
        raise _MissingShapeError
    axis = int(ctx.node.attr("axis", -2)) if ctx.node.op_type == "DFT" else -2  # type: ignore[arg-type]
    bins = max(dims[axis], 1)
    onesided = bool(ctx.node.attr("onesided", 1 if ctx.node.op_type == "STFT" else 0))
    length = 2 * (bins - 1) if onesided else bins
    transforms = spec.numel // 2 // bins
    return int(transforms * _transform_flops(length)), 0


def _tree_ensemble(ctx: _Ctx) -> tuple[int, int]:
    """One comparison per level of each tree, per input row: rows × Σ (log2 leaves + 1).

    A tree's depth is taken as that of a balanced tree with its leaves (the path a row
    walks); the trees and leaves come from the node's attributes (``nodes_treeids`` and
    ``nodes_modes`` up to ai.onnx.ml opset 3; ``tree_roots`` and the leaf lists after).
    """
    node = ctx.node
    x = _dims(ctx.input(0))
    rows = x[0] if len(x) > 1 else 1
    tree_ids, modes = node.attr("nodes_treeids"), node.attr("nodes_modes")
    if isinstance(tree_ids, tuple) and isinstance(modes, tuple):
        leaves = Counter(t for t, m in zip(tree_ids, modes, strict=False) if m == "LEAF")
        depths = [math.log2(max(n, 1)) + 1 for n in leaves.values()]
    else:
        roots, leaf_ids = node.attr("tree_roots", ()), node.attr("leaf_targetids", ())
        trees = len(roots) if isinstance(roots, tuple) else 0
        per_tree = len(leaf_ids) / trees if isinstance(leaf_ids, tuple) and trees else 1
        depths = [math.log2(max(per_tree, 1)) + 1] * trees
    return int(rows * sum(depths)), 0


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
    "spectral": _spectral,
    "tree_ensemble": _tree_ensemble,
    "control_flow": _free,
}


def _is_param(spec: TensorSpec) -> bool:
    return spec.dtype != "int64"


@dataclass(frozen=True)
class _Scope:
    """What the nodes of one (sub-)graph share, built once per graph rather than per node.

    Attributes:
        tensors: the graph's tensor types by name (enclosing graphs' included).
        weights: the weights its nodes can read: its own over the enclosing graphs'.
        param_numel: elements of each of those weights that counts as parameters.
        nbytes: ``TensorSpec.nbytes`` of each tensor in ``tensors``, by name: a tensor
            is read by one node or more besides the node writing it.
    """

    tensors: Mapping[str, TensorSpec]
    weights: Mapping[str, TensorSpec]
    param_numel: Mapping[str, int]
    nbytes: Mapping[str, int | None]

    @classmethod
    def of(cls, graph: Graph, outer_weights: Mapping[str, TensorSpec]) -> _Scope:
        weights = {**outer_weights, **graph.weights}
        return cls(
            tensors=graph.tensors,
            weights=weights,
            param_numel={n: s.numel or 0 for n, s in weights.items() if _is_param(s)},
            nbytes={n: s.nbytes for n, s in graph.tensors.items()},
        )


# A node's costs as plain values: family, flops, macs, params, bytes, shapes_known.
_Values = tuple[str, int, int, int, int, bool]


def _node_values(node: Node, scope: _Scope) -> _Values:
    """The numbers of :func:`node_cost`, without building a NodeCost."""
    param_numel, nbytes = scope.param_numel, scope.nbytes
    params = moved = 0
    sizes_known = True
    for name in node.inputs:
        params += param_numel.get(name, 0)
    for name in (*node.inputs, *node.outputs):
        if name:
            size = nbytes.get(name)
            # A named tensor without a type is unknown, not free: the node is uncosted.
            if size is None:
                sizes_known = False
            else:
                moved += size
    family = op_family(node)
    shapes_known = True
    flops = macs = 0
    if family != "unknown":
        try:
            flops, macs = _COST_OF_FAMILY[family](_Ctx(node, scope.tensors))
        except _MissingShapeError:
            shapes_known = False
    return family, int(flops), int(macs), int(params), int(moved), shapes_known and sizes_known


def node_cost(
    graph: Graph, index: int, outer_weights: Mapping[str, TensorSpec] | None = None
) -> NodeCost:
    """The cost of node ``index`` of ``graph``.

    Args:
        graph: the graph holding the node (a sub-graph for an If/Loop body node).
        index: the node's index in ``graph.nodes``.
        outer_weights: weights of the enclosing graphs, for a sub-graph node: a body
            reads the outer graph's weights by name, and they are its parameters too.

    Each call builds lookup tables over the whole graph: to cost every node, use
    :func:`graph_cost`, which builds them once.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> node_cost(load(tiny_model()), 0).macs  # 8x32x32 outputs x 3x3x3 window
        221184
    """
    node = graph.nodes[index]
    return NodeCost(op_name(node), *_node_values(node, _Scope.of(graph, outer_weights or {})))


def node_coster(graph: Graph) -> Callable[[Node], tuple[int, int, int, int]]:
    """A function giving ``(flops, macs, params, bytes)`` of a top-level node of ``graph``.

    The graph's lookup tables are built once, here: for a caller that costs some of a
    graph's nodes, where :func:`node_cost` would rebuild them for each.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> graph = load(tiny_model())
        >>> node_coster(graph)(graph.nodes[0])[1] == node_cost(graph, 0).macs
        True
    """
    scope = _Scope.of(graph, {})
    return lambda node: _node_values(node, scope)[1:5]


def weight_params(graph: Graph, read: Container[str]) -> int:
    """Parameters of the top-level weights of ``graph`` named in ``read``, each counted once.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> graph = load(tiny_model())
        >>> weight_params(graph, set(graph.nodes[0].inputs)) == cost_table(graph).params
        True
    """
    return sum(s.numel or 0 for n, s in graph.weights.items() if n in read and _is_param(s))


def _costed_walk(graph: Graph) -> tuple[list[tuple[Node, _Values]], int]:
    """Each node of ``graph`` and its sub-graphs with its values, and the graph's params.

    Nodes come in ``Graph.walk()`` order; params count each constant tensor once.
    """
    walked: list[tuple[Node, _Values]] = []
    # Parameters of every weight read, by the id of its spec: one object per weight,
    # whichever scope reads it.
    params: dict[int, int] = {}

    def visit(owner: Graph, outer: Mapping[str, TensorSpec], times: int) -> None:
        scope = _Scope.of(owner, outer)
        read: set[str] = set()
        for node in owner.nodes:
            family, flops, macs, node_params, moved, known = _node_values(node, scope)
            walked.append(
                (node, (family, flops * times, macs * times, node_params, moved * times, known))
            )
            read.update(node.inputs)
            for sub in node.subgraphs:
                visit(sub, scope.weights, times * scan_iterations(node, scope.tensors))
        for name in read & scope.param_numel.keys():
            params[id(scope.weights[name])] = scope.param_numel[name]

    visit(graph, {}, 1)
    return walked, sum(params.values())


def scan_iterations(node: Node, tensors: Mapping[str, TensorSpec]) -> int:
    """How many times ``node``'s body runs per run of the node: a Scan's length along its
    first scan input's axis; 1 for any other node, or when that length is unknown.

    A Loop's trip count is a runtime input (its work is data-dependent) and an If runs one
    branch: both count their bodies once.

    Example:
        >>> from nnlat.graph.ir import Node, TensorSpec
        >>> scan = Node("s", "Scan", "", (("num_scan_inputs", 1),), ("state", "xs"), ("y", "ys"))
        >>> scan_iterations(scan, {"xs": TensorSpec("xs", "float32", (500, 1, 400))})
        500
    """
    if node.op_type != "Scan":
        return 1
    scanned = len(node.inputs) - int(node.attr("num_scan_inputs", 1) or 1)  # type: ignore[arg-type]
    axes = node.attr("scan_input_axes") or (0,)
    spec = tensors.get(node.inputs[scanned]) if 0 <= scanned < len(node.inputs) else None
    dims = spec.shape if spec is not None else None
    axis = int(axes[0])  # type: ignore[index]
    if not dims or not -len(dims) <= axis < len(dims):
        return 1
    length = dims[axis]
    return length if isinstance(length, int) and length > 0 else 1


def graph_cost(graph: Graph) -> GraphCost:
    """Costs of every node of ``graph`` and its sub-graphs, with totals.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> cost = graph_cost(load(tiny_model()))
        >>> cost.macs, cost.params
        (221184, 224)
    """
    walked, params = _costed_walk(graph)
    costs = [NodeCost(op_name(node), *values) for node, values in walked]
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


@dataclass(frozen=True)
class CostTable:
    """The numbers of :class:`GraphCost` without a :class:`NodeCost` per node.

    Cheaper to build than :func:`graph_cost`, for feature extraction.

    Attributes:
        nodes: ``(flops, macs, params, bytes)`` per node, in ``Graph.walk`` order.
        flops, macs, params, bytes: the totals, as in :class:`GraphCost`.
    """

    nodes: tuple[tuple[int, int, int, int], ...]
    flops: int
    macs: int
    params: int
    bytes: int


def cost_table(graph: Graph) -> CostTable:
    """The numbers of :func:`graph_cost`: per node (``Graph.walk`` order) and totals.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> from nnlat.graph import load
        >>> table = cost_table(load(tiny_model()))
        >>> table.nodes[0][1] == graph_cost(load(tiny_model())).nodes[0].macs
        True
    """
    walked, params = _costed_walk(graph)
    rows = tuple(values[1:5] for _, values in walked)
    # Column totals; the per-node params column over-counts shared weights, hence params.
    columns = zip(*rows, strict=True) if rows else ((), (), (), ())
    flops, macs, _, moved = (sum(column) for column in columns)
    return CostTable(nodes=rows, flops=flops, macs=macs, params=params, bytes=moved)
