"""TFLite models load into the same IR as ONNX: ops, shapes, dtypes, quantisation, costs.

The fast tests use flatbuffers written by hand; the corpus tests convert tiny Keras
models with TensorFlow's converter (seconds each, so they are marked slow).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from nnlat.errors import InvalidInputShapeError, ModelLoadError, UnsupportedOperatorError
from nnlat.graph import graph_cost, graph_key, load
from nnlat.graph.flat_table import FlatTable
from nnlat.graph.summary import inspect
from nnlat.graph.tflite_io import is_tflite
from nnlat.testing.tflite_models import MODELS, QUANTIZATIONS, handmade_tflite, tflite_model


def test_handmade_model_loads_with_its_source() -> None:
    data = handmade_tflite("MUL", (1, 8, 8, 3))
    graph = load(data)
    assert [n.op_type for n in graph.nodes] == ["Mul"]
    assert graph.outputs[0].shape == (1, 8, 8, 3)  # no image op: TFLite's layout is kept
    assert graph.source_format == "tflite"
    assert graph.source_bytes == data
    assert graph_cost(graph).flops == 8 * 8 * 3
    again = load(graph)  # a Graph re-loads from its source, keeping it
    assert again.source_bytes == data
    assert graph_key(again) == graph_key(graph)


def test_tflite_is_recognised_by_content_not_name(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(handmade_tflite())
    assert load(path).source_format == "tflite"
    assert is_tflite(handmade_tflite())


def test_unsupported_operator_is_named() -> None:
    with pytest.raises(UnsupportedOperatorError, match="CUSTOM:MyCustomOp"):
        load(handmade_tflite("CUSTOM"))
    with pytest.raises(UnsupportedOperatorError, match="WHILE"):
        load(handmade_tflite("WHILE"))


def test_not_tflite_and_truncated(tmp_path: Path) -> None:
    path = tmp_path / "notes.tflite"
    path.write_text("not a model at all")
    with pytest.raises(ModelLoadError, match="not a TFLite model"):
        load(path)
    data = handmade_tflite()
    for cut in (12, len(data) // 2, len(data) - 9):
        with pytest.raises(ModelLoadError, match="truncated"):
            load(data[:cut])


def test_without_the_schema_package_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = handmade_tflite()
    monkeypatch.setitem(sys.modules, "tflite", None)  # import tflite now fails
    with pytest.raises(ModelLoadError, match=r"nnlat\[edge\]"):
        load(data)


def test_input_shapes_are_fixed_in_the_file() -> None:
    with pytest.raises(InvalidInputShapeError, match="fixed in the file"):
        load(handmade_tflite(), batch_size=4)
    assert load(handmade_tflite(), batch_size=1).inputs[0].shape == (1, 4)


# -- the converter corpus ------------------------------------------------------------

CORPUS = [(name, q) for name in MODELS for q in QUANTIZATIONS]
DENSIFY_CODE = 124  # BuiltinOperator.DENSIFY in TFLite's schema


@pytest.mark.slow
@pytest.mark.parametrize(("name", "quantization"), CORPUS)
def test_corpus_loads_hashes_and_costs(name: str, quantization: str) -> None:
    data = tflite_model(name, quantization)
    graph = load(data)
    cost = graph_cost(graph)
    assert cost.unknown_ops == {} and cost.uncosted_ops == {}
    assert cost.macs > 0
    assert graph_key(load(data)) == graph_key(graph)  # deterministic
    # The IR's output shapes are the interpreter's (2-D outputs: no layout change).
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_content=data)
    expected = [tuple(d["shape"]) for d in interpreter.get_output_details()]
    assert [s.shape for s in graph.outputs] == expected


@pytest.mark.slow
def test_cnn_macs_and_layout() -> None:
    graph = load(tflite_model("cnn", "float"))
    # conv 3x3 3→8 @16x16, depthwise 3x3/2 @8x8, conv 1x1 8→8, conv 3x1 3→8 @8x8,
    # dense 256→10
    expected = 16 * 16 * 8 * 27 + 8 * 8 * 8 * 9 + 8 * 8 * 8 * 8 + 8 * 8 * 8 * 3 * 3 + 256 * 10
    assert graph_cost(graph).macs == expected
    assert graph.inputs[0].shape == (1, 3, 16, 16)  # NHWC described NCHW
    convs = [n for n in graph.nodes if n.op_type == "Conv"]
    depthwise = [n for n in convs if n.attr("group") == 8]
    assert len(depthwise) == 1
    assert graph.weights[depthwise[0].inputs[1]].shape == (8, 1, 3, 3)  # OIHW
    assert "Relu" in [n.op_type for n in graph.nodes]  # the fused activation is a node


@pytest.mark.slow
def test_int8_keeps_types_and_quantisation() -> None:
    graph = load(tflite_model("cnn", "int8"))
    assert graph.inputs[0].dtype == "int8"
    assert graph.inputs[0].quant is not None and len(graph.inputs[0].quant.scale) == 1
    conv = next(n for n in graph.nodes if n.op_type == "Conv")
    weight = graph.weights[conv.inputs[1]]
    assert weight.dtype == "int8"
    assert weight.quant is not None
    assert len(weight.quant.scale) == weight.shape[0]  # per output channel ...
    assert weight.quant.axis == 0  # ... on ONNX's dimension 0
    assert graph.weights[conv.inputs[2]].dtype == "int32"  # the bias
    # Same network, same MACs; a quarter of the bytes of the float model's activations.
    float_graph = load(tflite_model("cnn", "float"))
    assert graph_cost(graph).macs == graph_cost(float_graph).macs
    assert graph_cost(graph).bytes < graph_cost(float_graph).bytes / 3
    assert graph_key(graph) != graph_key(float_graph)


@pytest.mark.slow
def test_dequantised_weights_hash_like_the_float_model() -> None:
    # float16 weights dequantised by constant DEQUANTIZE operators fold to float32
    # constants: the computation, and so the key, is the float model's (docs/tflite.md).
    assert graph_key(load(tflite_model("cnn", "float16"))) == graph_key(
        load(tflite_model("cnn", "float"))
    )
    # Dynamic-range quantisation keeps int8 weights read by float operators: a new key.
    dynamic = load(tflite_model("cnn", "dynamic"))
    assert any(s.dtype == "int8" for s in dynamic.weights.values())
    assert graph_key(dynamic) != graph_key(load(tflite_model("cnn", "float")))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MODELS))
def test_sparse_weights_hash_like_the_dense_model(name: str) -> None:
    # DENSIFY expands stored-sparse weights once, when the interpreter prepares: what runs
    # is the dense network, so the graph (and its key) is the float model's.
    data = tflite_model(name, "sparse")
    codes = {code.scalar(3, "<i", 0) for code in FlatTable.root(data).tables(1)}
    assert DENSIFY_CODE in codes
    assert graph_key(load(data)) == graph_key(load(tflite_model(name, "float")))


@pytest.mark.slow
def test_inspect_reads_a_tflite_file(tmp_path: Path) -> None:
    path = tmp_path / "kws.tflite"
    path.write_bytes(tflite_model("kws", "int8"))
    summary = inspect(path)
    assert summary.op_counts["Conv"] == 3
    assert summary.inputs[0].dtype == "int8"
    assert np.prod(summary.inputs[0].shape) == 49 * 10


@pytest.mark.slow
def test_fast_table_reader_agrees_with_the_generated_classes() -> None:
    """Every tensor field the reader takes through FlatTable equals what the ``tflite``
    package's generated accessors read (int8 ViT: per-channel scales, many tensors)."""
    import tflite

    from nnlat.graph.flat_table import FlatTable

    data = tflite_model("vit", "int8")
    model = tflite.Model.GetRootAs(data, 0)
    sub = model.Subgraphs(0)
    tables = FlatTable.root(data).tables(2)[0].tables(0)
    assert len(tables) == sub.TensorsLength() > 50
    for i, table in enumerate(tables):
        t = sub.Tensors(i)
        assert table.string(3) == (t.Name() or b"")
        assert table.scalar(1, "<b", 0) == t.Type()
        assert table.scalar(2, "<I", 0) == t.Buffer()
        shape = t.ShapeAsNumpy().tolist() if t.ShapeLength() else []
        assert table.array(0, "<i4").tolist() == shape
        q, fast = t.Quantization(), table.table(4)
        if q is not None and q.ScaleLength():
            assert fast is not None
            assert fast.array(2, "<f4").tolist() == q.ScaleAsNumpy().tolist()
            assert fast.array(3, "<i8").tolist() == q.ZeroPointAsNumpy().tolist()
            assert fast.scalar(6, "<i", 0) == q.QuantizedDimension()
