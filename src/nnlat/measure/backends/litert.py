"""LiteRT (TensorFlow Lite) on the CPU: fp32 and int8 models, as their files are.

LiteRT runs the original ``.tflite`` file (:attr:`Graph.source_bytes`): its weights and
quantisation choose the kernels, so nothing is generated. The platform's precision must
be the model's: an int8 model (integer convolutions / matrix products) runs on the int8
platform, a float model (dynamic-range or float16 weights included) on fp32.

Two runtimes, because the kernels differ:

* ``litert``: the interpreter as shipped, with its default delegate, XNNPACK, which
  takes the float and int8 operators it supports;
* ``litertbuiltin``: LiteRT's builtin kernels only
  (``OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES``), as on a build without XNNPACK.

The interpreter gets ``num_threads = threads`` (LiteRT's default when None). Only
``invoke()`` is timed; inputs are copied in once, before the first run. The IR describes
image tensors channels-first (:mod:`nnlat.graph.tflite_io`), so rank-4 inputs and outputs are
transposed between the IR's layout and the interpreter's.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from nnlat.graph.cost import graph_cost
from nnlat.graph.ir import Graph
from nnlat.measure.backends.base import (
    Availability,
    BackendUnavailableError,
    RunResult,
    cpu_platform,
    graph_for,
)
from nnlat.measure.types import MeasureSpec
from nnlat.platform import Platform

_MAC_FAMILIES = ("conv", "conv_transpose", "gemm", "matmul")


def model_precision(graph: Graph) -> str:
    """``"int8"`` when the graph's multiply-accumulate operators read integer activations.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing.tflite_models import handmade_tflite
        >>> model_precision(load(handmade_tflite(dtype="int8")))
        'int8'
    """
    for node, cost in zip(
        (owner.nodes[i] for owner, i in graph.walk()), graph_cost(graph).nodes, strict=True
    ):
        if cost.family in _MAC_FAMILIES and node.inputs:
            spec = graph.tensors.get(node.inputs[0])
            if spec is not None and spec.dtype in ("int8", "uint8", "int16"):
                return "int8"
    if graph.inputs and all(s.dtype in ("int8", "uint8") for s in graph.inputs):
        return "int8"  # no MAC operator: an integer model all the same
    return "fp32"


class LiteRtPrepared:
    """A LiteRT interpreter with its tensors allocated, ready to be timed."""

    def __init__(self, interpreter: Any, graph: Graph, threads: int | None) -> None:
        self.interpreter = interpreter
        self.threads = threads
        details = {d["name"]: d for d in interpreter.get_input_details()}
        self._inputs = [
            (details[s.name]["index"], s.name, tuple(int(d) for d in details[s.name]["shape"]))
            for s in graph.inputs
        ]
        self._outputs = [
            (d["index"], spec.shape)
            for d, spec in zip(interpreter.get_output_details(), graph.outputs, strict=True)
        ]
        self._fed: Mapping[str, np.ndarray] | None = None

    def run(self, inputs: Mapping[str, np.ndarray]) -> RunResult:
        """Time one ``invoke()`` and read the outputs.

        Inputs are copied in when a new mapping is given: the runner passes the same one
        every run and the interpreter keeps input tensors between invokes, so runs after
        the first time ``invoke()`` alone, as a user's loop that sets inputs once does
        (copying them in each time would evict the model's data from the cache).
        """
        interpreter = self.interpreter
        if inputs is not self._fed:
            for index, name, shape in self._inputs:
                interpreter.set_tensor(index, _to_interpreter(inputs[name], shape))
            self._fed = inputs
        start = time.perf_counter_ns()
        interpreter.invoke()
        elapsed = time.perf_counter_ns() - start
        outputs = tuple(
            _to_ir(interpreter.get_tensor(index), shape) for index, shape in self._outputs
        )
        return RunResult(elapsed / 1e6, outputs)

    def threads_in_use(self) -> int | None:
        """The ``num_threads`` the interpreter was built with (None: LiteRT's default)."""
        return self.threads

    def close(self) -> None:
        """Drop the interpreter."""
        self.interpreter = None


def _to_interpreter(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if array.ndim == 4 and array.shape != shape:
        return np.ascontiguousarray(array.transpose(0, 2, 3, 1))  # NCHW → NHWC
    return array


def _to_ir(array: np.ndarray, shape: Any) -> np.ndarray:
    if shape is not None and array.ndim == 4 and tuple(array.shape) != tuple(shape):
        return array.transpose(0, 3, 1, 2)  # NHWC → NCHW
    return array


class LiteRtBackend:
    """LiteRT's CPU interpreter, with XNNPACK (``litert``) or builtin kernels only.

    Args:
        xnnpack: apply LiteRT's default delegate (XNNPACK); False registers as
            ``litertbuiltin``.

    Example:
        >>> LiteRtBackend().platform(1, "int8").name.split("-")[1].startswith("litert")
        True
    """

    dtypes = ("fp32", "int8")
    runs_zoo_modules = False
    source_format = "tflite"
    # A small model moves the resident set by a page at most: memory is the heap the
    # interpreter holds, read by the runner as what closing it frees (nnlat.measure.heap).
    heap_memory = True

    def __init__(self, xnnpack: bool = True) -> None:
        self.xnnpack = xnnpack
        self.name = "litert" if xnnpack else "litertbuiltin"

    def available(self) -> Availability:
        """ai-edge-litert is importable."""
        try:
            from ai_edge_litert import interpreter  # noqa: F401
        except ImportError as exc:
            return Availability(False, f"LiteRT is not installed ({exc}): pip install nnlat[edge]")
        return Availability(True)

    def platforms(self) -> list[Platform]:
        """fp32 on 1 thread and on the default threads, int8 on 1 thread."""
        if not self.available():
            return []
        return [self.platform(1, "fp32"), self.platform(None, "fp32"), self.platform(1, "int8")]

    def platform(self, threads: int | None, dtype: str) -> Platform:
        """The CPU platform with ``threads`` interpreter threads and ``dtype``."""
        return cpu_platform(self.name, "ai-edge-litert", self.dtypes, threads, dtype)

    def prepare(self, model: Any, platform: Platform, spec: MeasureSpec) -> LiteRtPrepared:
        """Build the interpreter on the original file and allocate its tensors.

        Raises:
            BackendUnavailableError: not a TFLite model, or one of the other precision.
        """
        from ai_edge_litert.interpreter import Interpreter, OpResolverType

        graph = graph_for(model, spec)
        if graph.source_format != "tflite" or not graph.source_bytes:
            raise BackendUnavailableError(
                f"LiteRT runs .tflite models; this graph came from {graph.source_format} "
                "(pass the .tflite file itself)"
            )
        precision = model_precision(graph)
        if precision != platform.dtype:
            raise BackendUnavailableError(
                f"this model is {precision}: measure it on a {precision} LiteRT platform, "
                f"not {platform.dtype}"
            )
        resolver = (
            OpResolverType.AUTO
            if self.xnnpack
            else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        )
        interpreter = Interpreter(
            model_content=graph.source_bytes,
            num_threads=platform.threads,
            experimental_op_resolver_type=resolver,
        )
        interpreter.allocate_tensors()
        return LiteRtPrepared(interpreter, graph, platform.threads)
