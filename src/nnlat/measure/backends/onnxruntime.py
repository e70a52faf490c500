"""onnxruntime on the CPU: fp32, and int8 by static QDQ quantization.

fp32 runs the user's own ONNX model where nnlat has it, else the graph's storage form
with seeded random weights (:mod:`nnlat.measure.backends.timed_model` says which, and why;
the form is in ``environment["timed"]``). int8 follows onnxruntime's own
recipe: ``quant_pre_process`` (optimisation and shape inference), then
``quantize_static`` to QDQ format — uint8 activations, int8 weights, per-channel, MinMax
calibration over :data:`CALIBRATION_SAMPLES` random input sets — the format its CPU
provider fuses into integer kernels (VNNI / AMX where the CPU has them). Quantization
time is part of the compile time.

Sessions run sequentially with ``intra_op_num_threads = threads`` (the runtime default
when threads is None) and one inter-op thread; with one thread the inference runs on the
caller's thread: the reference platform of nnlat.

Per-node times come from onnxruntime's profiler, in a session of its own
(:func:`profile_model`): profiling slows every run down, so it never touches the timed
session; :mod:`nnlat.measure.node_profile` reads the trace.

onnxruntime is imported inside the methods, so importing this module is cheap.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import json
import logging
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.measure.backends.base import Availability, RunResult, cpu_platform, graph_for
from nnlat.measure.backends.timed_model import NORMAL_FORM, TimedModel, timed_model
from nnlat.measure.inputs import random_inputs
from nnlat.measure.node_profile import trace_node_times
from nnlat.measure.types import MeasureSpec, NodeProfile, NodeTime
from nnlat.platform import Platform

CALIBRATION_SAMPLES = 8
QDQ_MIN_OPSET = 13  # per-channel DequantizeLinear (its axis attribute) needs opset 13


class OrtPrepared:
    """An ``onnxruntime.InferenceSession`` ready to be timed."""

    def __init__(
        self, session: Any, timed: TimedModel | None = None, model_bytes: bytes = b""
    ) -> None:
        self.session = session
        self.model_bytes = model_bytes
        self.threads = session.get_session_options().intra_op_num_threads or None
        self.timed_form = timed.form if timed is not None else NORMAL_FORM
        self._timed = timed
        self._output_names = [o.name for o in session.get_outputs()]

    def run(self, inputs: Mapping[str, np.ndarray]) -> RunResult:
        """One timed ``session.run`` (the first checks a re-declared model's outputs)."""
        feed = dict(inputs)
        start = time.perf_counter_ns()
        outputs = self.session.run(self._output_names, feed)
        elapsed = time.perf_counter_ns() - start
        if self._timed is not None:
            self._timed.check_outputs(self._output_names, outputs)
            self._timed = None  # once is enough: the shapes do not change between runs
        return RunResult(elapsed / 1e6, tuple(outputs))

    def threads_in_use(self) -> int | None:
        """The session's ``intra_op_num_threads`` (None for the runtime default)."""
        threads = self.session.get_session_options().intra_op_num_threads
        return threads or None

    def profile(self, inputs: Mapping[str, np.ndarray], runs: int) -> NodeProfile:
        """Per-node times of ``runs`` profiled runs, in a new session (after :meth:`close`
        too: the model is kept)."""
        return profile_model(self.model_bytes, self.threads, inputs, runs)

    def close(self) -> None:
        """Drop the session."""
        self.session = None


class _RandomCalibration:
    """A CalibrationDataReader over seeded random input sets."""

    def __init__(self, graph: Any, seed: int, samples: int) -> None:
        self._batches: Iterator[dict[str, np.ndarray]] = (
            random_inputs(graph, seed + i) for i in range(samples)
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._batches, None)


class OrtBackend:
    """onnxruntime's CPU execution provider, fp32 or int8 (QDQ).

    Example:
        >>> OrtBackend().platform(1, "fp32").runtime
        'ort'
    """

    name = "ort"
    dtypes = ("fp32", "int8")
    runs_zoo_modules = False

    def available(self) -> Availability:
        """onnxruntime is importable and has its CPU provider."""
        try:
            import onnxruntime
        except ImportError as exc:
            return Availability(
                False, f"onnxruntime is not installed ({exc}): pip install onnxruntime"
            )
        if "CPUExecutionProvider" not in onnxruntime.get_available_providers():
            return Availability(False, "this onnxruntime build has no CPUExecutionProvider")
        return Availability(True)

    def platforms(self) -> list[Platform]:
        """fp32 on 1 thread (the reference), fp32 on the default threads, int8 on 1 thread."""
        if not self.available():
            return []
        return [self.platform(1, "fp32"), self.platform(None, "fp32"), self.platform(1, "int8")]

    def platform(self, threads: int | None, dtype: str) -> Platform:
        """The CPU platform with ``threads`` intra-op threads and ``dtype``."""
        return cpu_platform(self.name, "onnxruntime", self.dtypes, threads, dtype)

    def prepare(self, model: Any, platform: Platform, spec: MeasureSpec) -> OrtPrepared:
        """Pick the model to time, quantize it for int8, and create the session."""
        data, timed = self.model_bytes(model, platform, spec)
        return OrtPrepared(cpu_session(data, platform.threads), timed, data)

    def model_bytes(
        self, model: Any, platform: Platform, spec: MeasureSpec
    ) -> tuple[bytes, TimedModel]:
        """The serialised model a session of ``platform`` runs (quantized for int8)."""
        graph = graph_for(model, spec)
        timed = timed_model(graph, spec.seed)
        proto = timed.proto
        # The onnx package may stamp a newer IR version than this onnxruntime reads; the
        # graphs nnlat writes use nothing IR-specific, so stamping the older one is safe.
        proto.ir_version = min(proto.ir_version, max_ir_version())
        if platform.dtype == "int8":
            data = _quantize(proto, graph, spec.seed)
        else:
            data = proto.SerializeToString()
        return data, timed


def cpu_session(
    data: bytes,
    threads: int | None,
    profile_prefix: str | None = None,
    *,
    optimized: bool = True,
) -> Any:
    """An onnxruntime CPU session of the serialised model ``data``, run sequentially.

    ``threads`` None or 0 lets onnxruntime choose; ``profile_prefix`` turns its profiler
    on; ``optimized=False`` keeps every node as the graph names it (no fusion).
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or 0
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if optimized
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    options.log_severity_level = 3  # errors only: warnings about unused initializers
    if profile_prefix is not None:
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def profile_model(
    data: bytes, threads: int | None, inputs: Mapping[str, np.ndarray], runs: int
) -> NodeProfile:
    """onnxruntime's per-node times of a model: one warm-up run, then ``runs`` profiled.

    Args:
        data: the serialised model (as :meth:`OrtBackend.model_bytes` makes it).
        threads: intra-op threads (None: the runtime's default).
        inputs: its inputs.
        runs: profiled runs; each node's time is its median over them.

    Returns:
        The profile, names and operators as the runtime reports them (no node attributed
        yet: :func:`nnlat.measure.node_profile.attribute`).

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.measure.inputs import materialize_weights
        >>> from nnlat.testing import tiny_model
        >>> graph = load(tiny_model())
        >>> data = materialize_weights(graph.onnx_bytes, 0).SerializeToString()
        >>> profile = profile_model(data, 1, random_inputs(graph, 0), 2)
        >>> profile.runs, profile.total_ms() > 0
        (2, True)
    """
    with tempfile.TemporaryDirectory(prefix="nnlat-profile-") as tmp:
        session = cpu_session(data, threads, str(Path(tmp) / "ort"))
        feed = dict(inputs)
        for _ in range(runs + 1):
            session.run(None, feed)
        trace = Path(session.end_profiling())
        events = json.loads(trace.read_text())
    times = trace_node_times(events, skip_runs=1)
    return NodeProfile(
        runtime="onnxruntime",
        runtime_version=importlib.metadata.version("onnxruntime"),
        runs=runs,
        nodes=tuple(NodeTime(name=name, op=op, ms=ms) for name, op, ms in times),
    )


@functools.cache
def max_ir_version() -> int:
    """The newest ONNX IR version this onnxruntime loads (probed once with an Identity).

    Example:
        >>> max_ir_version() >= 7
        True
    """
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    value = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "probe",
        [value],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    for version in range(onnx.IR_VERSION, 6, -1):
        model.ir_version = version
        try:
            ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception:  # "Unsupported model IR version": try the one before
            continue
        return version
    return 7


@contextlib.contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """Keep onnxruntime.quantization's logging to itself.

    Importing it calls ``logging.basicConfig`` (a handler on the root logger, level
    INFO) and it reports routine decisions ("Axis 1 is out-of-range", ...) with
    ``logging.warning``: raw ``WARNING:root:`` lines amid nnlat's output. The root
    logger's handlers and level are restored, and records below ERROR dropped, meanwhile.
    """
    root = logging.getLogger()
    handlers, level, disabled = list(root.handlers), root.level, root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(disabled)
        root.handlers[:] = handlers
        root.setLevel(level)


def _quantize(proto: Any, graph: Any, seed: int) -> bytes:
    with _quiet_root_logger():
        return _quantize_quietly(proto, graph, seed)


def _quantize_quietly(proto: Any, graph: Any, seed: int) -> bytes:
    from onnx import version_converter
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    opset = next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")), 13)
    if opset < QDQ_MIN_OPSET:
        # quantize_static writes per-channel DequantizeLinear (opset 13) into a model of
        # any opset; an older model becomes invalid unless converted first.
        proto = version_converter.convert_version(proto, QDQ_MIN_OPSET)

    with tempfile.TemporaryDirectory(prefix="nnlat-int8-") as tmp:
        source = Path(tmp) / "fp32.onnx"
        processed = Path(tmp) / "pre.onnx"
        quantized = Path(tmp) / "int8.onnx"
        # Paths, not protos: given a ModelProto, quant_pre_process mishandles its weights.
        source.write_bytes(proto.SerializeToString())
        # Shapes are static after normalisation: symbolic shape inference adds nothing.
        quant_pre_process(source, processed, skip_symbolic_shape=True)
        quantize_static(
            processed,
            quantized,
            _RandomCalibration(graph, seed, CALIBRATION_SAMPLES),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
        return quantized.read_bytes()
