"""A greedy-search text decoder in a ``Loop`` whose token state grows each step.

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from nnlat.zoo.realworld.tensors import (
    helper_model,
    random_weight,
)


def greedy_decoder_loop() -> onnx.ModelProto:
    """A greedy-search text decoder in a ``Loop`` whose token state grows each step.

    Imitates GPT-2 / seq2seq greedy-search exports (``BeamSearch``-free, scripted loop).
    ``tokens`` (N, T) int64 prompt and ``hidden`` (N, 32), dynamic batch and prompt
    length → ``Loop`` of 8 steps carrying both: the body takes the last token (``Gather``),
    embeds it (``Gather`` on the outer table), updates ``hidden`` with ``MatMul`` +
    ``Add`` + ``Tanh``, projects to the vocabulary (``MatMul``), picks ``ArgMax`` and
    appends it with ``Concat``: ``hidden`` keeps its shape, ``tokens`` grows by one.
    """
    rng = np.random.default_rng(6)
    body = helper.make_graph(
        [
            helper.make_node("Gather", ["tokens_in", "last"], ["last_token"], axis=1),
            helper.make_node("Gather", ["embedding", "last_token"], ["embedded"]),
            helper.make_node("MatMul", ["hidden_in", "w_hidden"], ["recurrent"]),
            helper.make_node("Add", ["recurrent", "embedded"], ["pre"]),
            helper.make_node("Tanh", ["pre"], ["hidden_out"]),
            helper.make_node("MatMul", ["hidden_out", "w_vocab"], ["logits"]),
            helper.make_node("ArgMax", ["logits"], ["next_token"], axis=1, keepdims=1),
            helper.make_node("Concat", ["tokens_in", "next_token"], ["tokens_out"], axis=1),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "greedy_step",
        [
            helper.make_tensor_value_info("step", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("tokens_in", TensorProto.INT64, ["N", "length"]),
            helper.make_tensor_value_info("hidden_in", TensorProto.FLOAT, ["N", 32]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("tokens_out", TensorProto.INT64, ["N", "length_plus_1"]),
            helper.make_tensor_value_info("hidden_out", TensorProto.FLOAT, ["N", 32]),
        ],
        initializer=[numpy_helper.from_array(np.array(-1, dtype=np.int64), "last")],
    )
    graph = helper.make_graph(
        [
            helper.make_node(
                "Loop",
                ["max_new_tokens", "keep_going", "tokens", "hidden"],
                ["generated", "final_hidden"],
                body=body,
            )
        ],
        "greedy_decoder",
        [
            helper.make_tensor_value_info("tokens", TensorProto.INT64, ["batch", "prompt_length"]),
            helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", 32]),
        ],
        [
            helper.make_tensor_value_info(
                "generated", TensorProto.INT64, ["batch", "total_length"]
            ),
            helper.make_tensor_value_info("final_hidden", TensorProto.FLOAT, ["batch", 32]),
        ],
        initializer=[
            numpy_helper.from_array(np.array(8, dtype=np.int64), "max_new_tokens"),
            numpy_helper.from_array(np.array(True), "keep_going"),
            random_weight(rng, "embedding", 100, 32),
            random_weight(rng, "w_hidden", 32, 32),
            random_weight(rng, "w_vocab", 32, 100),
        ],
    )
    return helper_model(graph, {"": 13})
