"""Cost formulas, checked against hand-computed MACs for each family."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from nnlat.graph import graph_cost, load


def single(
    op: str,
    inputs: list[tuple[str, list[int]]],
    weights: list[tuple[str, list[int]]] = (),
    opset: int = 17,
    domain: str = "",
    **attrs: object,
) -> onnx.ModelProto:
    """A one-node model: ``inputs`` are graph inputs, ``weights`` initializers."""
    node = helper.make_node(
        op, [n for n, _ in inputs] + [n for n, _ in weights], ["y"], domain=domain, **attrs
    )
    graph = helper.make_graph(
        [node],
        "one",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.zeros(s, np.float32), n) for n, s in weights],
    )
    opsets = [helper.make_opsetid("", opset)]
    if domain:
        opsets.append(helper.make_opsetid(domain, 1))
    return helper.make_model(graph, opset_imports=opsets)


def macs(model: onnx.ModelProto) -> int:
    return graph_cost(load(model)).macs


def test_conv_grouped_dilated_strided() -> None:
    # 1x32x56x56, 64 out, groups 4, 3x3, stride 2, dilation 2, pad 2 → out 28x28
    model = single(
        "Conv",
        [("x", [1, 32, 56, 56])],
        [("w", [64, 8, 3, 3])],
        group=4,
        strides=[2, 2],
        dilations=[2, 2],
        pads=[2, 2, 2, 2],
    )
    assert macs(model) == 64 * 28 * 28 * 8 * 9


def test_depthwise_conv() -> None:
    model = single("Conv", [("x", [2, 16, 10, 10])], [("w", [16, 1, 5, 5])], group=16, pads=[2] * 4)
    assert macs(model) == 2 * 16 * 10 * 10 * 25


def test_conv_transpose() -> None:
    # every input element scatters into Cout/g x k x k outputs
    model = single("ConvTranspose", [("x", [1, 8, 7, 7])], [("w", [8, 4, 4, 4])], strides=[2, 2])
    assert macs(model) == 8 * 49 * 4 * 16


@pytest.mark.parametrize(("trans_a", "a_shape"), [(0, [5, 7]), (1, [7, 5])])
def test_gemm(trans_a: int, a_shape: list[int]) -> None:
    model = single("Gemm", [("a", a_shape)], [("b", [3, 7])], transA=trans_a, transB=1)
    assert macs(model) == 5 * 3 * 7


def test_batched_broadcast_matmul() -> None:
    model = single("MatMul", [("a", [2, 12, 64, 32]), ("b", [12, 32, 64])])
    assert macs(model) == 2 * 12 * 64 * 64 * 32


def test_lstm_counts_all_gates_and_directions() -> None:
    model = single(
        "LSTM",
        [("x", [10, 2, 16])],
        [("w", [2, 128, 16]), ("r", [2, 128, 32])],
        hidden_size=32,
        direction="bidirectional",
    )
    assert macs(model) == 10 * 2 * 2 * 4 * 32 * (16 + 32)


def test_pooling_and_elementwise_families() -> None:
    pool = graph_cost(
        load(single("MaxPool", [("x", [1, 4, 8, 8])], kernel_shape=[2, 2], strides=[2, 2]))
    )
    assert pool.flops == 4 * 4 * 4 * 4 and pool.macs == 0
    gap = graph_cost(load(single("GlobalAveragePool", [("x", [1, 4, 8, 8])])))
    assert gap.flops == 4 * 64
    add = graph_cost(load(single("Add", [("a", [1, 4, 8, 8]), ("b", [1, 4, 8, 8])])))
    assert add.flops == 256
    softmax = graph_cost(load(single("Softmax", [("x", [3, 10])])))
    assert softmax.flops == 5 * 30
    norm = graph_cost(load(single("LayerNormalization", [("x", [2, 5, 8])], [("g", [8])])))
    assert norm.flops == 5 * 80 and norm.params == 8


def test_resize_by_mode() -> None:
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")
    for mode, per_output in (("nearest", 1), ("linear", 4)):
        node = helper.make_node("Resize", ["x", "", "s"], ["y"], mode=mode)
        graph = helper.make_graph(
            [node],
            "r",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            initializer=[scales],
        )
        cost = graph_cost(
            load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
        )
        assert cost.flops == per_output * 3 * 8 * 8


def test_params_and_bytes() -> None:
    model = single("Conv", [("x", [1, 3, 8, 8])], [("w", [4, 3, 3, 3]), ("b", [4])], pads=[1] * 4)
    cost = graph_cost(load(model))
    assert cost.params == 4 * 27 + 4
    # input + weight + bias + output, float32
    assert cost.bytes == 4 * (3 * 64 + 108 + 4 + 4 * 64)


def test_unknown_op_is_reported_not_silently_zero() -> None:
    model = single("FancyOp", [("x", [1, 4])], domain="my.custom")
    cost = graph_cost(load(model))
    assert cost.unknown_ops == {"my.custom:FancyOp": 1}
    assert cost.flops == 0


def stft(window: int) -> onnx.ModelProto:
    """One STFT of 16,000 samples, ``window``-point frames every 160 samples, one-sided."""
    signal = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16000, 1])
    node = helper.make_node("STFT", ["x", "step", "window"], ["y"], onesided=1)
    graph = helper.make_graph(
        [node], "stft", [signal], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    )
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.array(160, np.int64), "step"),
            numpy_helper.from_array(np.hanning(window).astype(np.float32), "window"),
        ]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_stft_costs_an_fft_per_frame() -> None:
    cost = graph_cost(load(stft(512)))
    assert cost.unknown_ops == {} and cost.uncosted_ops == {}
    # 97 frames, each a complex 512-point FFT: 5 · 512 · log2(512)
    assert cost.flops == 97 * 5 * 512 * 9


def test_a_frame_that_is_not_a_power_of_two_costs_two_ffts_of_the_chirp_length() -> None:
    # 400 points: Bluestein through 1,024 points (2 · 400 - 1 ≤ 1,024), two FFTs of it
    assert graph_cost(load(stft(400))).flops == 98 * 2 * 5 * 1024 * 10


def test_a_complex_dft_costs_five_n_log_n() -> None:
    model = single("DFT", [("x", [1, 64, 2])], axis=1)
    assert graph_cost(load(model)).flops == 5 * 64 * 6


def test_a_tree_ensemble_costs_one_comparison_per_level_of_each_tree() -> None:
    # Tree 0: a root and two leaves (depth 2); tree 1: three branches, four leaves (depth 3).
    modes = ["BRANCH_LEQ", "LEAF", "LEAF"] + ["BRANCH_LEQ"] * 3 + ["LEAF"] * 4
    node = helper.make_node(
        "TreeEnsembleRegressor",
        ["x"],
        ["y"],
        domain="ai.onnx.ml",
        nodes_treeids=[0] * 3 + [1] * 7,
        nodes_nodeids=[0, 1, 2, 0, 1, 2, 3, 4, 5, 6],
        nodes_featureids=[0] * 10,
        nodes_values=[0.5] * 10,
        nodes_modes=modes,
        nodes_truenodeids=[1, 0, 0, 1, 3, 5, 0, 0, 0, 0],
        nodes_falsenodeids=[2, 0, 0, 2, 4, 6, 0, 0, 0, 0],
        target_treeids=[0, 0, 1, 1, 1, 1],
        target_nodeids=[1, 2, 3, 4, 5, 6],
        target_ids=[0] * 6,
        target_weights=[1.0] * 6,
        n_targets=1,
    )
    graph = helper.make_graph(
        [node],
        "trees",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [10, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)]
    cost = graph_cost(load(helper.make_model(graph, opset_imports=opsets)))
    assert cost.unknown_ops == {}
    assert cost.flops == 10 * (2 + 3)


def test_a_4_bit_matmul_costs_its_float_matmul_and_shapes_what_follows() -> None:
    # MatMulNBits: (1, 8, 64) by a packed 64 × 32 weight in blocks of 32 → (1, 8, 32); ONNX
    # has no schema for it, so without the stand-in the Relu after it stays shapeless
    k, n, block = 64, 32, 32
    nodes = [
        helper.make_node(
            "MatMulNBits", ["a", "b", "scales"], ["h"], domain="com.microsoft",
            K=k, N=n, bits=4, block_size=block,
        ),
        helper.make_node("Relu", ["h"], ["y"]),
    ]  # fmt: skip
    graph = helper.make_graph(
        nodes,
        "int4",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 8, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[
            numpy_helper.from_array(np.zeros((n, k // block, block // 2), np.uint8), "b"),
            numpy_helper.from_array(np.ones(n * k // block, np.float32), "scales"),
        ],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    loaded = load(model)
    cost = graph_cost(loaded)
    assert cost.macs == 8 * k * n
    assert cost.uncosted_ops == {} and cost.unknown_ops == {}
    assert [i.name for i in loaded.inputs] == ["a"]  # the stand-in weight is gone again


def test_a_scan_body_counts_once_per_iteration() -> None:
    # Scan over 10 rows of (10, 4, 8): each iteration a (4, 8) × (8, 3) MatMul; a Scan
    # framing 500 windows costs 500 bodies, not one
    body = helper.make_graph(
        [helper.make_node("MatMul", ["row", "w"], ["out"])],
        "body",
        [helper.make_tensor_value_info("row", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [4, 3])],
    )
    graph = helper.make_graph(
        [helper.make_node("Scan", ["x"], ["y"], body=body, num_scan_inputs=1)],
        "scan",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [10, 4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.ones((8, 3), np.float32), "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    cost = graph_cost(load(model))
    assert cost.macs == 10 * 4 * 8 * 3
    assert cost.params == 8 * 3  # the weight is read each iteration but held once
