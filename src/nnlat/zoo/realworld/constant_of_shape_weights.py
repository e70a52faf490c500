"""A Caffe2-converted CNN whose weights are ``ConstantOfShape`` nodes (IR 3, opset 9).

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from nnlat.zoo.realworld.tensors import (
    float_tensor,
    int64_tensor,
)


def constant_of_shape_weights() -> onnx.ModelProto:
    """A Caffe2-converted CNN whose weights are ``ConstantOfShape`` nodes (IR 3, opset 9).

    Imitates ``onnx/backend/test/data/light/*.onnx``: each large weight is a
    ``ConstantOfShape`` of an int64 shape initializer; small per-channel parameters
    are initializers that, as IR 3 requires, are also listed as graph inputs. ``data_0``
    (1, 3, 64, 64) → ``Conv`` → ``BatchNormalization`` → scale/shift by ``Unsqueeze``-ed
    parameters (``Mul``, ``Add``) → ``Relu`` → ``MaxPool`` → ``Conv`` → ``Sum`` residual
    → ``GlobalAveragePool`` → ``Reshape`` → ``Gemm``.
    """
    filled = helper.make_tensor("fill", TensorProto.FLOAT, [1], [0.02])
    shapes = {"conv1_w": [16, 3, 3, 3], "conv2_w": [16, 16, 3, 3], "fc_w": [10, 16], "fc_b": [10]}
    params = ["bn_scale", "bn_bias", "bn_mean", "bn_var", "mul_w", "add_b"]
    init = [int64_tensor(f"{name}__SHAPE", dims) for name, dims in shapes.items()]
    init += [
        float_tensor(name, [1.0 if name in ("bn_scale", "bn_var", "mul_w") else 0.0] * 16)
        for name in params
    ]
    init.append(int64_tensor("flat_shape", [1, 16]))
    nodes = [
        helper.make_node("ConstantOfShape", [f"{name}__SHAPE"], [name], value=filled)
        for name in shapes
    ]
    nodes += [
        helper.make_node("Unsqueeze", ["mul_w"], ["mul_w4"], axes=[1, 2]),
        helper.make_node("Unsqueeze", ["add_b"], ["add_b4"], axes=[1, 2]),
        helper.make_node("Conv", ["data_0", "conv1_w"], ["r0"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node(
            "BatchNormalization", ["r0", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["r1"]
        ),
        helper.make_node("Mul", ["r1", "mul_w4"], ["r2"]),
        helper.make_node("Add", ["r2", "add_b4"], ["r3"]),
        helper.make_node("Relu", ["r3"], ["r4"]),
        helper.make_node("MaxPool", ["r4"], ["r5"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["r5", "conv2_w"], ["r6"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("Sum", ["r5", "r6"], ["r7"]),
        helper.make_node("GlobalAveragePool", ["r7"], ["r8"]),
        helper.make_node("Reshape", ["r8", "flat_shape"], ["r9"]),
        helper.make_node("Gemm", ["r9", "fc_w", "fc_b"], ["prob"], transB=1),
    ]
    inputs = [helper.make_tensor_value_info("data_0", TensorProto.FLOAT, [1, 3, 64, 64])]
    inputs += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in init]
    graph = helper.make_graph(
        nodes,
        "caffe2_light",
        inputs,
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 10])],
        initializer=init,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)], ir_version=3)
