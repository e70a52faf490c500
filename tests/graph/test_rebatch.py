"""``-b`` on a model with a fixed batch: re-batched where the graph allows, else refused."""

from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from nnlat.errors import InvalidInputShapeError
from nnlat.graph.load import load
from nnlat.testing import tiny_model


def _flatten_model(target: list[int]) -> onnx.ModelProto:
    """x[1,3,4,4] → Relu → Reshape(target): a view traced with a static batch."""
    shape = helper.make_tensor("shape", TensorProto.INT64, [len(target)], target)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Reshape", ["r", "shape"], ["y"], name="flatten"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[shape],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_fixed_batch_no_node_hard_codes_is_rebatched() -> None:
    assert load(tiny_model(), batch_size=16).inputs[0].shape == (16, 3, 32, 32)
    assert load(_flatten_model([-1, 48]), batch_size=16).outputs[0].shape == (16, 48)


def test_a_hard_coded_batch_is_refused_naming_the_node() -> None:
    with pytest.raises(InvalidInputShapeError, match=r"fixed batch of 1.*Reshape flatten"):
        load(_flatten_model([1, 48]), batch_size=16)


def test_the_fixed_batch_itself_is_accepted() -> None:
    assert load(_flatten_model([1, 48]), batch_size=1).outputs[0].shape == (1, 48)


def test_a_constant_reshape_not_fed_by_the_input_does_not_block() -> None:
    model = _flatten_model([-1, 48])
    model.graph.initializer.extend(
        [
            helper.make_tensor("bias_shape", TensorProto.INT64, [4], [1, 3, 1, 1]),
            helper.make_tensor("bias", TensorProto.FLOAT, [3], [0.0, 1.0, 2.0]),
        ]
    )
    # a bias broadcast as [1, 3, 1, 1]: its leading 1 is not the batch
    model.graph.node[0].input[0] = "xb"
    model.graph.node.insert(0, helper.make_node("Reshape", ["bias", "bias_shape"], ["b4"]))
    model.graph.node.insert(1, helper.make_node("Add", ["x", "b4"], ["xb"]))
    assert load(model, batch_size=8).outputs[0].shape == (8, 48)


def _stateful_model(batch: int | str) -> onnx.ModelProto:
    """x[batch, 8] beside a state s[2, 1, 8] (an RNN's layers × batch × hidden, as Silero
    VAD's): the state's dimension 0 is not the batch."""
    nodes = [
        helper.make_node("ReduceSum", ["s"], ["t"], keepdims=0, name="sum"),
        helper.make_node("Add", ["x", "t"], ["y"], name="add"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 8]),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [2, 1, 8]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])


@pytest.mark.parametrize("batch", [1, "n"])
def test_a_state_input_keeps_its_fixed_first_dimension(batch: int | str) -> None:
    for wanted in (1, 4):
        graph = load(_stateful_model(batch), batch_size=wanted)
        shapes = {s.name: s.shape for s in graph.inputs}
        assert shapes == {"x": (wanted, 8), "s": (2, 1, 8)}
