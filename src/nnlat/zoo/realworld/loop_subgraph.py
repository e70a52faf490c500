"""A greedy-decoder-style ``Loop`` (seq2seq / TTS decoders exported with scripting).

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from nnlat.zoo.realworld.tensors import (
    float_tensor,
    helper_model,
    random_weight,
)


def loop_subgraph() -> onnx.ModelProto:
    """A greedy-decoder-style ``Loop`` (seq2seq / TTS decoders exported with scripting).

    ``state`` (N, 32), dynamic batch → ``Loop`` of 4 steps (trip count and condition are
    initializers) whose body computes ``MatMul`` (outer weight) + ``Add`` + ``Tanh``,
    carries the state and emits it as a scan output → ``MatMul`` projection of the
    final state.
    """
    rng = np.random.default_rng(3)
    body = helper.make_graph(
        [
            helper.make_node("MatMul", ["h_in", "w_rec"], ["mm"]),
            helper.make_node("Add", ["mm", "b_rec"], ["pre"]),
            helper.make_node("Tanh", ["pre"], ["h_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["h_out"], ["h_scan"]),
        ],
        "decoder_step",
        [
            helper.make_tensor_value_info("iteration", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("h_in", TensorProto.FLOAT, ["N", 32]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("h_out", TensorProto.FLOAT, ["N", 32]),
            helper.make_tensor_value_info("h_scan", TensorProto.FLOAT, ["N", 32]),
        ],
    )
    nodes = [
        helper.make_node(
            "Loop", ["max_steps", "keep_going", "state"], ["final", "trajectory"], body=body
        ),
        helper.make_node("MatMul", ["final", "w_out"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "loop_model",
        [helper.make_tensor_value_info("state", TensorProto.FLOAT, ["N", 32])],
        [
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10]),
            helper.make_tensor_value_info("trajectory", TensorProto.FLOAT, ["steps", "N", 32]),
        ],
        initializer=[
            numpy_helper.from_array(np.array(4, dtype=np.int64), "max_steps"),
            numpy_helper.from_array(np.array(True), "keep_going"),
            random_weight(rng, "w_rec", 32, 32),
            float_tensor("b_rec", [0.0] * 32),
            random_weight(rng, "w_out", 32, 10),
        ],
    )
    return helper_model(graph, {"": 13})
