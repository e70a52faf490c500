"""OpenVINO on the CPU, fp32 (the ``openvino`` wheel: ``pip install 'nnlat[openvino]'``).

The user's own ONNX model where nnlat has it, else the storage form with seeded random
weights (:mod:`nnlat.measure.backends.timed_model`), is read by OpenVINO's ONNX frontend,
reshaped to the input shapes asked for (OpenVINO's own ``Model.reshape``) and compiled
for the ``CPU`` device with ``INFERENCE_NUM_THREADS = threads``, one stream and the
latency hint. ``INFERENCE_PRECISION_HINT`` is pinned to ``f32``: on CPUs with
AVX512-BF16 or AMX OpenVINO otherwise silently runs "fp32" models in bfloat16.

openvino is imported inside the methods, so importing this module is cheap.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.measure.backends.base import Availability, RunResult, cpu_platform, graph_for
from nnlat.measure.backends.timed_model import NORMAL_FORM, timed_model
from nnlat.measure.types import MeasureSpec
from nnlat.platform import Platform


class OpenVinoPrepared:
    """A compiled OpenVINO model and one infer request, ready to be timed."""

    def __init__(self, compiled: Any, timed_form: str = NORMAL_FORM) -> None:
        self.compiled = compiled
        self.timed_form = timed_form
        self.request = compiled.create_infer_request()
        self._outputs = list(compiled.outputs)

    def run(self, inputs: Mapping[str, np.ndarray]) -> RunResult:
        """One timed synchronous ``infer``."""
        feed = dict(inputs)
        start = time.perf_counter_ns()
        # share_inputs: no copy of the inputs into OpenVINO tensors inside the timing.
        result = self.request.infer(feed, share_inputs=True)
        elapsed = time.perf_counter_ns() - start
        return RunResult(elapsed / 1e6, tuple(np.asarray(result[o]) for o in self._outputs))

    def threads_in_use(self) -> int | None:
        """The compiled model's ``INFERENCE_NUM_THREADS``."""
        return int(self.compiled.get_property("INFERENCE_NUM_THREADS")) or None

    def close(self) -> None:
        """Drop the request and the compiled model."""
        self.request = None
        self.compiled = None


class OpenVinoBackend:
    """OpenVINO's CPU plugin, fp32.

    Example:
        >>> OpenVinoBackend().name
        'openvino'
    """

    name = "openvino"
    dtypes = ("fp32",)
    runs_zoo_modules = False

    def available(self) -> Availability:
        """openvino is importable and sees a CPU device."""
        try:
            import openvino
        except ImportError as exc:
            return Availability(
                False, f"openvino is not installed ({exc}): pip install 'nnlat[openvino]'"
            )
        core = openvino.Core()
        if "CPU" not in core.available_devices:
            return Availability(False, "OpenVINO sees no CPU device on this host")
        # Loads the CPU plugin now, so that the first measurement's peak memory does not
        # include loading the library.
        core.get_property("CPU", "FULL_DEVICE_NAME")
        return Availability(True)

    def platforms(self) -> list[Platform]:
        """fp32 on 1 thread and on the default threads."""
        if not self.available():
            return []
        return [self.platform(1, "fp32"), self.platform(None, "fp32")]

    def platform(self, threads: int | None, dtype: str) -> Platform:
        """The CPU platform with ``threads`` inference threads."""
        return cpu_platform(self.name, "openvino", self.dtypes, threads, dtype)

    def prepare(self, model: Any, platform: Platform, spec: MeasureSpec) -> OpenVinoPrepared:
        """Materialise weights, read the ONNX model and compile it for the CPU."""
        import openvino

        graph = graph_for(model, spec)
        timed = timed_model(graph, spec.seed)
        config: dict[str, Any] = {
            "PERFORMANCE_HINT": "LATENCY",
            "NUM_STREAMS": 1,
            "INFERENCE_PRECISION_HINT": "f32",
        }
        if platform.threads:
            config["INFERENCE_NUM_THREADS"] = platform.threads
        core = openvino.Core()
        with tempfile.TemporaryDirectory(prefix="nnlat-ov-") as tmp:
            path = Path(tmp) / "model.onnx"
            path.write_bytes(timed.proto.SerializeToString())
            ov_model = core.read_model(str(path))
        if timed.form != NORMAL_FORM:  # the user's model may have dynamic dimensions
            ov_model.reshape({s.name: list(s.shape or ()) for s in graph.inputs})
        compiled = core.compile_model(ov_model, "CPU", config)
        return OpenVinoPrepared(compiled, timed.form)
