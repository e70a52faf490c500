"""The fast paths of raw features, costs and kernels against plain recomputations.

``raw_features`` and ``graph_cost`` read per-graph lookup tables, rows kept across graphs
by node signature, cached window and shape columns, kernel groups without patterns and
edge pairs without ``Edge`` objects. Cached feature files and the shipped predictor depend
on their exact outputs, so each result is compared here, bit for bit, with a
straightforward derivation from the IR.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from nnlat.errors import InvalidModelError
from nnlat.features import raw as raw_module
from nnlat.features.raw import (
    GRAPH_COLUMNS,
    NODE_COLUMNS,
    RawFeatures,
    _pads,
    _pair,
    _window,
    raw_features,
)
from nnlat.graph import Graph, graph_cost, load, node_cost, split_kernels
from nnlat.graph.cost import cost_table
from nnlat.graph.ir import Node, TensorSpec
from nnlat.graph.kernels import kernel_groups
from nnlat.graph.onnx_io import model_to_ir
from nnlat.graph.ops import op_name
from nnlat.testing import tiny_model
from nnlat.zoo.realworld import EXAMPLE_INPUT_SHAPES, REALWORLD_BUILDERS

LIGHT_MODELS = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
# Real-world imitations with sub-graphs (If, Loop), a custom-domain op and uncosted nodes.
REALWORLD = (
    "custom_domain_op",
    "if_subgraph",
    "loop_subgraph",
    "scripted_control_flow",
    "greedy_decoder_loop",
    "bert_encoder",
)
LIGHT = ("light_resnet50.onnx", "light_shufflenet.onnx", "light_inception_v1.onnx")


def edge_cases() -> onnx.ModelProto:
    """A tensor read twice, an omitted optional input, a graph output that another node
    reads, an int64 constant, and an op nothing can type."""
    conv = helper.make_node(
        "Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=1
    )
    nodes = [
        conv,
        helper.make_node("Mul", ["c", "c"], ["sq"]),
        helper.make_node("Clip", ["sq", "", "hi"], ["clipped"]),
        helper.make_node("Relu", ["clipped"], ["r"]),
        helper.make_node("Reshape", ["r", "shape"], ["flat"]),
        helper.make_node("Mystery", ["flat"], ["out"], domain="my.domain"),
    ]
    graph = helper.make_graph(
        nodes,
        "edge_cases",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
        [
            helper.make_tensor_value_info("clipped", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("out", TensorProto.FLOAT, None),
        ],
        initializer=[
            numpy_helper.from_array(np.zeros((4, 2, 3, 3), np.float32), "w"),
            numpy_helper.from_array(np.array(6.0, np.float32), "hi"),
            numpy_helper.from_array(np.array([1, -1], np.int64), "shape"),
        ],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("my.domain", 1)]
    return helper.make_model(graph, opset_imports=opsets)


@functools.cache
def graph_named(name: str) -> Graph:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dynamic dimensions set to defaults
        if name == "tiny":
            return load(tiny_model())
        if name == "edge_cases":
            return load(edge_cases())
        if name == "nasbench201":
            from nnlat.zoo.generate import generate_variants

            return next(iter(generate_variants("nasbench201", 1, seed=3))).graph
        if name.endswith(".onnx"):
            return load(LIGHT_MODELS / name)
        builder, _, shapes = name.partition("@")
        return load(
            REALWORLD_BUILDERS[builder](), input_shapes=shapes and EXAMPLE_INPUT_SHAPES[builder]
        )


NAMES = [
    "tiny",
    "edge_cases",
    "nasbench201",
    *LIGHT,
    *REALWORLD,
    *(f"{name}@shapes" for name in REALWORLD if name in EXAMPLE_INPUT_SHAPES),
]


@pytest.fixture(params=NAMES)
def graph(request: pytest.FixtureRequest) -> Graph:
    return graph_named(request.param)


def fresh(graph: Graph) -> Graph:
    """The same graph as new IR objects: nothing cached on them yet."""
    return model_to_ir(onnx.load_from_string(graph.onnx_bytes))


# Straightforward recomputations: the pre-speed-up code, in its plainest form.


def plain_scopes(graph: Graph) -> list[tuple[Graph, Node, Mapping[str, TensorSpec]]]:
    """``Graph.walk()`` order, each node with the weights it can read."""
    found = []

    def visit(owner: Graph, outer: Mapping[str, TensorSpec]) -> None:
        weights = {**outer, **owner.weights}
        for node in owner.nodes:
            found.append((owner, node, weights))
            for sub in node.subgraphs:
                visit(sub, weights)

    visit(graph, {})
    return found


def plain_bytes_and_params(owner: Graph, node: Node, weights: Mapping[str, TensorSpec]) -> tuple:
    specs = [owner.tensors.get(n) for n in (*node.inputs, *node.outputs) if n]
    sizes = [None if s is None else s.nbytes for s in specs]
    params = sum(
        weights[n].numel or 0 for n in node.inputs if n in weights and weights[n].dtype != "int64"
    )
    return sum(s for s in sizes if s is not None), params, all(s is not None for s in sizes)


def plain_raw(graph: Graph) -> RawFeatures:
    """``raw_features`` as first written: NodeCost objects, Node.attr, Edge objects."""
    total = graph_cost(graph)
    costs = np.zeros((len(graph.nodes), 4))
    current = 0
    for (owner, index), cost in zip(graph.walk(), total.nodes, strict=True):
        if owner is graph:
            current = index
        costs[current] += (cost.flops, cost.macs, cost.params, cost.bytes)

    def shape4(shape: tuple | None) -> list[int]:
        if shape is None:
            return [0] * 5
        dims = [d or 0 for d in shape][-4:]
        return [len(shape), *([0] * (4 - len(dims))), *dims]

    rows = []
    for index, node in enumerate(graph.nodes):
        first_in = graph.tensors.get(node.inputs[0]) if node.inputs and node.inputs[0] else None
        first_out = graph.tensors.get(node.outputs[0]) if node.outputs else None
        group = node.attr("group", 1)
        rows.append(
            [
                *_pair(node.attr("kernel_shape"), 0),
                *_pair(node.attr("strides"), 1),
                *_pads(node.attr("pads")),
                *_pair(node.attr("dilations"), 1),
                int(group) if isinstance(group, int) else 1,
                *shape4(None if first_in is None else first_in.shape),
                *shape4(None if first_out is None else first_out.shape),
                *costs[index],
            ]
        )
    edges = sorted({(e.src, e.dst) for e in graph.edges})
    kernels = split_kernels(graph)
    kernel_ids = np.zeros(len(graph.nodes), dtype=np.int64)
    for k, kernel in enumerate(kernels):
        kernel_ids[list(kernel.nodes)] = k
    batch = graph.inputs[0].shape[0] if graph.inputs and graph.inputs[0].shape else 1
    totals = [total.flops, total.macs, total.params, total.bytes]
    return RawFeatures(
        op_types=tuple(op_name(node) for node in graph.nodes),
        node_values=np.asarray(rows, dtype=np.float64).reshape(len(rows), len(NODE_COLUMNS)),
        edge_index=np.asarray(edges, dtype=np.int64).reshape(-1, 2).T.copy(),
        graph_values=np.asarray(
            [batch or 1, *totals, len(graph.nodes), len(kernels)], dtype=np.float64
        ),
        kernel_ids=kernel_ids,
    )


def assert_identical(got: RawFeatures, want: RawFeatures) -> None:
    assert got.op_types == want.op_types
    for field in ("node_values", "edge_index", "graph_values", "kernel_ids"):
        a, b = getattr(got, field), getattr(want, field)
        assert a.dtype == b.dtype and a.shape == b.shape, field
        assert a.flags.c_contiguous == b.flags.c_contiguous, field
        assert np.array_equal(a, b), field


# Tests.


def test_raw_features_match_the_plain_derivation(graph: Graph) -> None:
    want = plain_raw(fresh(graph))
    new = fresh(graph)
    assert_identical(raw_features(new), want)
    assert_identical(raw_features(new), want)  # again, with properties cached on the IR
    assert want.node_values.shape[1] == len(NODE_COLUMNS)
    assert want.graph_values.shape == (len(GRAPH_COLUMNS),)


def test_rows_kept_from_earlier_graphs_are_the_rows_computed_afresh(graph: Graph) -> None:
    want = plain_raw(fresh(graph))
    raw_module._ROWS.clear()
    assert_identical(raw_features(fresh(graph)), want)  # every row computed
    assert_identical(raw_features(fresh(graph)), want)  # every row kept from the first


def two_input_mul(second: str) -> onnx.ModelProto:
    """``x * second`` on [1, 4, 8, 8]: ``second`` is a weight (``"w"``) or an input."""
    spec = [1, 4, 8, 8]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, spec) for n in ("x", "y")]
    weight = numpy_helper.from_array(np.ones(spec, np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", second], ["out"])],
        "mul",
        inputs if second == "y" else inputs[:1],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, spec)],
        initializer=[weight] if second == "w" else [],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_kept_row_is_not_reused_for_an_input_of_the_same_type_that_is_no_weight() -> None:
    params = NODE_COLUMNS.index("params")
    raw_module._ROWS.clear()
    with_weight, with_input = (raw_features(load(two_input_mul(n))) for n in ("w", "y"))
    assert with_weight.node_values[0, params] == 256
    assert with_input.node_values[0, params] == 0
    assert with_weight.graph_values[GRAPH_COLUMNS.index("params")] == 256


def test_node_bytes_params_and_totals_match_a_plain_recount(graph: Graph) -> None:
    cost = graph_cost(fresh(graph))
    scopes = plain_scopes(graph)
    assert len(cost.nodes) == len(scopes)
    seen: dict[int, int] = {}
    for got, (owner, node, weights) in zip(cost.nodes, scopes, strict=True):
        moved, params, sizes_known = plain_bytes_and_params(owner, node, weights)
        assert (got.op, got.bytes, got.params) == (op_name(node), moved, params)
        assert type(got.bytes) is int and type(got.params) is int
        if not sizes_known:
            assert not got.shapes_known
        for name in node.inputs:
            if name in weights and weights[name].dtype != "int64":
                seen[id(weights[name])] = weights[name].numel or 0
    assert cost.params == sum(seen.values())
    assert cost.flops == sum(c.flops for c in cost.nodes)
    assert cost.bytes == sum(c.bytes for c in cost.nodes)


def test_node_cost_agrees_with_graph_cost_in_every_scope(graph: Graph) -> None:
    cost = graph_cost(graph)
    for got, (owner, node, weights) in zip(cost.nodes, plain_scopes(graph), strict=True):
        outer = {k: v for k, v in weights.items() if k not in owner.weights}
        assert node_cost(owner, owner.nodes.index(node), outer or None) == got


def test_cost_table_holds_the_numbers_of_graph_cost(graph: Graph) -> None:
    cost, table = graph_cost(graph), cost_table(fresh(graph))
    assert table.nodes == tuple((c.flops, c.macs, c.params, c.bytes) for c in cost.nodes)
    assert (table.flops, table.macs, table.params, table.bytes) == (
        cost.flops,
        cost.macs,
        cost.params,
        cost.bytes,
    )


def test_kernel_groups_are_the_nodes_of_split_kernels(graph: Graph) -> None:
    assert kernel_groups(graph) == [list(k.nodes) for k in split_kernels(fresh(graph))]


def test_consumers_match_a_plain_recount(graph: Graph) -> None:
    readers: dict[str, list[int]] = {}
    for i, node in enumerate(graph.nodes):
        for name in node.inputs:
            if name:
                readers.setdefault(name, []).append(i)
    assert fresh(graph).consumers == {k: tuple(dict.fromkeys(v)) for k, v in readers.items()}


@pytest.mark.parametrize(
    ("shape", "itemsize"),
    [(None, 4), ((), 4), ((2, 3), 4), ((2, None, 3), 4), ((None,), 2), ((5, 7), 0), ((0, 3), 8)],
)
def test_tensor_sizes(shape: tuple | None, itemsize: int) -> None:
    spec = TensorSpec("t", "float32", shape, itemsize)
    static = shape is not None and all(d is not None for d in shape)
    numel = int(np.prod(shape, dtype=np.int64)) if static else None
    assert (spec.is_static, spec.numel) == (static, numel)
    assert spec.nbytes == (None if numel is None or itemsize == 0 else numel * itemsize)


def test_duplicated_attribute_names_never_reach_the_features() -> None:
    """The ONNX checker refuses them at load (they used to be read first-wins here)."""
    model = edge_cases()
    [conv] = [n for n in model.graph.node if n.op_type == "Conv"]
    conv.attribute.extend([helper.make_attribute("group", 2)])
    with pytest.raises(InvalidModelError, match="appeared multiple times"):
        load(model)


@pytest.mark.parametrize(
    "attributes",
    [
        (("group", 2), ("kernel_shape", (3, 3))),
        (("group", 2.0), ("kernel_shape", (3, 3))),  # equal to the above as a cache key
        (("group", True), ("kernel_shape", (3.0, 3.0)), ("strides", (2,))),
        (("dilations", (1, 2, 2)), ("pads", (0, 1, 1, 0, 1, 1))),
        (("kernel_shape", (5,)), ("pads", (2, 2))),
    ],
)
def test_window_columns_match_node_attr(attributes: tuple) -> None:
    node = Node("n", "Conv", "", attributes, ("x", "w"), ("y",))
    group = node.attr("group", 1)
    want = (
        *_pair(node.attr("kernel_shape"), 0),
        *_pair(node.attr("strides"), 1),
        *_pads(node.attr("pads")),
        *_pair(node.attr("dilations"), 1),
        int(group) if isinstance(group, int) else 1,
    )
    for _ in range(2):  # computed, then from the cache
        assert _window(node) == want
