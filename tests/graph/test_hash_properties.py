"""Property tests of the graph hash on randomly built graphs.

Invariant to: node and tensor names, node order in the file, weight values, doc strings.
Sensitive to: any attribute, shape, op type or edge.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from nnlat.graph import graph_key, load

UNARY = ("Relu", "Sigmoid", "Tanh", "Abs")
BINARY = ("Add", "Mul", "Sub")


@dataclass
class Layer:
    """One layer of a random graph: an op reading earlier layers (index 0 = the input)."""

    op: str
    inputs: tuple[int, ...]
    kernel: int = 3
    channels: int = 4
    in_channels: int = 4


@st.composite
def random_graphs(draw: st.DrawFn) -> list[Layer]:
    """A random DAG of convs, unary and binary element-wise ops over a 1x4x8x8 input."""
    count = draw(st.integers(2, 9))
    layers: list[Layer] = []
    for i in range(1, count + 1):
        kind = draw(st.sampled_from(("conv", "unary", "binary")))
        first = draw(st.integers(0, i - 1))
        if kind == "conv":
            layers.append(Layer("Conv", (first,), kernel=draw(st.sampled_from((1, 3)))))
        elif kind == "unary":
            layers.append(Layer(draw(st.sampled_from(UNARY)), (first,)))
        else:
            second = draw(st.integers(0, i - 1))
            layers.append(Layer(draw(st.sampled_from(BINARY)), (first, second)))
    return layers


def build(
    layers: list[Layer],
    *,
    names: str = "t",
    order_seed: int | None = None,
    weight_seed: int = 0,
    doc: str = "",
) -> onnx.ModelProto:
    """An ONNX model of ``layers``; the final node sums every layer without a reader."""
    rng = np.random.default_rng(weight_seed)
    tensor = ["x"] + [f"{names}{i}" for i in range(1, len(layers) + 1)]
    nodes, inits = [], []
    for i, layer in enumerate(layers, start=1):
        ins = [tensor[j] for j in layer.inputs]
        attrs = {}
        if layer.op == "Conv":
            w = f"{names}w{i}"
            shape = (layer.channels, layer.in_channels, layer.kernel, layer.kernel)
            inits.append(numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), w))
            ins.append(w)
            attrs = {"kernel_shape": [layer.kernel] * 2, "pads": [layer.kernel // 2] * 4}
        nodes.append(
            helper.make_node(
                layer.op, ins, [tensor[i]], name=f"{names}n{i}", doc_string=doc, **attrs
            )
        )
    read = {j for layer in layers for j in layer.inputs}
    leaves = [tensor[i] for i in range(1, len(layers) + 1) if i not in read]
    nodes.append(helper.make_node("Sum", leaves, ["y"], name=f"{names}sum"))
    if order_seed is not None:
        random.Random(order_seed).shuffle(nodes)
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=inits,
        doc_string=doc,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], doc_string=doc)


def key(model: onnx.ModelProto) -> str:
    return graph_key(load(model)).digest


SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@SETTINGS
@given(random_graphs(), st.integers(0, 10_000))
def test_hash_ignores_names_order_weights_and_docs(layers: list[Layer], seed: int) -> None:
    base = key(build(layers))
    assert key(build(layers, names="renamed_")) == base
    assert key(build(layers, order_seed=seed)) == base
    assert key(build(layers, weight_seed=seed + 1)) == base
    assert key(build(layers, doc=f"doc {seed}")) == base


@SETTINGS
@given(random_graphs(), st.data())
def test_hash_changes_with_op_type(layers: list[Layer], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(layers) - 1))
    layer = layers[i]
    pool = {"Conv": None, **dict.fromkeys(UNARY, UNARY), **dict.fromkeys(BINARY, BINARY)}[layer.op]
    if pool is None:
        changed = Layer("Relu", layer.inputs)
    else:
        changed = Layer(
            data.draw(st.sampled_from([op for op in pool if op != layer.op])), layer.inputs
        )
    mutated = [*layers[:i], changed, *layers[i + 1 :]]
    assert key(build(mutated)) != key(build(layers))


@pytest.mark.slow
@SETTINGS
@given(random_graphs(), st.data())
def test_hash_changes_with_an_attribute(layers: list[Layer], data: st.DataObject) -> None:
    layers = [Layer("Conv", (0,)), *layers[1:]]
    i = data.draw(st.sampled_from([i for i, layer in enumerate(layers) if layer.op == "Conv"]))
    layer = layers[i]
    # kernel 1 <-> 3 with matching padding keeps every shape: only the attribute changes.
    other = Layer("Conv", layer.inputs, kernel=4 - layer.kernel)
    mutated = [*layers[:i], other, *layers[i + 1 :]]
    assert key(build(mutated)) != key(build(layers))


@pytest.mark.slow
@SETTINGS
@given(random_graphs())
def test_hash_changes_with_a_shape(layers: list[Layer]) -> None:
    # Appending two convs after the last layer; only the channel count between them
    # differs (the second brings it back to 4, so the final Sum stays valid).
    last = len(layers)
    narrow = [*layers, Layer("Conv", (last,), channels=4), Layer("Conv", (last + 1,))]
    wide = [
        *layers,
        Layer("Conv", (last,), channels=8),
        Layer("Conv", (last + 1,), in_channels=8),
    ]
    assert key(build(narrow)) != key(build(wide))


@pytest.mark.slow
@SETTINGS
@given(random_graphs(), st.data())
def test_hash_changes_with_an_edge(layers: list[Layer], data: st.DataObject) -> None:
    i = data.draw(st.integers(1, len(layers) - 1))
    layer = layers[i]
    slot = data.draw(st.integers(0, len(layer.inputs) - 1))
    old_source = layer.inputs[slot]
    new_source = data.draw(st.sampled_from([j for j in range(i + 1) if j != old_source]))
    # Two identical layers reading the same tensors are interchangeable: rewiring from
    # one to its twin gives an isomorphic graph, which must hash the same.
    assume(not (old_source and new_source and layers[old_source - 1] == layers[new_source - 1]))
    inputs = list(layer.inputs)
    inputs[slot] = new_source
    rewired = [
        *layers[:i],
        Layer(layer.op, tuple(inputs), layer.kernel, layer.channels),
        *layers[i + 1 :],
    ]
    if sorted(inputs) == sorted(layer.inputs) and layer.op in ("Add", "Mul"):
        return  # swapping the operands of a commutative op is the same edge set
    assert key(build(rewired)) != key(build(layers))


def test_hash_changes_with_input_shape() -> None:
    model = build([Layer("Conv", (0,)), Layer("Relu", (1,))])
    assert key(model) != graph_key(load(model, batch_size=2)).digest


def test_hash_distinguishes_operand_order() -> None:
    """Sub(a, b) and Sub(b, a) differ: the hash records which input slot an edge feeds."""
    a = build([Layer("Relu", (0,)), Layer("Sigmoid", (0,)), Layer("Sub", (1, 2))])
    b = build([Layer("Relu", (0,)), Layer("Sigmoid", (0,)), Layer("Sub", (2, 1))])
    assert key(a) != key(b)


def test_explicit_defaults_hash_like_omitted_ones() -> None:
    """Attributes left to their schema default hash the same as spelled-out defaults."""
    implicit = build([Layer("Conv", (0,))])
    explicit = build([Layer("Conv", (0,))])
    conv = next(n for n in explicit.graph.node if n.op_type == "Conv")
    conv.attribute.extend(
        [
            helper.make_attribute("strides", [1, 1]),
            helper.make_attribute("dilations", [1, 1]),
            helper.make_attribute("group", 1),
            helper.make_attribute("auto_pad", "NOTSET"),
        ]
    )
    assert key(implicit) == key(explicit)
