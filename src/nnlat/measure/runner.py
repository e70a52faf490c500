"""``measure(model, platform, spec) → Measurement``: the measurement protocol, start to end.

1. Resolve the platform to a backend of this host (an unknown name is the caller's
   error: :class:`~nnlat.platform.UnknownPlatformError` listing the available ones; a
   backend this host lacks gives an ``unsupported`` result).
2. Normalise the model to the spec's batch size and input shapes, hash it, make its
   inputs (seeded random, or the caller's arrays / ``.npz``).
3. Pin the calling thread to ``threads`` CPUs (the threads a runtime creates during
   preparation inherit it), then **prepare** (convert / quantize / compile) — timed as
   ``compile_ms``.
4. **Warm up**: the first run is the cold run (``cold_ms``); keep running until the
   median of the last 5 runs is within 2 % of the 5 before (and at least
   ``warmup_min_runs`` ran) or ``warmup_max_s`` passed.
5. **Time**: at least ``min_runs`` runs, then stop as soon as the 95 % confidence
   half-width of the median is within ``target_rel_ci`` of the median, or
   ``max_runs`` / ``max_time_s`` is reached. ``min_runs`` are always taken, so a slow
   model can overrun ``max_time_s``.
6. Summarise (:mod:`nnlat.measure.stats`); CV above ``unstable_cv`` marks it unstable.

Peak memory, in bytes, is how much the process's resident set grew at its peak during
preparation and runs: the Linux high-water mark (``VmHWM``, reset through
``/proc/self/clear_refs``) minus the resident size before; where the mark cannot be
reset, the growth of ``ru_maxrss`` if it grew (None otherwise). A backend that sets
``heap_memory = True`` (LiteRT, whose small models move the resident set by a page at
most) gets instead the heap its prepared model holds after the timed runs, read as what
closing it frees (glibc's count, :mod:`nnlat.measure.heap`; the resident set where that
is missing). On a GPU it is the device memory PyTorch allocated
at its peak. The method is recorded in ``environment["memory"]``; the methods'
figures are not comparable, and training reads one per platform.

Energy, in joules per inference, is the host's energy counter (RAPL package domains on a
CPU, NVML on an NVIDIA GPU; :func:`~nnlat.measure.environment.energy_meter`) read
around the timed runs, divided by their number. The counter covers the whole package or
GPU, so it is only meaningful on an otherwise idle host. Without a counter the field is
None and ``energy_note`` says why; ``environment["energy"]`` names the method.

Per-node times (``node_profile``): when ``spec.profile_runs`` is above 0 and the prepared
model has a profiler (onnxruntime's), ``profile_runs`` more runs are profiled after the
timed ones, in a session of their own, outside the memory and energy windows; the
kernels are attributed to the graph's nodes (:mod:`nnlat.measure.node_profile`). A
profiling error leaves the latency as it is and is recorded in ``node_profile_note``.

Any exception from the runtime while preparing or running becomes a ``failed``
Measurement carrying the runtime's message; nothing the runtime raises escapes.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import resource
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.errors import NnlatError
from nnlat.graph.hashing import graph_key
from nnlat.measure.backends.base import Backend, BackendUnavailableError, Prepared, graph_for
from nnlat.measure.backends.registry import BackendFactory, backend_registry
from nnlat.measure.environment import (
    EnergyMeter,
    detect_hardware,
    energy_meter,
    software_versions,
)
from nnlat.measure.heap import heap_in_use
from nnlat.measure.inputs import check_inputs, load_npz, random_inputs
from nnlat.measure.node_profile import attribute
from nnlat.measure.stats import ci_target_met, settled, summarize
from nnlat.measure.types import (
    PROTOCOL_VERSION,
    LatencyStats,
    Measurement,
    MeasureSpec,
    NodeProfile,
    RawSamples,
)
from nnlat.platform import Platform, UnknownPlatformError, parse_platform_name
from nnlat.registry import Registry
from nnlat.zoo.family import ZooModel

MAX_ERROR_CHARS = 4000
UserInputs = Mapping[str, np.ndarray] | str | Path | None


@dataclass(frozen=True)
class Timing:
    """What the timing loop produced: the samples, why it stopped, energy per run (J)."""

    samples: RawSamples
    stop_reason: str
    warmup_settled: bool
    energy_j: float | None = None


def available_platforms(backends: Registry[BackendFactory] | None = None) -> list[Platform]:
    """The platforms this host offers, backend by backend (unavailable backends omitted).

    Args:
        backends: the backend registry; by default the real backends.

    Example:
        >>> names = [p.name for p in available_platforms()]
        >>> any(name.endswith("-fp32-t1") and "-ort" in name for name in names)
        True
    """
    backends = backends or backend_registry()
    found: list[Platform] = []
    for name in backends:
        found.extend(backends.get(name)().platforms())
    return found


def reference_platform(backends: Registry[BackendFactory] | None = None) -> Platform:
    """This host's reference platform: onnxruntime, fp32, one thread (NNLQP's CPU setting).

    Raises:
        UnknownPlatformError: onnxruntime is not available on this host.

    Example:
        >>> reference_platform().name.endswith("-fp32-t1")
        True
    """
    for platform in available_platforms(backends):
        if (platform.runtime, platform.dtype, platform.threads) == ("ort", "fp32", 1):
            return platform
    raise _unknown("no onnxruntime fp32 platform on this host (pip install onnxruntime)", backends)


def _unknown(message: str, backends: Registry[BackendFactory]) -> UnknownPlatformError:
    names = ", ".join(p.name for p in available_platforms(backends)) or "(none)"
    return UnknownPlatformError(f"{message}; platforms available on this host: {names}")


def resolve_platform(
    platform: Platform | str, backends: Registry[BackendFactory] | None = None
) -> tuple[Backend, Platform | None, str]:
    """Find the backend of a platform of this host.

    Args:
        platform: a :class:`Platform` or its name, e.g. ``"epyc-ort1.31-fp32-t1"``.
        backends: the backend registry; by default the real backends.

    Returns:
        ``(backend, platform, name)``; ``platform`` is None when the backend is not
        available on this host (the measurement is then ``unsupported``).

    Raises:
        UnknownPlatformError: the name does not parse, names no known runtime, another
            host, another runtime version, a dtype the runtime lacks, or more threads
            than this host has; the message lists the available platforms.

    Example:
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> reg = backend_registry({"fake": FakeBackend})
        >>> resolve_platform("fake-fake1.0-fp32-t1", reg)[1].threads
        1
    """
    backends = backends or backend_registry()
    name = platform if isinstance(platform, str) else platform.name
    parts = parse_platform_name(name)
    runtime = str(parts["runtime"])
    if runtime not in backends:
        raise _unknown(f"{name!r}: no backend runs {runtime!r}", backends)
    backend = backends.get(runtime)()
    if not backend.available():
        return backend, None, name
    threads = parts["threads"]
    by_name = getattr(backend, "platform_by_name", None)  # backends with many per dtype
    try:
        if by_name is not None:
            resolved = by_name(name)
        else:
            resolved = backend.platform(
                threads if isinstance(threads, int) else None, str(parts["dtype"])
            )
    except UnknownPlatformError as exc:
        raise _unknown(f"{name!r}: {exc}", backends) from None
    if resolved.name != name:
        raise _unknown(
            f"{name!r} is not a platform of this host (it would be {resolved.name})", backends
        )
    usable = detect_hardware().usable_cpus
    if resolved.device == "cpu" and resolved.threads and resolved.threads > usable:
        raise _unknown(
            f"{name!r} asks for {resolved.threads} threads, this host has {usable} CPUs", backends
        )
    return backend, resolved, name


@contextlib.contextmanager
def pinned_cpus(threads: int | None) -> Iterator[list[int] | None]:
    """Pin the calling thread to the first ``threads`` CPUs it may use, then restore.

    Threads created meanwhile (a runtime's pool, made when a session is created) inherit
    the mask and keep it. Yields the CPUs pinned to, or None when nothing was pinned
    (no thread count, more threads than CPUs, or no affinity support).
    """
    if not threads or not hasattr(os, "sched_setaffinity"):
        yield None
        return
    allowed = sorted(os.sched_getaffinity(0))
    if threads > len(allowed):
        yield None
        return
    os.sched_setaffinity(0, allowed[:threads])
    try:
        yield allowed[:threads]
    finally:
        os.sched_setaffinity(0, allowed)


def _status_kib(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


class PeakMemory:
    """Memory of one measurement (see the module docstring).

    Args:
        device: ``cpu`` or ``cuda``.
        heap: on a CPU, the heap the prepared model holds, read as what closing it frees
            (glibc only; the resident set's peak growth elsewhere).

    Example:
        >>> import numpy as np
        >>> memory = PeakMemory("cpu", heap=True)
        >>> memory.start()
        >>> arena = np.ones(1 << 20, dtype=np.uint8)  # what a prepared model holds
        >>> memory.before_close()
        >>> del arena  # the runner closes the prepared model
        >>> memory.after_close()
        >>> memory.method != "heap_freed_on_close" or memory.stop() >= 1 << 20
        True
    """

    def __init__(self, device: str, heap: bool = False) -> None:
        self.device = device
        self.heap = heap
        self.method = "none"
        self._baseline_kib: int | None = None
        self._held_bytes: int | None = None
        self._freed_bytes: int | None = None
        self._collector_was_on = True
        self._maxrss_kib = 0

    def start(self) -> None:
        """Record the baseline and reset the high-water marks."""
        if self.device == "cuda":
            import torch

            torch.cuda.reset_peak_memory_stats()
            self.method = "cuda_max_memory_allocated"
            return
        if self.heap and heap_in_use() is not None:
            self.method = "heap_freed_on_close"
            return
        self._maxrss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            Path("/proc/self/clear_refs").write_text("5")  # "5" resets VmHWM to VmRSS
            self._baseline_kib = _status_kib("VmRSS")
            self.method = "rss_hwm_growth" if self._baseline_kib is not None else "ru_maxrss_growth"
        except OSError:
            self.method = "ru_maxrss_growth"

    # The heap is read around the close, not from before preparing: what a process
    # allocates for good on its first measurement (a runtime's one-time set-up, modules
    # imported on first use) would otherwise count, and the first model of a process
    # read 25-50 % high. The cycle collector is off between the two readings so that
    # only what the close frees is counted (a full collection would also cost ~0.3 s
    # with TensorFlow loaded); the runtime's objects are freed by reference counting.
    def before_close(self) -> None:
        """Read the heap in use: after the timed runs, just before the model is closed."""
        if self.method == "heap_freed_on_close":
            self._collector_was_on = gc.isenabled()
            gc.disable()
            self._held_bytes = heap_in_use()

    def after_close(self) -> None:
        """Read what closing the prepared model freed."""
        if self.method == "heap_freed_on_close" and self._held_bytes is not None:
            self._freed_bytes = self._held_bytes - (heap_in_use() or 0)
            if self._collector_was_on:
                gc.enable()

    def stop(self) -> int | None:
        """Growth in bytes, or None when it cannot be known."""
        if self.method == "cuda_max_memory_allocated":
            import torch

            return int(torch.cuda.max_memory_allocated())
        if self.method == "heap_freed_on_close":
            return None if self._freed_bytes is None else max(0, self._freed_bytes)
        if self.method == "rss_hwm_growth":
            peak = _status_kib("VmHWM")
            if peak is not None and self._baseline_kib is not None:
                return max(0, peak - self._baseline_kib) * 1024
        if self.method == "ru_maxrss_growth":
            grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - self._maxrss_kib
            # No growth: the peak stayed under an older peak and is unknown.
            return grown * 1024 if grown > 0 else None
        return None


def time_runs(
    prepared: Prepared,
    inputs: Mapping[str, np.ndarray],
    spec: MeasureSpec,
    *,
    clock: Callable[[], float] = time.perf_counter,
    meter: EnergyMeter | None = None,
) -> Timing:
    """Warm up, then time runs until the stopping rule fires (module docstring, 4-5).

    Args:
        prepared: the prepared model.
        inputs: its inputs.
        spec: warm-up and stopping parameters.
        clock: seconds, for the time budgets (tests pass a fake clock).
        meter: the host's energy counter, read around the timed runs (not the warm-up).

    Returns:
        The :class:`Timing`; ``samples.warmup_ms[0]`` is the cold run.
    """
    warmup: list[float] = []
    start = clock()
    while True:
        warmup.append(prepared.run(inputs).latency_ms)
        is_settled = settled(warmup[1:])  # the cold run is no part of the steady state
        if len(warmup) >= max(spec.warmup_min_runs, 1) and (
            is_settled or clock() - start >= spec.warmup_max_s or len(warmup) >= spec.max_runs
        ):
            break
    latencies: list[float] = []
    joules_before = meter.read_j() if meter is not None else None
    start = clock()
    next_check = spec.min_runs
    while True:
        latencies.append(prepared.run(inputs).latency_ms)
        n = len(latencies)
        if n >= spec.max_runs:
            reason = "max_runs"
            break
        if n < spec.min_runs:
            continue
        # Re-check the interval every ~5 % more runs: sorting each time would cost more
        # than a small model's inference.
        if n >= next_check:
            if ci_target_met(latencies, spec.target_rel_ci):
                reason = "ci"
                break
            next_check = n + max(1, n // 20)
        if clock() - start >= spec.max_time_s:
            reason = "max_time"
            break
    energy_j = None
    if meter is not None and joules_before is not None:
        energy_j = (meter.read_j() - joules_before) / len(latencies)
    return Timing(
        RawSamples(latencies_ms=tuple(latencies), warmup_ms=tuple(warmup)),
        reason,
        is_settled,
        energy_j,
    )


def _inputs_for(
    graph: Any, spec: MeasureSpec, inputs: UserInputs
) -> tuple[dict[str, np.ndarray], str]:
    if inputs is None:
        return random_inputs(graph, spec.seed), f"random(seed={spec.seed})"
    if isinstance(inputs, str | Path):
        arrays = load_npz(inputs, graph)
    else:
        arrays = check_inputs(inputs, graph)
    digest = hashlib.sha256()
    for name, array in arrays.items():
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return arrays, f"user:{digest.hexdigest()[:12]}"


def _error_text(prefix: str, exc: BaseException) -> str:
    text = f"{prefix}: {type(exc).__name__}: {exc}".strip()
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


def measure(
    model: Any,
    platform: Platform | str,
    spec: MeasureSpec | None = None,
    *,
    inputs: UserInputs = None,
    backends: Registry[BackendFactory] | None = None,
) -> Measurement:
    """Measure the latency of ``model`` on ``platform`` of this host.

    Args:
        model: a :class:`~nnlat.graph.ir.Graph`, a :class:`~nnlat.zoo.family.ZooModel`
            (run from its own PyTorch definition by the torch backend), or anything
            :func:`nnlat.graph.load` accepts.
        platform: a :class:`Platform` or its name (see :func:`available_platforms`).
        spec: how to measure; defaults to ``MeasureSpec()``.
        inputs: arrays by input name, or an ``.npz`` path; by default seeded random.
            User inputs are recorded in ``environment["inputs"]`` by content hash.
        backends: the backend registry; by default the real backends.

    Returns:
        A Measurement: ``ok`` with statistics, ``failed`` with the runtime's message, or
        ``unsupported`` when this host lacks what the platform needs.

    Raises:
        UnknownPlatformError: ``platform`` is not a platform of this host.
        ModelLoadError, InvalidInputShapeError: the model or the spec's shapes are bad.
        InputDataError: the user inputs do not fit the model.

    Example:
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.testing import tiny_model
        >>> reg = backend_registry({"fake": FakeBackend})
        >>> spec = MeasureSpec(max_time_s=0.5)
        >>> m = measure(tiny_model(), "fake-fake1.0-fp32-t1", spec, backends=reg)
        >>> m.status, m.stats.n, m.stop_reason
        ('ok', 20, 'ci')
    """
    spec = spec or MeasureSpec()
    backends = backends or backend_registry()
    backend, resolved, name = resolve_platform(platform, backends)
    graph = graph_for(model, spec)
    base: dict[str, Any] = {
        "graph_hash": graph_key(graph).digest,
        "platform": name,
        "batch_size": spec.batch_size,
        "input_shapes": {s.name: tuple(int(d) for d in s.shape or ()) for s in graph.inputs},
        "protocol_version": PROTOCOL_VERSION,
    }
    if resolved is None:
        reason = backend.available().reason
        return Measurement(**base, status="unsupported", error=reason, created_at=datetime.now(UTC))
    arrays, inputs_label = _inputs_for(graph, spec, inputs)
    hardware = detect_hardware()
    environment = {
        "hardware_fingerprint": hardware.fingerprint,
        "cpu_model": hardware.cpu_model,
        **({"gpu": hardware.gpu_name} if hardware.gpu_name else {}),
        **software_versions(),
        "inputs": inputs_label,
    }
    subject = model if isinstance(model, ZooModel) and backend.runs_zoo_modules else graph
    if getattr(backend, "deterministic", False):
        return _estimate(backend, subject, resolved, spec, {**base, "environment": environment})
    memory = PeakMemory(resolved.device, heap=getattr(backend, "heap_memory", False))
    meter, no_energy = energy_meter(resolved.device)
    environment["energy"] = meter.method if meter is not None else "none"
    with pinned_cpus(resolved.threads if resolved.device == "cpu" else None) as cpus:
        if cpus is not None:
            environment["pinned_cpus"] = ",".join(map(str, cpus))
        memory.start()
        environment["memory"] = memory.method
        outcome = _prepare_and_time(backend, subject, resolved, spec, arrays, meter, memory)
        peak = memory.stop()
        status, error, compile_ms, timing, timed_form, prepared = outcome
        profile, profile_note = None, None
        if timing is not None and prepared is not None and spec.profile_runs > 0:
            profile, profile_note = profile_nodes(prepared, graph, arrays, spec.profile_runs)
    if timed_form is not None:  # which model the runtime ran: the user's, or nnlat's form
        environment["timed"] = timed_form
    common = {**base, "environment": environment, "created_at": datetime.now(UTC)}
    if timing is None:
        return Measurement(**common, status=status, error=error, compile_ms=compile_ms)
    samples = timing.samples
    return Measurement(
        **common,
        status="ok",
        stats=summarize(samples.latencies_ms, spec.unstable_cv),
        compile_ms=compile_ms,
        cold_ms=samples.warmup_ms[0],
        peak_memory_bytes=peak,
        stop_reason=timing.stop_reason,
        warmup_settled=timing.warmup_settled,
        energy_j=timing.energy_j,
        energy_note=None if timing.energy_j is not None else no_energy,
        node_profile=profile,
        node_profile_note=profile_note,
    )


def median_ms(model: Any, platform: Platform | str, spec: MeasureSpec | None = None) -> float:
    """:func:`measure`'s median latency (ms), for callers that need the number or nothing.

    Raises:
        NnlatError: the model did not measure (the runtime's message).
    """
    result = measure(model, platform, spec)
    if result.status != "ok" or result.stats is None:
        raise NnlatError(f"measuring on {platform} failed: {result.error}")
    return result.stats.median_ms


def profile_nodes(
    prepared: Any, graph: Any, inputs: Mapping[str, np.ndarray], runs: int
) -> tuple[NodeProfile | None, str | None]:
    """(profile, None), or (None, why) when ``prepared`` profiles but failed; (None, None)
    for a prepared model without a profiler.

    Args:
        prepared: a prepared model; profiled if it has ``profile(inputs, runs)``.
        graph: the measured graph, whose nodes the kernels are attributed to.
        inputs: the inputs of the timed runs.
        runs: profiled runs.
    """
    profiler = getattr(prepared, "profile", None)
    if profiler is None:
        return None, None
    try:
        profile = profiler(inputs, runs)
        times = [(t.name, t.op, t.ms) for t in profile.nodes]
        return profile.model_copy(update={"nodes": attribute(graph, times)}), None
    except Exception as exc:  # a profile is a bonus: the latency stands without it
        return None, _error_text("profile failed", exc)


def _estimate(
    backend: Backend, subject: Any, platform: Platform, spec: MeasureSpec, common: dict[str, Any]
) -> Measurement:
    """The result of a deterministic estimator (Vela): one exact value, no timing loop.

    Its prepared model holds the estimate (``.estimate``, an NpuEstimate); memory is the
    SRAM it uses. Operators left to the CPU make the result ``unsupported``, naming them.
    Errors of the user's making (a model the estimator rejects) are raised, not stored.
    """
    environment = {**common.pop("environment"), "memory": "npu_sram_used"}
    done = {**common, "environment": environment, "deterministic": True}
    start = time.perf_counter()
    try:
        prepared = backend.prepare(subject, platform, spec)
    except BackendUnavailableError as exc:
        return Measurement(
            **done, status="unsupported", error=str(exc), created_at=datetime.now(UTC)
        )
    except NnlatError:
        raise
    except Exception as exc:  # the estimator's own failure is a result
        return Measurement(
            **done,
            status="failed",
            error=_error_text("estimate failed", exc),
            created_at=datetime.now(UTC),
        )
    compile_ms = (time.perf_counter() - start) * 1e3
    estimate = prepared.estimate  # type: ignore[attr-defined]
    done |= {
        "compile_ms": compile_ms,
        "npu": estimate,
        "peak_memory_bytes": estimate.sram_used_bytes,
        "energy_note": f"{backend.name} estimates no energy",
    }
    if estimate.cpu_operators:
        shown = ", ".join(estimate.cpu_operators[:10])
        more = len(estimate.cpu_operators) - 10
        error = (
            f"{len(estimate.cpu_operators)} of "
            f"{len(estimate.cpu_operators) + estimate.npu_operators} operators fall back to "
            f"the CPU: {shown}{f' and {more} more' if more > 0 else ''}; no latency is given "
            "for a model the NPU cannot take whole (the NPU part is in .npu)"
        )
        return Measurement(**done, status="unsupported", error=error, created_at=datetime.now(UTC))
    latency_ms = prepared.run({}).latency_ms
    return Measurement(
        **done, status="ok", stats=LatencyStats.exact(latency_ms), created_at=datetime.now(UTC)
    )


def _prepare_and_time(
    backend: Backend,
    subject: Any,
    platform: Platform,
    spec: MeasureSpec,
    inputs: Mapping[str, np.ndarray],
    meter: EnergyMeter | None = None,
    memory: PeakMemory | None = None,
) -> tuple[str, str | None, float | None, Timing | None, str | None, Prepared | None]:
    """(status, error, compile_ms, timing, timed form, prepared): runtime exceptions become
    a status. The prepared model is closed already (a profiler makes its own session);
    ``memory`` reads the heap around the close.

    The timed form is the prepared model's ``timed_form`` (which model an ONNX runtime
    ran, :mod:`nnlat.measure.backends.timed_model`), None for backends that do not say.
    """
    start = time.perf_counter()
    try:
        prepared = backend.prepare(subject, platform, spec)
    except BackendUnavailableError as exc:
        return "unsupported", str(exc), None, None, None, None
    except Exception as exc:  # any runtime error is a result: "cannot convert this model"
        return "failed", _error_text("prepare failed", exc), None, None, None, None
    compile_ms = (time.perf_counter() - start) * 1e3
    form = getattr(prepared, "timed_form", None)
    try:
        timing = time_runs(prepared, inputs, spec, meter=meter)
    except Exception as exc:  # out of memory, an unsupported kernel found at run time, ...
        with contextlib.suppress(Exception):
            prepared.close()
        return "failed", _error_text("run failed", exc), compile_ms, None, form, None
    if memory is not None:
        memory.before_close()
    with contextlib.suppress(Exception):
        prepared.close()
    if memory is not None:
        memory.after_close()
    return "ok", None, compile_ms, timing, form, prepared
