"""int8 quantization keeps onnxruntime's logging to itself: no raw ``WARNING:root:`` lines."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import logging
from onnx import TensorProto, helper
from nnlat.graph import load
from nnlat.measure.backends import get_backend
from nnlat.measure.types import MeasureSpec

nodes = [
    helper.make_node("Conv", ["x", "wc"], ["c"]),
    helper.make_node("GlobalAveragePool", ["c"], ["p"]),
    helper.make_node("Flatten", ["p"], ["f"]),
    helper.make_node("Gemm", ["f", "w", "b"], ["g"], transB=1),
    # a 1-D weight: per-channel quantization's default axis 1 is out of range for it
    helper.make_node("MatMul", ["g", "v"], ["z"]),
]
weights = [
    helper.make_tensor("wc", TensorProto.FLOAT, [8, 3, 3, 3], [0.1] * 216),
    helper.make_tensor("w", TensorProto.FLOAT, [4, 8], [0.1] * 32),
    helper.make_tensor("b", TensorProto.FLOAT, [4], [0.0] * 4),
    helper.make_tensor("v", TensorProto.FLOAT, [4], [0.5] * 4),
]
graph = helper.make_graph(
    nodes,
    "conv_gemm",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
    [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
    initializer=weights,
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
backend = get_backend("ort")
prepared = backend.prepare(load(model), backend.platform(1, "int8"), MeasureSpec())
prepared.close()
print(len(logging.getLogger().handlers), logging.getLogger().level)
"""


@pytest.mark.slow
def test_int8_prints_no_root_logger_lines_and_leaves_logging_as_it_was() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert "WARNING" not in done.stderr and "[INFO]" not in done.stderr, done.stderr
    assert done.stdout.split() == ["0", str(30)]  # no handler added, level WARNING
