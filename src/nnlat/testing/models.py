"""Tiny ONNX models built with ``onnx.helper`` (no torch needed)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tiny_model(channels: int = 8, side: int = 32, dynamic_batch: bool = False) -> onnx.ModelProto:
    """A Conv(3x3, pad 1) → Relu model on a 1x3xSIDExSIDE input, with real weights.

    Args:
        channels: output channels of the convolution.
        side: input height and width.
        dynamic_batch: make dimension 0 of the input symbolic (``"N"``).

    Example:
        >>> [n.op_type for n in tiny_model().graph.node]
        ['Conv', 'Relu']
    """
    batch: int | str = "N" if dynamic_batch else 1
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array(
        rng.standard_normal((channels, 3, 3, 3)).astype(np.float32), "w"
    )
    bias = numpy_helper.from_array(np.zeros(channels, np.float32), "b")
    conv = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[3, 3], pads=[1] * 4)
    relu = helper.make_node("Relu", ["y"], ["z"])
    graph = helper.make_graph(
        [conv, relu],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, side, side])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        initializer=[weight, bias],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
