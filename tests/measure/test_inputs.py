"""Random inputs, user inputs from .npz, and random weights for weight-free graphs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from nnlat.errors import LimitExceededError, NnlatError
from nnlat.graph import load
from nnlat.graph.tensors import has_data
from nnlat.measure.inputs import (
    InputDataError,
    load_npz,
    materialize_weights,
    random_inputs,
)
from nnlat.measure.integer_inputs import MAX_INT_INPUT, integer_range
from nnlat.testing import tiny_model
from nnlat.zoo.realworld import (
    EXAMPLE_INPUT_SHAPES,
    bert_encoder,
    cnn_int8,
    constant_of_shape_weights,
    speech_lstm,
)


def _embedding_model(vocab: int, seq: int, through_cast: bool) -> onnx.ModelProto:
    """ids (1, seq) int32 → [Cast int64] → Gather(table vocab x 64): weights > 64 elements."""
    nodes = []
    ids = "ids"
    if through_cast:
        nodes.append(helper.make_node("Cast", ["ids"], ["ids64"], to=TensorProto.INT64))
        ids = "ids64"
    nodes.append(helper.make_node("Gather", ["table", ids], ["emb"], axis=0))
    table = numpy_helper.from_array(np.ones((vocab, 64), np.float32), "table")
    graph = helper.make_graph(
        nodes,
        "embedding",
        [helper.make_tensor_value_info("ids", TensorProto.INT32, [1, seq])],
        [helper.make_tensor_value_info("emb", TensorProto.FLOAT, None)],
        initializer=[table],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _run(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    model.ir_version = min(model.ir_version, 10)  # onnxruntime may lag the onnx package
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


@pytest.mark.parametrize("through_cast", [False, True])
def test_integer_inputs_stay_inside_the_embedding_table(through_cast: bool) -> None:
    graph = load(_embedding_model(vocab=7, seq=300, through_cast=through_cast))
    assert integer_range(graph, "ids").high == 7
    ids = random_inputs(graph, seed=3)["ids"]
    assert ids.dtype == np.int32 and ids.shape == (1, 300)
    assert ids.min() >= 0 and ids.max() < 7
    assert len(np.unique(ids)) > 1  # not a constant


def test_integer_inputs_are_capped_at_100_and_by_the_shortest_dimension() -> None:
    big_table = load(_embedding_model(vocab=50_000, seq=300, through_cast=False))
    assert integer_range(big_table, "ids").high == MAX_INT_INPUT
    short = load(_embedding_model(vocab=50_000, seq=12, through_cast=False))
    assert integer_range(short, "ids").high == MAX_INT_INPUT  # the table bounds an index
    length = load(
        helper.make_model(
            helper.make_graph(
                [helper.make_node("Neg", ["n"], ["y"])],
                "length",
                [
                    helper.make_tensor_value_info("n", TensorProto.INT64, [1]),
                    helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 12]),
                ],
                [helper.make_tensor_value_info("y", TensorProto.INT64, None)],
            ),
            opset_imports=[helper.make_opsetid("", 17)],
        )
    )
    assert integer_range(length, "n").high == 12  # a length never exceeds the sequence


def test_bert_runs_with_random_token_ids() -> None:
    shapes = EXAMPLE_INPUT_SHAPES["bert_encoder"]
    graph = load(bert_encoder(), input_shapes=shapes)
    inputs = random_inputs(graph, seed=0)
    assert {k: v.dtype for k, v in inputs.items()} == {
        "input_ids": np.dtype("int64"),
        "attention_mask": np.dtype("int64"),
    }
    outputs = _run(materialize_weights(graph.onnx_bytes, seed=0), inputs)
    assert all(np.isfinite(o).all() for o in outputs)


def test_bool_and_float_inputs() -> None:
    # One op per input: an op mixing float16 and float64 is not a valid model.
    nodes = [
        helper.make_node("Not", ["cond"], ["c"]),
        helper.make_node("Neg", ["a"], ["na"]),
        helper.make_node("Neg", ["b"], ["nb"]),
    ]
    graph = load(
        helper.make_model(
            helper.make_graph(
                nodes,
                "three_dtypes",
                [
                    helper.make_tensor_value_info("cond", TensorProto.BOOL, [2, 8]),
                    helper.make_tensor_value_info("a", TensorProto.FLOAT16, [2, 8]),
                    helper.make_tensor_value_info("b", TensorProto.DOUBLE, [2, 8]),
                ],
                [
                    helper.make_tensor_value_info("c", TensorProto.BOOL, None),
                    helper.make_tensor_value_info("na", TensorProto.FLOAT16, None),
                    helper.make_tensor_value_info("nb", TensorProto.DOUBLE, None),
                ],
            ),
            opset_imports=[helper.make_opsetid("", 17)],
        )
    )
    inputs = random_inputs(graph, seed=1)
    assert [a.dtype.name for a in inputs.values()] == ["bool", "float16", "float64"]
    assert inputs["cond"].any() and not inputs["cond"].all()


def test_random_inputs_are_seeded() -> None:
    graph = load(tiny_model())
    a, b, c = (random_inputs(graph, seed=s)["x"] for s in (0, 0, 1))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_load_npz_accepts_matching_arrays(tmp_path: Path) -> None:
    graph = load(tiny_model())
    path = tmp_path / "in.npz"
    x = np.ones((1, 3, 32, 32), np.float32)
    np.savez(path, x=x)
    assert np.array_equal(load_npz(path, graph)["x"], x)


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        (
            {"y": np.zeros((1, 3, 32, 32), np.float32)},
            r"missing inputs \['x'\].*unknown arrays \['y'\]",
        ),
        (
            {"x": np.zeros((1, 3, 16, 16), np.float32)},
            r"shape \[1, 3, 16, 16\].*expects \[1, 3, 32, 32\]",
        ),
        ({"x": np.zeros((1, 3, 32, 32), np.float64)}, r"dtype float64.*expects float32"),
    ],
)
def test_load_npz_mismatch_says_what_the_model_expects(
    tmp_path: Path, arrays: dict[str, np.ndarray], message: str
) -> None:
    graph = load(tiny_model())
    path = tmp_path / "in.npz"
    np.savez(path, **arrays)
    with pytest.raises(InputDataError, match=message) as info:
        load_npz(path, graph)
    assert isinstance(info.value, NnlatError)
    assert "x: float32[1, 3, 32, 32]" in str(info.value)


def test_load_npz_unreadable_files(tmp_path: Path) -> None:
    graph = load(tiny_model())
    with pytest.raises(InputDataError, match="cannot read"):
        load_npz(tmp_path / "missing.npz", graph)
    single = tmp_path / "single.npy"
    np.save(single, np.zeros(3))
    with pytest.raises(InputDataError, match=r"not an \.npz archive"):
        load_npz(single, graph)


def test_materialize_weights_fills_every_initializer_and_runs() -> None:
    graph = load(tiny_model(channels=128))  # 128x3x3x3 weights lose their data
    stored = onnx.load_from_string(graph.onnx_bytes)
    assert not all(has_data(t) for t in stored.graph.initializer)
    model = materialize_weights(graph.onnx_bytes, seed=0)
    assert all(has_data(t) for t in model.graph.initializer)
    (output,) = _run(model, random_inputs(graph))
    assert output.shape == (1, 128, 32, 32)
    assert np.isfinite(output).all() and output.max() > 0


def test_materialize_weights_is_seeded() -> None:
    data = load(tiny_model(channels=128)).onnx_bytes
    same = materialize_weights(data, 5).SerializeToString()
    assert materialize_weights(data, 5).SerializeToString() == same
    assert materialize_weights(data, 6).SerializeToString() != same


@pytest.mark.parametrize("builder", [cnn_int8, speech_lstm, constant_of_shape_weights])
def test_materialized_real_world_models_run_with_finite_outputs(builder) -> None:
    graph = load(builder(), input_shapes=EXAMPLE_INPUT_SHAPES.get(builder.__name__))
    outputs = _run(materialize_weights(graph.onnx_bytes, seed=0), random_inputs(graph))
    assert all(np.isfinite(o).all() for o in outputs if o.dtype.kind == "f")


def test_a_weight_free_per_channel_int8_lstm_gets_zero_zero_points() -> None:
    """DynamicQuantizeLSTM refuses non-zero weight zero points; per-channel ones are
    vectors, so a weight-free file has lost them (six tiny-heads variants failed so)."""
    from nnlat.zoo import get_family

    config = {
        "cell": "lstm",
        "features": 32,
        "width": 128,
        "int8": {
            "op_types": ["MatMul", "Gemm", "Conv", "LSTM", "Gather"],
            "per_channel": True,
            "reduce_range": True,
            "weight_type": "QInt8",
        },
        "kind": "rnn-step",
        "num_classes": 1,
        "opset": 13,
        "proj": "conv",
        "seed": 0,
    }
    graph = load(get_family("tiny-heads").model(config).to_onnx())
    assert any(n.op_type == "DynamicQuantizeLSTM" for n in graph.nodes)
    outputs = _run(materialize_weights(graph.onnx_bytes, seed=0), random_inputs(graph))
    assert all(np.isfinite(o).all() for o in outputs)


def test_scalar_bool_input_is_an_array() -> None:
    # A 0-D draw is a NumPy scalar, which onnxruntime refuses ("numpy.bool").
    node = helper.make_node("Not", ["flag"], ["y"])
    graph = load(
        helper.make_model(
            helper.make_graph(
                [node],
                "flag",
                [helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
                [helper.make_tensor_value_info("y", TensorProto.BOOL, [])],
            ),
            opset_imports=[helper.make_opsetid("", 17)],
        )
    )
    assert isinstance(random_inputs(graph)["flag"], np.ndarray)


def test_inputs_too_large_to_allocate_are_refused_with_the_limit() -> None:
    graph = load(tiny_model(), batch_size=1 << 20)
    with pytest.raises(LimitExceededError, match=r"max_input_bytes=1000 \(raise it with"):
        random_inputs(graph, max_bytes=1000)
    with pytest.raises(LimitExceededError, match="max_weight_bytes=10"):
        materialize_weights(graph.onnx_bytes, max_bytes=10)
