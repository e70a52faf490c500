"""A TFLite model read straight into the IR is the graph the ONNX route gives.

``load`` reads a TFLite file into the IR directly (``nnlat.graph.tflite_ir``) unless
normalisation would rewrite the model; these tests load every TFLite model the suite can
make both ways and compare the graphs field by field, storage form and hash included.
"""

from __future__ import annotations

import random

import pytest

from nnlat.graph import graph_key
from nnlat.graph.ir import Graph
from nnlat.graph.load import _normalized_tflite, load
from nnlat.graph.passes.options import NormalizeOptions
from nnlat.graph.tflite_io import read_converted
from nnlat.graph.tflite_ir import converted_to_ir
from nnlat.limits import DEFAULT_LIMITS, Limits
from nnlat.testing.tflite_models import MODELS, QUANTIZATIONS, handmade_tflite, tflite_model


def onnx_route(data: bytes) -> Graph:
    """The graph through ONNX and the normalisation pipeline, whatever the model."""
    return _normalized_tflite(read_converted(data), data, "the model", NormalizeOptions())


def assert_same_graph(direct: Graph, reference: Graph) -> None:
    assert direct.nodes == reference.nodes  # order, names, attributes with defaults
    assert direct.inputs == reference.inputs and direct.outputs == reference.outputs
    assert direct.weights == reference.weights
    assert direct.tensors == reference.tensors  # shapes, dtypes, quantisation
    assert dict(direct.opsets) == dict(reference.opsets)
    assert direct.source_format == reference.source_format == "tflite"
    assert direct.source_bytes == reference.source_bytes
    assert graph_key(direct) == graph_key(reference)
    assert direct.onnx_bytes == reference.onnx_bytes


@pytest.mark.parametrize(
    ("op", "dtype"), [("ADD", "float32"), ("MUL", "float32"), ("ADD", "int8"), ("SUB", "float32")]
)
def test_handmade_models_read_straight_into_the_ir(op: str, dtype: str) -> None:
    data = handmade_tflite(op, (1, 8, 8, 3), dtype)
    assert converted_to_ir(read_converted(data), DEFAULT_LIMITS, bytes) is not None
    assert_same_graph(load(data), onnx_route(data))


def test_the_storage_form_is_made_on_first_read_only() -> None:
    made: list[int] = []

    def storage() -> bytes:
        made.append(1)
        return b"onnx"

    graph = converted_to_ir(read_converted(handmade_tflite()), DEFAULT_LIMITS, storage)
    assert graph is not None and made == []
    assert graph.onnx_bytes == graph.onnx_bytes == b"onnx"
    assert made == [1]


def test_a_model_over_a_limit_takes_the_onnx_route_and_its_error() -> None:
    data = handmade_tflite("ADD", (1, 64))
    small = Limits(max_tensor_elements=32)
    assert converted_to_ir(read_converted(data), small, bytes) is None
    with pytest.raises(Exception, match="max_tensor_elements"):
        load(data, limits=small)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "quantization"), [(n, q) for n in MODELS for q in QUANTIZATIONS])
def test_converter_corpus_gives_the_onnx_routes_graph(name: str, quantization: str) -> None:
    data = tflite_model(name, quantization)
    assert_same_graph(load(data), onnx_route(data))


@pytest.mark.slow
def test_float16_weights_fold_into_float32_weights() -> None:
    # The Cast that widens each float16 weight reads a constant only: it folds, and the
    # float16 weight it read is dropped, as normalisation does.
    data = tflite_model("cnn", "float16")
    graph = converted_to_ir(read_converted(data), DEFAULT_LIMITS, bytes)
    assert graph is not None and "Cast" not in [n.op_type for n in graph.nodes]
    conv = next(n for n in graph.nodes if n.op_type == "Conv")
    assert graph.weights[conv.inputs[1]].dtype == "float32"
    assert not any(spec.dtype == "float16" for spec in graph.tensors.values())


@pytest.mark.slow
@pytest.mark.parametrize(
    "family", ["cnn-kws", "cnn-cifar10", "vit-cifar100", "cnn-imagenet", "cnn-realblocks"]
)
def test_edge_zoo_models_read_straight_into_the_ir(family: str) -> None:
    from nnlat.zoo.registry import get_family

    space = get_family(family)
    data = space.model(space.sample(random.Random(3))).to_tflite()
    assert converted_to_ir(read_converted(data), DEFAULT_LIMITS, bytes) is not None
    assert_same_graph(load(data), onnx_route(data))


def test_a_graph_read_directly_pickles_with_its_storage_form() -> None:
    # Graphs cross process boundaries (workers, caches): the deferred storage form must too.
    import pickle

    graph = load(handmade_tflite("ADD", (1, 8, 8, 3)))
    again = pickle.loads(pickle.dumps(graph))
    assert again.nodes == graph.nodes and graph_key(again) == graph_key(graph)
    assert again.onnx_bytes == onnx_route(again.source_bytes).onnx_bytes
