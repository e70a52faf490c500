"""A model with an ``If`` whose branches hold real compute (dynamic-resolution exports).

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from nnlat.zoo.realworld.tensors import (
    float_scalar,
    helper_model,
    random_weight,
)


def if_subgraph() -> onnx.ModelProto:
    """A model with an ``If`` whose branches hold real compute (dynamic-resolution exports).

    ``image`` (N, 3, 32, 32), dynamic batch → ``Conv`` → ``ReduceMean`` + ``Greater``
    (a data-dependent condition) → ``If``: the then-branch runs ``Conv`` (its weight a
    branch initializer) + ``Relu``; the else-branch runs a 1x1 ``Conv`` whose weight is a
    ``Constant`` node inside the branch (as the TorchScript exporter writes tensors made
    in a branch) + ``Sigmoid`` + ``Mul`` (SiLU). Both read the outer tensor. Then
    ``GlobalAveragePool``.
    """
    rng = np.random.default_rng(2)
    then_branch = helper.make_graph(
        [
            helper.make_node("Conv", ["stem", "w_then"], ["t1"], kernel_shape=[3, 3], pads=[1] * 4),
            helper.make_node("Relu", ["t1"], ["then_out"]),
        ],
        "then_branch",
        [],
        [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, ["N", 16, 32, 32])],
        initializer=[random_weight(rng, "w_then", 16, 16, 3, 3)],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node(
                "Constant", [], ["w_else"], value=random_weight(rng, "w_else", 16, 16, 1, 1)
            ),
            helper.make_node("Conv", ["stem", "w_else"], ["e1"], kernel_shape=[1, 1]),
            helper.make_node("Sigmoid", ["e1"], ["gate"]),
            helper.make_node("Mul", ["e1", "gate"], ["else_out"]),
        ],
        "else_branch",
        [],
        [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, ["N", 16, 32, 32])],
    )
    nodes = [
        helper.make_node("Conv", ["image", "w_stem"], ["stem"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("ReduceMean", ["stem"], ["mean"], keepdims=0),
        helper.make_node("Greater", ["mean", "zero"], ["cond"]),
        helper.make_node(
            "If", ["cond"], ["branch"], then_branch=then_branch, else_branch=else_branch
        ),
        helper.make_node("GlobalAveragePool", ["branch"], ["pooled"]),
    ]
    graph = helper.make_graph(
        nodes,
        "if_model",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 32, 32])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["N", 16, 1, 1])],
        initializer=[random_weight(rng, "w_stem", 16, 3, 3, 3), float_scalar("zero", 0.0)],
    )
    return helper_model(graph, {"": 13})
