"""The backend protocol: how a runtime turns a model into something to time, and times it.

A backend is a plain object with a ``name`` (the runtime part of platform names:
``"ort"``, ``"openvino"``, ``"torch"``) and four methods::

    available()               → Availability      can this host run it at all, and if not why
    platforms()               → list[Platform]    the platforms it offers on this host
    platform(threads, dtype)  → Platform          one of them, by threads and precision
    prepare(model, platform, spec) → Prepared     convert / compile (the runner times this)

and a :class:`Prepared` model runs one inference per call, timing only the inference:
``run(inputs) → RunResult``. The statistics, warm-up and stopping rule live in the
runner, not in backends, so every runtime is timed the same way.

Errors: a model the runtime cannot convert or run raises whatever the runtime raises
(the runner turns it into a failed :class:`~nnlat.measure.types.Measurement` carrying the
message); something this host lacks raises :class:`BackendUnavailableError` (an
``unsupported`` result).

Every backend passes :func:`nnlat.testing.conformance.check_backend`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import onnx

from nnlat.errors import NnlatError
from nnlat.graph.ir import Graph
from nnlat.platform import Platform, UnknownPlatformError

if TYPE_CHECKING:
    from nnlat.measure.types import MeasureSpec


class BackendUnavailableError(NnlatError):
    """This host cannot run this backend, or not with this model or platform.

    The message says what is missing and how to install it.
    """


@dataclass(frozen=True)
class Availability:
    """Whether a backend can run on this host; falsy with a ``reason`` when it cannot.

    Example:
        >>> bool(Availability(False, "pip install openvino"))
        False
    """

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class RunResult:
    """One inference.

    Attributes:
        latency_ms: wall time of the inference alone (inputs already in place; device
            synchronised), in milliseconds.
        outputs: the model's outputs as numpy arrays, in graph-output order.
    """

    latency_ms: float
    outputs: tuple[np.ndarray, ...]


@runtime_checkable
class Prepared(Protocol):
    """A model in its runtime's executable form, ready to be timed."""

    def run(self, inputs: Mapping[str, np.ndarray]) -> RunResult:
        """Run one inference on ``inputs`` (graph input name → array) and time it."""
        ...

    def threads_in_use(self) -> int | None:
        """The intra-op thread count the runtime reports, or None if it cannot say."""
        ...

    def close(self) -> None:
        """Release the session and any global setting changed by ``prepare``."""
        ...


@runtime_checkable
class Backend(Protocol):
    """A runtime nnlat can time models on.

    Attributes:
        name: the runtime part of platform names (``"ort"``); also its registry name.
        dtypes: the precisions it can run.
        runs_zoo_modules: True when ``prepare`` uses a zoo model's own PyTorch definition,
            so the runner should hand it the :class:`~nnlat.zoo.family.ZooModel` rather
            than the exported graph.

    Optional attributes the runner reads: ``heap_memory`` (True: memory is the heap the
    prepared model holds, not the resident set's growth; :mod:`nnlat.measure.heap`),
    ``deterministic`` (an estimate, not a timing), ``source_format`` (the file format
    the runtime reads).
    """

    name: str
    dtypes: tuple[str, ...]
    runs_zoo_modules: bool

    def available(self) -> Availability:
        """Whether the runtime is installed and usable here (imports it)."""
        ...

    def platforms(self) -> list[Platform]:
        """The platforms offered on this host (empty when unavailable)."""
        ...

    def platform(self, threads: int | None, dtype: str) -> Platform:
        """The platform of this runtime on this host with ``threads`` and ``dtype``."""
        ...

    def prepare(self, model: Any, platform: Platform, spec: MeasureSpec) -> Prepared:
        """Convert / compile ``model`` (a Graph or ZooModel) for ``platform``."""
        ...


def cpu_platform(
    runtime: str, package: str, dtypes: Sequence[str], threads: int | None, dtype: str
) -> Platform:
    """The platform of a CPU runtime on this host's hardware.

    Args:
        runtime: the runtime's short name (``"ort"``, ``"openvino"``).
        package: the distribution whose installed version is the runtime version.
        dtypes: the precisions the runtime runs.
        threads: intra-op threads, or None for the runtime's default.
        dtype: the requested precision.

    Raises:
        UnknownPlatformError: the runtime does not run ``dtype``.

    Example:
        >>> cpu_platform("ort", "onnxruntime", ("fp32",), 1, "fp32").dtype
        'fp32'
    """
    import importlib.metadata

    from nnlat.measure.environment import detect_hardware

    if dtype not in dtypes:
        raise UnknownPlatformError(f"{runtime} runs {', '.join(dtypes)}, not {dtype}")
    return Platform(
        hardware=detect_hardware().hardware,
        runtime=runtime,
        runtime_version=importlib.metadata.version(package),
        dtype=dtype,
        threads=threads,
    )


def graph_for(model: Any, spec: MeasureSpec) -> Graph:
    """The graph of ``model`` with the batch size and input shapes of ``spec``.

    A :class:`Graph` already of those shapes is returned as is; other graphs are
    re-normalised from their stored bytes; a ZooModel is exported; any other source goes
    through :func:`nnlat.graph.load`. An ONNX model the caller gave (a path, bytes or a
    ModelProto) is kept in :attr:`Graph.source_bytes`, so that the ONNX runtimes time it
    rather than the normal form (:mod:`nnlat.measure.backends.timed_model`); a zoo
    model's export is not kept: zoo measurements time the normal form.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.measure.types import MeasureSpec
        >>> from nnlat.testing import tiny_model
        >>> graph_for(load(tiny_model()), MeasureSpec(batch_size=2)).inputs[0].shape
        (2, 3, 32, 32)
        >>> len(graph_for(tiny_model(), MeasureSpec()).source_bytes) > 0
        True
    """
    from nnlat.graph.load import load
    from nnlat.zoo.family import ZooModel

    overrides = {k: tuple(v) for k, v in spec.input_shapes.items()}
    if isinstance(model, Graph):
        if _shapes_match(model.inputs, spec.batch_size, overrides):
            return model
        graph = load(model, batch_size=spec.batch_size, input_shapes=overrides)
        return _with_source(graph, model.source_bytes if model.source_format == "onnx" else b"")
    if isinstance(model, ZooModel):
        model = model.to_onnx()
        return load(model, batch_size=spec.batch_size, input_shapes=overrides)
    graph = load(model, batch_size=spec.batch_size, input_shapes=overrides)
    if graph.source_format != "onnx":
        return graph
    return _with_source(graph, _onnx_source_bytes(model))


def _onnx_source_bytes(model: Any) -> bytes:
    """The serialised ONNX model the caller gave, or b"" for other sources."""
    if isinstance(model, onnx.ModelProto):
        return model.SerializeToString()
    if isinstance(model, bytes | bytearray):
        return bytes(model)
    if isinstance(model, str | Path):
        return Path(model).read_bytes()  # load has checked that it exists and its size
    return b""  # a torch module: its export is nnlat's, like a zoo model's


def _with_source(graph: Graph, source: bytes) -> Graph:
    if graph.source_format != "onnx" or not source:
        return graph
    return dataclasses.replace(graph, source_bytes=source)


def _shapes_match(inputs: Sequence[Any], batch_size: int, overrides: Mapping[str, Any]) -> bool:
    for spec in inputs:
        if spec.name in overrides:
            if tuple(spec.shape or ()) != tuple(overrides[spec.name]):
                return False
        elif not spec.shape or spec.shape[0] != batch_size:
            return False
    return not set(overrides) - {s.name for s in inputs}
