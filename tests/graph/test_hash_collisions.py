"""The graph hash never collides for different structures (issue 29).

Ground truth is graph isomorphism (networkx) over the loaded graphs: nodes labelled by op
type, attributes, output shapes and graph-output positions, edges by which output feeds
which input slot. Two random graphs hash equal exactly when they are isomorphic.
"""

from __future__ import annotations

import networkx as nx
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from networkx.algorithms.isomorphism import categorical_multiedge_match
from onnx import TensorProto, helper

from nnlat.errors import InvalidModelError
from nnlat.graph import Graph, graph_key, load
from nnlat.graph.hashing import _escape

OPS = {"Relu": 1, "Neg": 1, "Add": 2, "Sub": 2, "Mul": 2}


@st.composite
def layer_lists(draw: st.DrawFn) -> tuple[list[tuple[str, tuple[int, ...]]], list[int]]:
    """Layers (op, inputs; 0 is the graph input) and which layers are graph outputs."""
    count = draw(st.integers(1, 6))
    layers = []
    for i in range(1, count + 1):
        op = draw(st.sampled_from(sorted(OPS)))
        layers.append((op, tuple(draw(st.integers(0, i - 1)) for _ in range(OPS[op]))))
    outputs = draw(st.lists(st.integers(0, count), min_size=1, max_size=3, unique=True))
    if all(o == 0 for o in outputs):
        outputs.append(count)
    return layers, outputs


def build(spec: tuple[list[tuple[str, tuple[int, ...]]], list[int]]) -> onnx.ModelProto:
    layers, outputs = spec
    names = ["x", *(f"t{i}" for i in range(1, len(layers) + 1))]
    nodes = [
        helper.make_node(op, [names[j] for j in inputs], [names[i]])
        for i, (op, inputs) in enumerate(layers, start=1)
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(names[o], TensorProto.FLOAT, [2, 3]) for o in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _type(spec) -> tuple[str, tuple[int | None, ...] | None] | None:
    return None if spec is None else (spec.dtype, spec.shape)


def structure(graph: Graph) -> nx.MultiDiGraph:
    """The graph as labelled nodes and edges; graph inputs and outputs are nodes too."""
    g = nx.MultiDiGraph()
    out_pos: dict[str, list[int]] = {}
    for k, spec in enumerate(graph.outputs):
        out_pos.setdefault(spec.name, []).append(k)
    for i, node in enumerate(graph.nodes):
        outs = tuple((_type(graph.tensors.get(o)), tuple(out_pos.get(o, ()))) for o in node.outputs)
        g.add_node(("n", i), label=(node.domain, node.op_type, repr(node.attributes), outs))
    for spec in graph.inputs:
        g.add_node(
            ("in", spec.name), label=("input", _type(spec), tuple(out_pos.get(spec.name, ())))
        )
    for dst, node in enumerate(graph.nodes):
        for slot, name in enumerate(node.inputs):
            if name in graph.producer:
                src = graph.producer[name]
                index = graph.nodes[src].outputs.index(name)
                g.add_edge(("n", src), ("n", dst), label=(index, slot))
            else:
                g.add_edge(("in", name), ("n", dst), label=(0, slot))
    return g


def isomorphic(a: Graph, b: Graph) -> bool:
    return nx.is_isomorphic(
        structure(a),
        structure(b),
        node_match=lambda x, y: x["label"] == y["label"],
        edge_match=categorical_multiedge_match("label", None),
    )


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@pytest.mark.slow
@given(layer_lists(), layer_lists())
def test_equal_hashes_exactly_for_isomorphic_graphs(a, b) -> None:
    ga, gb = load(build(a)), load(build(b))
    assert (graph_key(ga) == graph_key(gb)) == isomorphic(ga, gb)


def _graph(nodes, outputs, inputs=("x",)) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(i, TensorProto.FLOAT, [2]) for i in inputs],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, [2]) for o in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_the_two_graphs_of_the_issue_are_refused_not_hashed_alike() -> None:
    # A cycle (a → b → a) and a graph without outputs shared one hash before.
    cyclic = _graph(
        [
            helper.make_node("Add", ["x", "b"], ["a"]),
            helper.make_node("Relu", ["a"], ["b"]),
        ],
        ["b"],
    )
    no_outputs = _graph([helper.make_node("Relu", ["x"], ["a"])], [])
    for model, reason in ((cyclic, "cycle"), (no_outputs, "no outputs")):
        with pytest.raises(InvalidModelError, match=reason):
            load(model)


def test_hash_refuses_a_graph_out_of_topological_order() -> None:
    graph = load(
        _graph(
            [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["a"], ["b"])], ["b"]
        )
    )
    shuffled = Graph(
        nodes=graph.nodes[::-1],
        inputs=graph.inputs,
        outputs=graph.outputs,
        weights=graph.weights,
        tensors=graph.tensors,
    )
    with pytest.raises(InvalidModelError, match="topological order"):
        graph_key(shuffled)


def test_passed_through_outputs_and_missing_outputs_change_the_hash() -> None:
    base = load(_graph([helper.make_node("Relu", ["x"], ["a"])], ["a"]))
    with_input_out = load(_graph([helper.make_node("Relu", ["x"], ["a"])], ["a", "x"]))
    assert graph_key(base) != graph_key(with_input_out)
    no_outputs = Graph(
        nodes=base.nodes, inputs=base.inputs, outputs=(), weights=base.weights, tensors=base.tensors
    )
    assert graph_key(no_outputs) != graph_key(base)


def test_separators_in_names_are_escaped() -> None:
    assert _escape("Conv") == "Conv"
    assert _escape("Bar|attr:x=int:1") != "Bar|attr:x=int:1"
    assert _escape("a%7c") != _escape("a|")
