"""Which model an ONNX runtime times: the user's file, re-declared, or the normal form."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from nnlat.graph import load
from nnlat.graph.tensors import drop_data, has_data
from nnlat.measure.backends.base import graph_for
from nnlat.measure.backends.timed_model import (
    NORMAL_FORM,
    ORIGINAL,
    ORIGINAL_GENERATED_WEIGHTS,
    REDECLARED,
    OutputShapeMismatchError,
    TimedModel,
    timed_model,
)
from nnlat.measure.inputs import random_inputs
from nnlat.measure.types import MeasureSpec
from nnlat.testing.hard_models import HARD_MODELS


def _run(timed: TimedModel, spec: MeasureSpec, source: object) -> list[np.ndarray]:
    timed.proto.ir_version = min(timed.proto.ir_version, 10)
    data = timed.proto.SerializeToString()
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    return session.run(None, random_inputs(graph_for(source, spec)))


def test_the_users_model_is_timed_with_its_own_weights() -> None:
    model = HARD_MODELS["nhwc_cnn"]()
    timed = timed_model(graph_for(model, MeasureSpec()), seed=0)
    assert timed.form == ORIGINAL
    assert timed.proto.graph.initializer[0] == model.graph.initializer[0]


def test_stripped_weights_are_generated_and_the_rest_kept() -> None:
    model = HARD_MODELS["nhwc_cnn"]()
    drop_data(model.graph.initializer[0])  # conv_w: 216 values
    spec = MeasureSpec()
    timed = timed_model(graph_for(model, spec), seed=0)
    assert timed.form == ORIGINAL_GENERATED_WEIGHTS
    assert all(has_data(t) for t in timed.proto.graph.initializer)
    assert timed.proto.graph.initializer[2] == model.graph.initializer[2]  # fc_w kept
    _run(timed, spec, model)


def test_a_weight_free_file_times_the_normal_form() -> None:
    stored = load(HARD_MODELS["nhwc_cnn"]()).onnx_bytes  # what the store keeps
    timed = timed_model(graph_for(stored, MeasureSpec()), seed=0)
    assert timed.form == NORMAL_FORM


def test_a_fixed_dimension_asked_otherwise_is_re_declared_and_checked() -> None:
    model = HARD_MODELS["nhwc_cnn"]()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1
    spec = MeasureSpec(batch_size=4)
    timed = timed_model(graph_for(model, spec), seed=0)
    assert timed.form == REDECLARED
    assert [d.dim_value for d in timed.proto.graph.input[0].type.tensor_type.shape.dim] == [
        4,
        32,
        32,
        3,
    ]
    (logits,) = _run(timed, spec, model)
    timed.check_outputs(["logits"], [logits])
    with pytest.raises(OutputShapeMismatchError, match="dynamic axis"):
        timed.check_outputs(["logits"], [logits[:1]])


def test_the_original_is_kept_through_a_reshape_of_the_graph() -> None:
    graph = graph_for(HARD_MODELS["qdq_conv"](), MeasureSpec())
    again = graph_for(graph, MeasureSpec(batch_size=2))
    assert again.source_bytes == graph.source_bytes
    assert onnx.load_from_string(again.source_bytes).graph.name == "qdq_conv"
