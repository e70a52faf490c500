"""A tf2onnx-converted Keras CNN: NHWC input, ``Transpose`` to NCHW, NHWC output.

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from nnlat.zoo.realworld.tensors import (
    float_tensor,
    helper_model,
    random_weight,
)


def channels_last() -> onnx.ModelProto:
    """A tf2onnx-converted Keras CNN: NHWC input, ``Transpose`` to NCHW, NHWC output.

    ``input_1`` (N, H, W, 3) with symbolic ``unk__`` batch, height and width →
    ``Transpose`` (0, 3, 1, 2) → ``Conv`` + ``Relu`` (×2, the second strided) →
    ``Transpose`` back to NHWC → ``ReduceMean`` over the spatial axes → ``MatMul`` +
    ``Add`` + ``Softmax``.
    """
    rng = np.random.default_rng(4)
    nodes = [
        helper.make_node("Transpose", ["input_1"], ["nchw"], perm=[0, 3, 1, 2]),
        helper.make_node("Conv", ["nchw", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node(
            "Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1] * 4, strides=[2, 2]
        ),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Transpose", ["r2"], ["nhwc"], perm=[0, 2, 3, 1]),
        helper.make_node("ReduceMean", ["nhwc"], ["pooled"], axes=[1, 2], keepdims=0),
        helper.make_node("MatMul", ["pooled", "w3"], ["mm"]),
        helper.make_node("Add", ["mm", "b3"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "tf2onnx",
        [
            helper.make_tensor_value_info(
                "input_1", TensorProto.FLOAT, ["unk__0", "unk__1", "unk__2", 3]
            )
        ],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["unk__0", 5])],
        initializer=[
            random_weight(rng, "w1", 16, 3, 3, 3),
            float_tensor("b1", [0.0] * 16),
            random_weight(rng, "w2", 32, 16, 3, 3),
            float_tensor("b2", [0.0] * 32),
            random_weight(rng, "w3", 32, 5),
            float_tensor("b3", [0.0] * 5),
        ],
    )
    return helper_model(graph, {"": 13})
