"""Integer inputs get values valid for their use: indices, masks, counts."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from nnlat.graph import load
from nnlat.graph.ir import Graph
from nnlat.measure.inputs import materialize_weights, random_inputs
from nnlat.measure.integer_inputs import MAX_COUNT, IntegerRange, integer_range

INT64 = TensorProto.INT64


def _graph(nodes, inputs, outputs, initializers=(), opset: int = 17) -> Graph:
    body = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        initializer=list(initializers),
    )
    return load(helper.make_model(body, opset_imports=[helper.make_opsetid("", opset)]))


def _runs(graph: Graph, seed: int = 0) -> None:
    model = materialize_weights(graph.onnx_bytes, seed)
    model.ir_version = min(model.ir_version, 10)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    session.run(None, random_inputs(graph, seed))


def _table(rows: int) -> object:
    return numpy_helper.from_array(np.ones((rows, 4), np.float32), "table")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gathernd_indices_index_the_leading_data_dims(seed: int) -> None:
    # indices (1, 6, 2): the last dimension indexes data dims 0 (3) and 1 (5)
    data = numpy_helper.from_array(np.ones((3, 5, 4), np.float32), "data")
    node = helper.make_node("GatherND", ["data", "idx"], ["y"])
    graph = _graph([node], [("idx", INT64, [1, 6, 2])], [("y", TensorProto.FLOAT)], [data])
    assert integer_range(graph, "idx") == IntegerRange(0, 3, "index")
    _runs(graph, seed)


def test_gathernd_with_batch_dims_skips_them() -> None:
    data = numpy_helper.from_array(np.ones((2, 7, 4), np.float32), "data")
    node = helper.make_node("GatherND", ["data", "idx"], ["y"], batch_dims=1)
    graph = _graph([node], [("idx", INT64, [2, 3, 1])], [("y", TensorProto.FLOAT)], [data])
    assert integer_range(graph, "idx").high == 7
    _runs(graph)


def test_a_two_row_table_reached_through_cast_and_unsqueeze() -> None:
    nodes = [
        helper.make_node("Cast", ["tt"], ["tt32"], to=TensorProto.INT32),
        helper.make_node("Unsqueeze", ["tt32", "axes"], ["tt3"]),
        helper.make_node("Gather", ["table", "tt3"], ["y"]),
    ]
    axes = numpy_helper.from_array(np.array([0], np.int64), "axes")
    graph = _graph(nodes, [("tt", INT64, [1, 16])], [("y", TensorProto.FLOAT)], [_table(2), axes])
    assert integer_range(graph, "tt") == IntegerRange(0, 2, "index")
    _runs(graph)


@pytest.mark.parametrize(("op", "offset", "expected"), [("Add", 3, (0, 7)), ("Sub", 2, (2, 12))])
def test_a_constant_added_on_the_way_shifts_the_range(
    op: str, offset: int, expected: tuple[int, int]
) -> None:
    nodes = [
        helper.make_node(op, ["ids", "offset"], ["shifted"]),
        helper.make_node("Gather", ["table", "shifted"], ["y"]),
    ]
    const = numpy_helper.from_array(np.array(offset, np.int64), "offset")
    graph = _graph(
        nodes, [("ids", INT64, [1, 32])], [("y", TensorProto.FLOAT)], [_table(10), const]
    )
    assert (integer_range(graph, "ids").low, integer_range(graph, "ids").high) == expected
    for seed in range(3):
        _runs(graph, seed)


def test_masks_are_zero_one_with_no_empty_row() -> None:
    by_name = _graph(
        [helper.make_node("Neg", ["attention_mask"], ["y"])],
        [("attention_mask", INT64, [4, 16])],
        [("y", INT64)],
    )
    values = random_inputs(by_name)["attention_mask"]
    assert set(np.unique(values)) == {0, 1}
    assert (values[:, 0] == 1).all()
    by_use = _graph(
        [
            helper.make_node("Cast", ["keep"], ["cond"], to=TensorProto.BOOL),
            helper.make_node("Where", ["cond", "a", "a"], ["y"]),
        ],
        [("keep", TensorProto.INT32, [2, 8]), ("a", TensorProto.FLOAT, [2, 8])],
        [("y", TensorProto.FLOAT)],
    )
    assert integer_range(by_use, "keep").kind == "mask"


def test_range_limits_and_loop_trip_counts_are_small_counts() -> None:
    ranged = _graph(
        [helper.make_node("Range", ["start", "limit", "delta"], ["y"])],
        [("start", INT64, []), ("limit", INT64, []), ("delta", INT64, [])],
        [("y", INT64)],
    )
    for name in ("start", "limit", "delta"):
        assert integer_range(ranged, name) == IntegerRange(1, MAX_COUNT + 1, "count")
    body = helper.make_graph(
        [
            helper.make_node("Add", ["acc_in", "one"], ["acc_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [1]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [1]),
        ],
        initializer=[numpy_helper.from_array(np.ones(1, np.float32), "one")],
    )
    looped = _graph(
        [helper.make_node("Loop", ["n", "", "acc"], ["total"], body=body)],
        [("n", INT64, []), ("acc", TensorProto.FLOAT, [1])],
        [("total", TensorProto.FLOAT)],
    )
    assert integer_range(looped, "n").kind == "count"
    count = random_inputs(looped)["n"]
    assert count.shape == () and 1 <= int(count) <= MAX_COUNT
    _runs(looped)
