"""The same small CNN written for one opset, as exporters of that era emit it.

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper

from nnlat.zoo.realworld.tensors import (
    float_scalar,
    float_tensor,
    helper_model,
    int64_tensor,
    random_weight,
)

OPSETS = (9, 11, 13, 15, 18)
"""The opsets :func:`small_cnn` is built at (each changes some operator signature)."""


def small_cnn(opset: int) -> onnx.ModelProto:
    """The same small CNN written for one opset, as exporters of that era emit it.

    ``x`` (N, 3, 32, 32), dynamic batch → ``Pad`` → ``Conv`` → ``BatchNormalization`` →
    ``Clip`` (ReLU6) → ``Split`` in two channel halves + ``Concat`` swapped (ShuffleNet)
    → ``MaxPool`` → ×2 upsampling → ``Conv`` → ``ReduceMean`` (keepdims) → ``Squeeze`` →
    ``Gemm`` → ``Unsqueeze`` → ``Softmax``. What changes with the opset:

    * ``Pad`` pads: attribute before 11, input from 11;
    * ``Clip`` min/max: attributes before 11, inputs from 11;
    * ``Split`` sizes: attribute before 13, input from 13, ``num_outputs`` at 18;
    * upsampling: ``Upsample`` with a scales input at 9, ``Resize`` with an (empty) roi
      input at 11, ``Resize`` with the roi omitted from 13;
    * ``Squeeze``/``Unsqueeze`` axes: attribute before 13, input from 13;
    * ``ReduceMean`` axes: attribute before 18, input from 18.

    Args:
        opset: the default-domain opset, one of :data:`OPSETS` (any of 9–18 works).
    """
    rng = np.random.default_rng(5)
    init = [
        random_weight(rng, "w1", 16, 3, 3, 3),
        float_tensor("b1", [0.0] * 16),
        float_tensor("bn_scale", [1.0] * 16),
        float_tensor("bn_bias", [0.0] * 16),
        float_tensor("bn_mean", [0.0] * 16),
        float_tensor("bn_var", [1.0] * 16),
        random_weight(rng, "w2", 24, 16, 3, 3),
        random_weight(rng, "w_fc", 10, 24),
        float_tensor("b_fc", [0.0] * 10),
    ]
    nodes: list[onnx.NodeProto] = []
    # Pad: one pixel of zeros on every side.
    if opset < 11:
        nodes.append(helper.make_node("Pad", ["x"], ["padded"], pads=[0, 0, 1, 1, 0, 0, 1, 1]))
    else:
        init.append(int64_tensor("pads", [0, 0, 1, 1, 0, 0, 1, 1]))
        nodes.append(helper.make_node("Pad", ["x", "pads"], ["padded"]))
    nodes += [
        helper.make_node("Conv", ["padded", "w1", "b1"], ["c1"], kernel_shape=[3, 3]),
        helper.make_node(
            "BatchNormalization", ["c1", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn"]
        ),
    ]
    if opset < 11:
        nodes.append(helper.make_node("Clip", ["bn"], ["act"], min=0.0, max=6.0))
    else:
        init += [float_scalar("clip_min", 0.0), float_scalar("clip_max", 6.0)]
        nodes.append(helper.make_node("Clip", ["bn", "clip_min", "clip_max"], ["act"]))
    if opset < 13:
        nodes.append(helper.make_node("Split", ["act"], ["half_a", "half_b"], axis=1, split=[8, 8]))
    elif opset < 18:
        init.append(int64_tensor("split", [8, 8]))
        nodes.append(helper.make_node("Split", ["act", "split"], ["half_a", "half_b"], axis=1))
    else:
        nodes.append(
            helper.make_node("Split", ["act"], ["half_a", "half_b"], axis=1, num_outputs=2)
        )
    nodes += [
        helper.make_node("Concat", ["half_b", "half_a"], ["shuffled"], axis=1),
        helper.make_node("MaxPool", ["shuffled"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
    ]
    init.append(float_tensor("scales", [1.0, 1.0, 2.0, 2.0]))
    if opset < 10:
        nodes.append(helper.make_node("Upsample", ["pooled", "scales"], ["up"], mode="nearest"))
    elif opset < 13:
        init.append(float_tensor("roi", []))
        nodes.append(
            helper.make_node("Resize", ["pooled", "roi", "scales"], ["up"], mode="nearest")
        )
    else:
        nodes.append(helper.make_node("Resize", ["pooled", "", "scales"], ["up"], mode="nearest"))
    nodes.append(helper.make_node("Conv", ["up", "w2"], ["c2"], kernel_shape=[3, 3], pads=[1] * 4))
    if opset < 18:
        nodes.append(helper.make_node("ReduceMean", ["c2"], ["mean"], axes=[2, 3], keepdims=1))
    else:
        init.append(int64_tensor("reduce_axes", [2, 3]))
        nodes.append(helper.make_node("ReduceMean", ["c2", "reduce_axes"], ["mean"], keepdims=1))
    if opset < 13:
        nodes.append(helper.make_node("Squeeze", ["mean"], ["flat"], axes=[2, 3]))
    else:
        init.append(int64_tensor("squeeze_axes", [2, 3]))
        nodes.append(helper.make_node("Squeeze", ["mean", "squeeze_axes"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", "w_fc", "b_fc"], ["fc"], transB=1))
    if opset < 13:
        nodes.append(helper.make_node("Unsqueeze", ["fc"], ["fc3"], axes=[1]))
    else:
        init.append(int64_tensor("unsqueeze_axes", [1]))
        nodes.append(helper.make_node("Unsqueeze", ["fc", "unsqueeze_axes"], ["fc3"]))
    nodes.append(helper.make_node("Softmax", ["fc3"], ["probabilities"], axis=2))
    graph = helper.make_graph(
        nodes,
        f"small_cnn_opset{opset}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 1, 10])],
        initializer=init,
    )
    return helper_model(graph, {"": opset})


def small_cnn_at(opset: int) -> Callable[[], onnx.ModelProto]:
    """A builder of :func:`small_cnn` at ``opset``, named ``small_cnn_opset<opset>``."""

    def build() -> onnx.ModelProto:
        return small_cnn(opset)

    build.__name__ = build.__qualname__ = f"small_cnn_opset{opset}"
    build.__doc__ = f"``small_cnn({opset})``: see :func:`small_cnn`."
    return build
