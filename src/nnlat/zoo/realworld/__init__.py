"""The held-out real-world set: small offline imitations of real deployed models.

Each builder returns an ``onnx.ModelProto`` made on the spot (nothing is downloaded) that
reproduces the *structure* real exports have: the exporter's node patterns, dynamic
dimensions, opset-specific operator signatures, com.microsoft contrib ops from dynamic
int8 quantization, custom domains, If/Loop sub-graphs and weights stored as
``ConstantOfShape`` nodes. The models are a few kilobytes to a few hundred kilobytes,
with real (seeded) weights, so they also run in onnxruntime.

:data:`REALWORLD_BUILDERS` names every builder; :data:`EXAMPLE_INPUT_SHAPES` gives, for
models with dynamic dimensions, one concrete ``input_shapes`` override that fits.

These modules need torch (a core dependency) and, for the int8 builders, onnxruntime (the
``dev`` extra, imported lazily). ``import nnlat`` never imports them.
"""

from __future__ import annotations

from collections.abc import Callable

import onnx

from nnlat.zoo.realworld.bert_encoder import bert_encoder
from nnlat.zoo.realworld.bert_encoder_int8 import bert_encoder_int8
from nnlat.zoo.realworld.channels_last import channels_last
from nnlat.zoo.realworld.cnn_int8 import cnn_int8
from nnlat.zoo.realworld.constant_of_shape_weights import constant_of_shape_weights
from nnlat.zoo.realworld.crnn_ocr import crnn_ocr
from nnlat.zoo.realworld.custom_domain_op import custom_domain_op
from nnlat.zoo.realworld.fpn_detector import fpn_detector
from nnlat.zoo.realworld.greedy_decoder_loop import greedy_decoder_loop
from nnlat.zoo.realworld.if_subgraph import if_subgraph
from nnlat.zoo.realworld.loop_subgraph import loop_subgraph
from nnlat.zoo.realworld.lstm_int8 import lstm_int8
from nnlat.zoo.realworld.scripted_control_flow import scripted_control_flow
from nnlat.zoo.realworld.small_cnn import OPSETS, small_cnn, small_cnn_at
from nnlat.zoo.realworld.speech_lstm import speech_lstm

__all__ = [
    "EXAMPLE_INPUT_SHAPES",
    "OPSETS",
    "REALWORLD_BUILDERS",
    "bert_encoder",
    "bert_encoder_int8",
    "channels_last",
    "cnn_int8",
    "constant_of_shape_weights",
    "crnn_ocr",
    "custom_domain_op",
    "fpn_detector",
    "greedy_decoder_loop",
    "if_subgraph",
    "loop_subgraph",
    "lstm_int8",
    "scripted_control_flow",
    "small_cnn",
    "small_cnn_at",
    "speech_lstm",
]

REALWORLD_BUILDERS: dict[str, Callable[[], onnx.ModelProto]] = {
    "crnn_ocr": crnn_ocr,
    "fpn_detector": fpn_detector,
    "speech_lstm": speech_lstm,
    "bert_encoder": bert_encoder,
    "bert_encoder_int8": bert_encoder_int8,
    "lstm_int8": lstm_int8,
    "cnn_int8": cnn_int8,
    "custom_domain_op": custom_domain_op,
    "if_subgraph": if_subgraph,
    "loop_subgraph": loop_subgraph,
    "scripted_control_flow": scripted_control_flow,
    "greedy_decoder_loop": greedy_decoder_loop,
    "channels_last": channels_last,
    **{f"small_cnn_opset{opset}": small_cnn_at(opset) for opset in OPSETS},
    "constant_of_shape_weights": constant_of_shape_weights,
}
"""Name → builder of every real-world imitation."""

EXAMPLE_INPUT_SHAPES: dict[str, dict[str, tuple[int, ...]]] = {
    "crnn_ocr": {"image": (2, 1, 32, 160)},
    "fpn_detector": {"image": (2, 3, 256, 320)},
    "speech_lstm": {"features": (2, 300, 40)},
    "bert_encoder": {"input_ids": (2, 64), "attention_mask": (2, 64)},
    "bert_encoder_int8": {"input_ids": (2, 64), "attention_mask": (2, 64)},
    "lstm_int8": {"features": (2, 100, 40)},
    "cnn_int8": {"image": (2, 3, 64, 64)},
    "custom_domain_op": {"image": (2, 3, 64, 64)},
    "if_subgraph": {"image": (2, 3, 32, 32)},
    "loop_subgraph": {"state": (2, 32)},
    "scripted_control_flow": {"image": (2, 3, 32, 32)},
    "greedy_decoder_loop": {"tokens": (2, 5), "hidden": (2, 32)},
    "channels_last": {"input_1": (2, 96, 128, 3)},
    **{f"small_cnn_opset{opset}": {"x": (2, 3, 32, 32)} for opset in OPSETS},
}
"""Builder name → one concrete ``input_shapes`` override that fits its dynamic inputs."""
