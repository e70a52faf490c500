"""Real-world model structures load, hash and get costs.

Every imitation in :mod:`nnlat.zoo.realworld` (OCR, detection, speech, BERT, dynamic
int8, custom domains, If/Loop, channels-last, opsets 9–18, ConstantOfShape weights) and
every weight-free CNN shipped with the ``onnx`` wheel goes through the same checks:
loading with and without input-shape overrides, a stable 16-hex hash that depends on
the batch size, non-zero costs, unknown ops reported, sub-graph nodes counted, and a
weight-free storage form that re-loads to the same hash.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest

from nnlat.errors import InvalidInputShapeError, NnlatWarning
from nnlat.graph import Graph, graph_cost, graph_key, load, summarize
from nnlat.graph.onnx_io import iter_graphs
from nnlat.zoo.realworld import EXAMPLE_INPUT_SHAPES, REALWORLD_BUILDERS

LIGHT_DIR = Path(onnx.__file__).parent / "backend/test/data/light"
LIGHT_MODELS = {path.stem: path for path in sorted(LIGHT_DIR.glob("*.onnx"))}
ALL_MODELS = [*REALWORLD_BUILDERS, *LIGHT_MODELS]

# The builders that need onnxruntime's quantizer (the dev extra).
NEEDS_ORT = frozenset({"bert_encoder_int8", "lstm_int8", "cnn_int8"})

# The storage form is weight-free: constants keep values only up to this many elements.
MAX_KEPT_ELEMENTS = 64

# Ops each model must contain after normalisation, with minimum counts (sub-graphs
# included): proof that the builder imitates what its docstring says.
SMALL_CNN_OPS = {
    "Pad": 1,
    "Conv": 2,
    "BatchNormalization": 1,
    "Clip": 1,
    "Split": 1,
    "Concat": 1,
    "MaxPool": 1,
    "ReduceMean": 1,
    "Squeeze": 1,
    "Gemm": 1,
    "Unsqueeze": 1,
    "Softmax": 1,
}
EXPECTED_OPS: dict[str, dict[str, int]] = {
    "crnn_ocr": {"Conv": 4, "MaxPool": 3, "LSTM": 1, "MatMul": 1, "LogSoftmax": 1},
    "fpn_detector": {"Conv": 12, "Resize": 1, "ConvTranspose": 1, "Concat": 2, "Sigmoid": 1},
    "speech_lstm": {"Conv": 1, "LSTM": 2, "GRU": 1, "MatMul": 1},
    "bert_encoder": {
        "Gather": 1,
        "MatMul": 16,
        "Softmax": 2,
        "LayerNormalization": 5,
        "Erf": 2,
    },
    "bert_encoder_int8": {"MatMulInteger": 12, "DynamicQuantizeLinear": 1, "Softmax": 2},
    "lstm_int8": {"com.microsoft:DynamicQuantizeLSTM": 1, "MatMulInteger": 1},
    "cnn_int8": {"ConvInteger": 3, "MatMulInteger": 1, "DynamicQuantizeLinear": 1},
    "custom_domain_op": {"Conv": 2, "my.custom:FancyActivation": 1},
    "if_subgraph": {"If": 1, "Conv": 3, "Relu": 1, "Sigmoid": 1, "Mul": 1},
    "loop_subgraph": {"Loop": 1, "MatMul": 2, "Add": 1, "Tanh": 1},
    "scripted_control_flow": {"Loop": 1, "If": 1, "Conv": 2, "Relu": 1, "Sigmoid": 1},
    "greedy_decoder_loop": {"Loop": 1, "MatMul": 2, "ArgMax": 1, "Concat": 1, "Tanh": 1},
    "channels_last": {"Transpose": 2, "Conv": 2, "MatMul": 1, "Softmax": 1},
    "small_cnn_opset9": {**SMALL_CNN_OPS, "Upsample": 1},
    "small_cnn_opset11": {**SMALL_CNN_OPS, "Resize": 1},
    "small_cnn_opset13": {**SMALL_CNN_OPS, "Resize": 1},
    "small_cnn_opset15": {**SMALL_CNN_OPS, "Resize": 1},
    "small_cnn_opset18": {**SMALL_CNN_OPS, "Resize": 1},
    "constant_of_shape_weights": {"Conv": 2, "BatchNormalization": 1, "Gemm": 1},
}

# Ops no cost family knows (reported, never silently zero).
EXPECTED_UNKNOWN: dict[str, dict[str, int]] = {
    "custom_domain_op": {"my.custom:FancyActivation": 1},
}

# Known ops whose shapes cannot be known, and why. Every other node must be costed.
ALLOWED_UNCOSTED: dict[str, set[str]] = {
    # Shape inference cannot see through the custom op: what follows it is shapeless.
    "custom_domain_op": {"Conv", "GlobalAveragePool"},
    # A scan output's length is the trip count, known only at run time.
    "loop_subgraph": {"Loop"},
    # The token state grows each iteration: its length is known only at run time.
    "greedy_decoder_loop": {"Loop", "Gather", "Concat"},
}

# Families whose cost is arithmetic: with known shapes they must cost something.
MAC_FAMILIES = frozenset({"conv", "conv_transpose", "gemm", "matmul", "rnn"})
FREE_FAMILIES = frozenset({"data_movement", "control_flow", "unknown"})


@functools.cache
def _model_bytes(name: str) -> bytes:
    """The serialised model (built once per session; bytes cannot be mutated by a test)."""
    if name in LIGHT_MODELS:
        return LIGHT_MODELS[name].read_bytes()
    return REALWORLD_BUILDERS[name]().SerializeToString()


def _source(name: str) -> bytes:
    if name in NEEDS_ORT:
        pytest.importorskip("onnxruntime.quantization")
    return _model_bytes(name)


def _load(source: bytes | Graph | onnx.ModelProto, **kwargs: object) -> Graph:
    """Load with the defaults warning silenced (tested on its own below)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NnlatWarning)
        return load(source, **kwargs)  # type: ignore[arg-type]


