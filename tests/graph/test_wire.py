"""Weight values are left out before parsing, without changing the loaded graph."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from nnlat.errors import ModelLoadError
from nnlat.graph import load
from nnlat.graph.onnx_io import read_model
from nnlat.graph.wire import WEIGHT_PAYLOAD_BYTES, WireFormatError, without_weight_data


def _weighted_model() -> onnx.ModelProto:
    """Conv (raw weights) → Reshape (small shape constant) → MatMul (float_data weights)."""
    rng = np.random.default_rng(0)
    conv_w = numpy_helper.from_array(rng.standard_normal((16, 3, 3, 3), np.float32), "conv_w")
    shape = numpy_helper.from_array(np.array([1, -1], np.int64), "shape")
    fc_w = helper.make_tensor(
        "fc_w", TensorProto.FLOAT, (16 * 16 * 16, 10), rng.standard_normal(16 * 16 * 16 * 10)
    )  # values in float_data, not raw_data
    nodes = [
        helper.make_node("Conv", ["x", "conv_w"], ["y"], pads=[1, 1, 1, 1]),
        helper.make_node("Reshape", ["y", "shape"], ["flat"]),
        helper.make_node("MatMul", ["flat", "fc_w"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes, "weighted",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 3, 16, 16))],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
        initializer=[conv_w, shape, fc_w],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_weights_are_left_out_and_small_constants_kept() -> None:
    lean = onnx.ModelProto.FromString(without_weight_data(_weighted_model().SerializeToString()))
    by_name = {t.name: t for t in lean.graph.initializer}
    assert list(by_name["conv_w"].dims) == [16, 3, 3, 3] and not by_name["conv_w"].raw_data
    assert list(by_name["fc_w"].dims) == [4096, 10] and not by_name["fc_w"].float_data
    assert numpy_helper.to_array(by_name["shape"]).tolist() == [1, -1]
    assert [n.op_type for n in lean.graph.node] == ["Conv", "Reshape", "MatMul"]


def test_same_graph_as_a_full_parse(tmp_path: Path) -> None:
    model = _weighted_model()
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    # A ModelProto source is never re-parsed: its weights go through the usual pass.
    assert load(path).onnx_bytes == load(model).onnx_bytes
    assert load(path).outputs[0].shape == (1, 10)


def test_nothing_to_leave_out_returns_the_input() -> None:
    data = _weighted_model().SerializeToString()
    small = onnx.ModelProto.FromString(without_weight_data(data)).SerializeToString()
    assert without_weight_data(small) is small


def test_only_payloads_over_the_threshold_go() -> None:
    numel = WEIGHT_PAYLOAD_BYTES // 4  # float32: exactly the threshold, kept
    tensor = numpy_helper.from_array(np.ones(numel, np.float32), "w")
    graph = helper.make_graph([], "g", [], [], initializer=[tensor])
    lean = onnx.ModelProto.FromString(
        without_weight_data(helper.make_model(graph).SerializeToString())
    )
    assert len(lean.graph.initializer[0].raw_data) == WEIGHT_PAYLOAD_BYTES


def test_malformed_bytes_are_refused_then_parsed_as_they_are(tmp_path: Path) -> None:
    data = _weighted_model().SerializeToString()
    with pytest.raises(WireFormatError):
        without_weight_data(data[:-5])
    path = tmp_path / "cut.onnx"
    path.write_bytes(data[:-5])
    with pytest.raises(ModelLoadError, match="truncated"):
        read_model(path)
