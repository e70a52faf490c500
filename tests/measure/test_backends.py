"""Every backend passes the conformance check; backend-specific promises."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from nnlat.errors import UnknownNameError
from nnlat.graph import load
from nnlat.measure.backends import BackendUnavailableError, backend_registry, get_backend
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.environment import detect_hardware
from nnlat.measure.inputs import random_inputs
from nnlat.measure.types import MeasureSpec
from nnlat.testing import tiny_model
from nnlat.testing.conformance import ConformanceError, check_backend


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ort", "openvino", "torch"])
def test_real_backend_conformance(name: str) -> None:
    backend = get_backend(name)
    availability = backend.available()
    if not availability:
        # Only OpenVINO is optional (the [openvino] extra); the others are dependencies.
        assert name == "openvino", availability.reason
        pytest.skip(f"openvino cannot be used here: {availability.reason}")
    check_backend(backend)


@pytest.mark.slow
def test_fake_backend_conformance() -> None:
    check_backend(FakeBackend(noise=0.05))


def test_conformance_catches_a_backend_that_raises_instead_of_reporting() -> None:
    class Unavailable(FakeBackend):
        def available(self):
            return super().available().__class__(False, "nothing here")

    with pytest.raises(ConformanceError, match="not available: nothing here"):
        check_backend(Unavailable())

    class WrongShapes(FakeBackend):
        def prepare(self, model, platform, spec):
            prepared = super().prepare(model, platform, spec)
            prepared.output_shapes = [(7,)]
            return prepared

    with pytest.raises(ConformanceError, match=r"shape \(7,\)"):
        check_backend(WrongShapes())


def test_registry_lists_backends_and_rejects_unknown_names() -> None:
    registry = backend_registry({"fake": FakeBackend})
    assert registry.names() == [
        "fake", "litert", "litertbuiltin", "openvino", "ort", "torch", "vela"
    ]  # fmt: skip
    with pytest.raises(UnknownNameError, match="known: fake, litert, litertbuiltin, openvino"):
        registry.get("tvm")


def test_importing_backends_imports_no_runtime() -> None:
    code = (
        "import sys, nnlat.measure.runner, nnlat.measure.backends.registry; "
        "print(sorted(m for m in ('onnxruntime', 'openvino', 'torch', 'ai_edge_litert', "
        "'ethosu', 'tensorflow') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(detect_hardware().usable_cpus < 2, reason="needs 2 CPUs")
@pytest.mark.parametrize("name", ["ort", "openvino", "torch"])
def test_thread_count_reaches_the_runtime(name: str) -> None:
    backend = get_backend(name)
    if not backend.available():
        pytest.skip(backend.available().reason)
    family_model = None
    if backend.runs_zoo_modules:
        from nnlat.zoo import get_family

        family = get_family("nasbench201")
        family_model = family.model(family.canonical["nb201_all_conv3x3"])
    prepared = backend.prepare(
        family_model or load(tiny_model()), backend.platform(2, "fp32"), MeasureSpec()
    )
    try:
        assert prepared.threads_in_use() == 2
    finally:
        prepared.close()


def test_ort_int8_runs_a_quantized_model_close_to_fp32() -> None:
    backend = get_backend("ort")
    graph = load(tiny_model(channels=128))
    inputs = random_inputs(graph)
    outputs = {}
    for dtype in ("fp32", "int8"):
        prepared = backend.prepare(graph, backend.platform(1, dtype), MeasureSpec())
        outputs[dtype] = prepared.run(inputs).outputs[0]
        prepared.close()
    # Same random weights, 8-bit rounding: close, not equal.
    error = np.abs(outputs["int8"] - outputs["fp32"]).mean() / np.abs(outputs["fp32"]).mean()
    assert 0 < error < 0.1


def test_openvino_runs_fp32_not_bf16() -> None:
    backend = get_backend("openvino")
    if not backend.available():
        pytest.skip(backend.available().reason)
    prepared = backend.prepare(load(tiny_model()), backend.platform(1, "fp32"), MeasureSpec())
    try:
        assert str(prepared.compiled.get_property("INFERENCE_PRECISION_HINT")) in (
            "f32",
            "<Type: 'float32'>",
        )
    finally:
        prepared.close()


@pytest.mark.skipif(
    importlib.util.find_spec("onnx2torch") is not None, reason="onnx2torch is installed here"
)
def test_torch_says_what_to_install_for_onnx_models() -> None:
    backend = get_backend("torch")
    with pytest.raises(BackendUnavailableError, match=r"unsupported on this host.*torchvision"):
        backend.prepare(load(tiny_model()), backend.platform(1, "fp32"), MeasureSpec())


def test_torch_fp16_needs_a_gpu() -> None:
    backend = get_backend("torch")
    if detect_hardware().gpu_hardware:
        assert backend.platform(None, "fp16").device == "cuda"
    else:
        from nnlat.platform import UnknownPlatformError

        with pytest.raises(UnknownPlatformError, match="CUDA GPU"):
            backend.platform(None, "fp16")