@functools.cache
def _graph(name: str, with_shapes: bool = False) -> Graph:
    shapes = EXAMPLE_INPUT_SHAPES.get(name) if with_shapes else None
    return _load(_source(name), input_shapes=shapes)


def _has_dynamic_dims(model: onnx.ModelProto) -> bool:
    weights = {t.name for t in model.graph.initializer}
    return any(
        not dim.HasField("dim_value")
        for value in model.graph.input
        if value.name not in weights
        for dim in value.type.tensor_type.shape.dim
    )


def _op_counts(graph: Graph) -> Counter[str]:
    return Counter(summarize(graph).op_counts)


@pytest.fixture(params=ALL_MODELS)
def name(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=[False, True], ids=["defaults", "example_shapes"])
def with_shapes(request: pytest.FixtureRequest) -> bool:
    return request.param


def test_every_builder_has_expectations() -> None:
    assert set(EXPECTED_OPS) == set(REALWORLD_BUILDERS)
    dynamic = {n for n in REALWORLD_BUILDERS if n not in NEEDS_ORT}
    dynamic = {n for n in dynamic if _has_dynamic_dims(onnx.load_from_string(_model_bytes(n)))}
    assert dynamic <= set(EXAMPLE_INPUT_SHAPES)


def test_loads_with_defaults_and_warns_only_for_dynamic_dims(name: str) -> None:
    source = _source(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = load(source)
    defaults = [w for w in caught if issubclass(w.category, NnlatWarning)]
    if _has_dynamic_dims(onnx.load_from_string(source)):
        assert defaults, "dynamic dimensions were defaulted silently"
        assert "dynamic dimensions set to defaults" in str(defaults[0].message)
    else:
        assert not defaults
    assert graph.inputs and all(spec.is_static for spec in graph.inputs)


@pytest.mark.parametrize("name", sorted(EXAMPLE_INPUT_SHAPES))
def test_loads_with_input_shapes_without_warning(name: str) -> None:
    shapes = EXAMPLE_INPUT_SHAPES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", NnlatWarning)
        graph = load(_source(name), input_shapes=shapes)
    for spec in graph.inputs:
        if spec.name in shapes:
            assert spec.shape == shapes[spec.name]
        assert spec.is_static


def test_hash_is_16_hex_and_stable_across_loads(name: str) -> None:
    source = _source(name)
    first, second = graph_key(_load(source)), graph_key(_load(source))
    assert re.fullmatch(r"[0-9a-f]{16}", first.digest)
    assert first == second


# Models whose fixed batch of 1 a node hard-codes (a Reshape to [1, N] before the
# classifier): another batch size is refused rather than re-batched into a graph that
# cannot run (issue 27).
HARD_CODED_BATCH = {
    "constant_of_shape_weights",
    "light_bvlc_alexnet",
    "light_inception_v1",
    "light_inception_v2",
    "light_resnet50",
    "light_shufflenet",
    "light_vgg19",
    "light_zfnet512",
}


def test_hash_depends_on_batch_size(name: str) -> None:
    source = _source(name)
    one = graph_key(_load(source, batch_size=1))
    if name in HARD_CODED_BATCH:
        with pytest.raises(InvalidInputShapeError, match="hard-coded by Reshape"):
            _load(source, batch_size=4)
        return
    four = graph_key(_load(source, batch_size=4))
    assert one != four


def test_storage_form_reloads_to_same_hash(name: str, with_shapes: bool) -> None:
    graph = _graph(name, with_shapes)
    key = graph_key(graph)
    assert graph_key(_load(graph.onnx_bytes)) == key
    assert graph_key(_load(graph)) == key


def test_storage_form_is_weight_free(name: str) -> None:
    model = onnx.load_from_string(_graph(name).onnx_bytes)
    fields = ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data")

    def carries_data(tensor: onnx.TensorProto) -> bool:
        return any(len(getattr(tensor, field)) for field in fields)

    for graph in iter_graphs(model.graph):
        for tensor in graph.initializer:
            if carries_data(tensor):
                assert math.prod(tensor.dims) <= MAX_KEPT_ELEMENTS, tensor.name
        for node in graph.node:  # Constant nodes left in If/Loop bodies
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.TENSOR and carries_data(attr.t):
                    assert math.prod(attr.t.dims) <= MAX_KEPT_ELEMENTS, node.op_type


@pytest.mark.parametrize("name", sorted(REALWORLD_BUILDERS))
def test_contains_the_ops_it_imitates(name: str) -> None:
    counts = _op_counts(_graph(name))
    missing = {op: n for op, n in EXPECTED_OPS[name].items() if counts[op] < n}
    assert not missing, f"expected at least {missing}; got {dict(counts)}"


def test_costs_are_complete(name: str, with_shapes: bool) -> None:
    graph = _graph(name, with_shapes)
    summary = summarize(graph)
    assert summary.flops > 0
    assert summary.macs > 0
    assert summary.params > 0  # every model here carries weights
    assert summary.bytes > 0
    assert summary.unknown_ops == EXPECTED_UNKNOWN.get(name, {})
    assert set(summary.uncosted_ops) <= ALLOWED_UNCOSTED.get(name, set()), summary.uncosted_ops
    for node in graph_cost(graph).nodes:
        if not node.shapes_known:
            continue
        assert node.bytes > 0, node
        if node.family in MAC_FAMILIES:
            assert node.macs > 0 and node.flops >= 2 * node.macs, node
        elif node.family not in FREE_FAMILIES:
            assert node.flops > 0, node


def test_ops_left_costed_by_dynamic_int8_quantization() -> None:
    pytest.importorskip("onnxruntime.quantization")
    for name, ops in {
        "lstm_int8": ("com.microsoft:DynamicQuantizeLSTM", "MatMulInteger"),
        "bert_encoder_int8": ("MatMulInteger",),
        "cnn_int8": ("ConvInteger", "MatMulInteger"),
    }.items():
        cost = graph_cost(_graph(name))
        for op in ops:
            nodes = [n for n in cost.nodes if n.op == op]
            assert nodes, f"{name} has no {op}"
            assert op not in cost.unknown_ops and op not in cost.uncosted_ops
            assert all(n.macs > 0 and n.shapes_known for n in nodes), (name, op)


def test_dynamic_quantize_lstm_costs_like_the_float_lstm() -> None:
    pytest.importorskip("onnxruntime.quantization")
    [quantized] = [n for n in graph_cost(_graph("lstm_int8")).nodes if n.family == "rnn"]
    # features (1, 128, 40) → one direction of 64 hidden units, 4 gates, 128 steps.
    assert quantized.macs == 128 * 1 * 4 * 64 * (40 + 64)


@pytest.mark.parametrize(
    "name", ["if_subgraph", "loop_subgraph", "scripted_control_flow", "greedy_decoder_loop"]
)
def test_subgraph_nodes_are_counted_and_costed(name: str) -> None:
    graph = _graph(name, True)
    summary = summarize(graph)
    body_ops = Counter(owner.nodes[i].op_type for owner, i in graph.walk() if owner is not graph)
    assert body_ops, "the sub-graphs are empty"
    assert summary.nodes == len(graph.walk()) > len(graph.nodes)
    for op, count in body_ops.items():
        assert summary.op_counts[op] >= count
    cost = graph_cost(graph)
    assert len(cost.nodes) == summary.nodes
    # the bodies' compute is counted, not just the outer graph's
    body_flops = [
        c.flops
        for (owner, _), c in zip(graph.walk(), cost.nodes, strict=True)
        if owner is not graph
    ]
    assert sum(body_flops) > 0


@pytest.mark.parametrize("name", sorted(set(EXAMPLE_INPUT_SHAPES) - {"custom_domain_op"}))
def test_inferred_output_shapes_match_onnxruntime(name: str) -> None:
    # Inference fills gaps (contrib ops, Loop state); what it fills must be right.
    ort = pytest.importorskip("onnxruntime")
    graph = _graph(name, True)
    session = ort.InferenceSession(_source(name), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    feeds = {}
    for spec in graph.inputs:
        if spec.dtype == "int64":  # token ids, or a loop's step count
            feeds[spec.name] = np.full(spec.shape, 2 if spec.shape == () else 1, np.int64)
        else:
            feeds[spec.name] = rng.standard_normal(spec.shape).astype(spec.dtype)
    results = session.run([spec.name for spec in graph.outputs], feeds)
    for spec, result in zip(graph.outputs, results, strict=True):
        assert spec.shape is not None and len(spec.shape) == result.ndim, spec
        for inferred, actual in zip(spec.shape, result.shape, strict=True):
            assert inferred in (None, actual), (spec, result.shape)


def test_subgraph_weights_count_as_params() -> None:
    # loop_subgraph: w_rec (32x32) and b_rec (32) are read only inside the Loop body.
    graph = _graph("loop_subgraph")
    cost = graph_cost(graph)
    [body_matmul] = [
        c
        for (owner, _), c in zip(graph.walk(), cost.nodes, strict=True)
        if owner is not graph and c.op == "MatMul"
    ]
    assert body_matmul.params == 32 * 32
    assert cost.params >= 32 * 32 + 32 + 32 * 10


def test_growing_loop_state_gets_no_fixed_length() -> None:
    graph = _graph("greedy_decoder_loop", True)
    generated = graph.spec("generated")
    assert generated is not None and generated.shape is not None
    assert generated.shape[1] is None  # prompt length + run-time number of steps
    final_hidden = graph.spec("final_hidden")
    assert final_hidden is not None and final_hidden.shape == (2, 32)


def test_subgraph_shapes_declared_at_export_follow_the_batch_size() -> None:
    # A static export declares the If branches' outputs with the example batch (1); at
    # batch 4 they must be re-inferred, giving the graph of a dynamic-batch export.
    static = onnx.load_from_string(_model_bytes("if_subgraph"))
    static.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1
    [if_node] = [n for n in static.graph.node if n.op_type == "If"]
    for branch in if_node.attribute:
        branch.g.output[0].type.tensor_type.shape.dim[0].dim_value = 1
    dynamic = _model_bytes("if_subgraph")
    assert graph_key(_load(static, batch_size=4)) == graph_key(_load(dynamic, batch_size=4))


def test_channels_last_defaults_are_spatial() -> None:
    graph = _graph("channels_last")
    assert graph.inputs[0].shape == (1, 224, 224, 3)


def test_ir3_constant_of_shape_weights_are_costed() -> None:
    graph = _graph("constant_of_shape_weights")
    summary = summarize(graph)
    assert "ConstantOfShape" not in summary.op_counts  # folded into data-less weights
    assert summary.uncosted_ops == {}
    convs = [c for c in graph_cost(graph).nodes if c.op == "Conv"]
    # 16x64x64 outputs x 3x3x3 window, then 16x32x32 outputs x 16x3x3 window
    assert [c.macs for c in convs] == [16 * 64 * 64 * 27, 16 * 32 * 32 * 144]
