"""A model with a vendor custom op (e.g. a TensorRT plugin or a custom CUDA kernel).

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


def custom_domain_op() -> onnx.ModelProto:
    """A model with a vendor custom op (e.g. a TensorRT plugin or a custom CUDA kernel).

    ``image`` (N, 3, 64, 64), dynamic batch → ``Conv`` → ``my.custom:FancyActivation``
    (no schema anywhere, declared in ``opset_import``) → ``Conv`` → ``GlobalAveragePool``.
    Shape inference cannot see through the custom op, so only the first Conv is costed.
    """
    rng = np.random.default_rng(1)
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("FancyActivation", ["c1"], ["act"], domain="my.custom", alpha=0.5),
        helper.make_node("Conv", ["act", "w2"], ["c2"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("GlobalAveragePool", ["c2"], ["pooled"]),
    ]
    graph = helper.make_graph(
        nodes,
        "custom_domain",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 64, 64])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["N", 16, 1, 1])],
        initializer=[
            random_weight(rng, "w1", 16, 3, 3, 3),
            float_tensor("b1", [0.0] * 16),
            random_weight(rng, "w2", 16, 16, 3, 3),
        ],
    )
    return helper_model(graph, {"": 13, "my.custom": 1})
