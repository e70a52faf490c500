"""The LiteRT backend: conformance, precision, layout, XNNPACK on and off."""

from __future__ import annotations

import numpy as np
import pytest

from nnlat.graph import load
from nnlat.measure.backends.base import BackendUnavailableError
from nnlat.measure.backends.litert import LiteRtBackend, model_precision
from nnlat.measure.inputs import random_inputs
from nnlat.measure.runner import measure
from nnlat.measure.types import MeasureSpec
from nnlat.testing.conformance import check_backend
from nnlat.testing.tflite_models import MODELS, QUANTIZATIONS, handmade_tflite, tflite_model

pytest.importorskip("ai_edge_litert")

SPEC = MeasureSpec(warmup_min_runs=1, warmup_max_s=0.2, min_runs=5, max_runs=50, max_time_s=0.5)


@pytest.mark.parametrize("xnnpack", [True, False])
def test_conformance(xnnpack: bool) -> None:
    check_backend(LiteRtBackend(xnnpack=xnnpack))


def test_names_say_whether_xnnpack_runs() -> None:
    assert LiteRtBackend().platform(1, "fp32").runtime == "litert"
    assert LiteRtBackend(xnnpack=False).platform(1, "fp32").runtime == "litertbuiltin"


def test_platform_precision_must_be_the_models() -> None:
    backend = LiteRtBackend()
    graph = load(handmade_tflite("ADD", (1, 8, 8, 16), "int8"))
    with pytest.raises(BackendUnavailableError, match="this model is int8"):
        backend.prepare(graph, backend.platform(1, "fp32"), MeasureSpec())
    result = measure(graph, backend.platform(1, "fp32"), SPEC)
    assert result.status == "unsupported" and "int8" in (result.error or "")


def test_result_carries_memory_and_says_why_energy_is_missing() -> None:
    graph = load(handmade_tflite("ADD", (1, 8, 8, 16)))
    result = measure(graph, LiteRtBackend().platform(1, "fp32"), SPEC)
    assert result.status == "ok" and not result.deterministic
    assert result.stats is not None and result.stats.n >= SPEC.min_runs
    assert result.environment["memory"] != "none"
    if result.energy_j is None:
        assert result.energy_note  # says why, never a made-up number


@pytest.mark.slow
@pytest.mark.parametrize(("name", "quantization"), [(n, q) for n in MODELS for q in QUANTIZATIONS])
def test_corpus_measures(name: str, quantization: str) -> None:
    graph = load(tflite_model(name, quantization))
    precision = model_precision(graph)
    assert precision == ("int8" if quantization == "int8" else "fp32")
    result = measure(graph, LiteRtBackend().platform(1, precision), SPEC)
    assert result.status == "ok", result.error


@pytest.mark.slow
def test_outputs_come_back_in_the_irs_layout() -> None:
    from ai_edge_litert.interpreter import Interpreter

    data = tflite_model("cnn", "float")
    graph = load(data)
    backend = LiteRtBackend()
    prepared = backend.prepare(graph, backend.platform(1, "fp32"), MeasureSpec())
    inputs = random_inputs(graph, seed=0)
    ours = prepared.run(inputs).outputs[0]
    bare = Interpreter(model_content=data)
    bare.allocate_tensors()
    detail = bare.get_input_details()[0]
    bare.set_tensor(detail["index"], inputs[graph.inputs[0].name].transpose(0, 2, 3, 1))
    bare.invoke()
    np.testing.assert_allclose(ours, bare.get_tensor(bare.get_output_details()[0]["index"]))


def test_memory_is_the_heap_the_interpreter_holds() -> None:
    def held(shape: tuple[int, ...]) -> int:
        result = measure(
            load(handmade_tflite("ADD", shape)), LiteRtBackend().platform(1, "fp32"), SPEC
        )
        assert result.status == "ok" and result.peak_memory_bytes is not None
        assert result.environment["memory"] == "heap_freed_on_close"  # glibc here
        return result.peak_memory_bytes

    small, large = held((1, 8, 8, 16)), held((1, 64, 64, 64))
    # Three float tensors of 1 MiB each (two inputs, the output) live in the arena.
    assert small > 0 and large - small >= 3 * (64 * 64 * 64 * 4) * 0.9
