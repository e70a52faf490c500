"""Values of the measurement protocol: what to measure, raw samples, statistics, result.

Bump :data:`PROTOCOL_VERSION` whenever the way a number is produced changes (warm-up,
stopping rule, statistics, input generation): it is part of every cache key, so numbers
from different protocols are never mixed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = 1

Status = Literal["ok", "failed", "unsupported"]


class MeasureSpec(BaseModel):
    """What to measure and how hard to try.

    Attributes:
        batch_size: dimension 0 of every input.
        input_shapes: input name → full shape overrides (fix dynamic dimensions).
        warmup_min_runs: runs always discarded before timing.
        warmup_max_s: stop warming up after this long even if timings have not settled.
        min_runs: timed runs always taken.
        max_runs: stop after this many timed runs.
        max_time_s: stop timing after this long.
        target_rel_ci: stop once the 95 % confidence half-width of the median is within
            this fraction of the median.
        unstable_cv: a coefficient of variation above this marks the result unstable.
        seed: seed of the random inputs and weights.
        profile_runs: after timing, profiled runs of the runtime's per-node profiler
            (onnxruntime's), whose per-node medians are kept in
            ``Measurement.node_profile``; 0 turns the profile off (it then costs nothing).
            One by default, so a profile costs one extra run (training uses each node's
            share of the profiled total, which one run gives well enough).
            A backend without a profiler ignores it.
    """

    model_config = ConfigDict(frozen=True)

    batch_size: int = Field(default=1, ge=1)
    input_shapes: dict[str, tuple[int, ...]] = Field(default_factory=dict)
    warmup_min_runs: int = Field(default=5, ge=0)
    warmup_max_s: float = Field(default=5.0, gt=0)
    min_runs: int = Field(default=20, ge=3)
    max_runs: int = Field(default=2000, ge=3)
    max_time_s: float = Field(default=10.0, gt=0)
    target_rel_ci: float = Field(default=0.01, gt=0)
    unstable_cv: float = Field(default=0.10, gt=0)
    seed: int = 0
    profile_runs: int = Field(default=1, ge=0)


class RawSamples(BaseModel):
    """What a backend's timing loop returns.

    Attributes:
        latencies_ms: timed runs, in order, after warm-up.
        warmup_ms: the discarded warm-up runs, in order (the first is the cold run).
        compile_ms: model transformation time (session creation, compilation).
        peak_memory_bytes: peak resident memory growth during the run, if known.
    """

    model_config = ConfigDict(frozen=True)

    latencies_ms: tuple[float, ...]
    warmup_ms: tuple[float, ...] = ()
    compile_ms: float | None = None
    peak_memory_bytes: int | None = None


class LatencyStats(BaseModel):
    """Summary statistics of the timed runs, in milliseconds.

    Attributes:
        n: number of timed runs.
        median_ci95_ms: half-width of the 95 % confidence interval of the median.
        cv: coefficient of variation (std / mean).
        stable: False when ``cv`` exceeds the spec's ``unstable_cv``.
    """

    model_config = ConfigDict(frozen=True)

    n: int
    mean_ms: float
    median_ms: float
    p90_ms: float
    p99_ms: float
    std_ms: float
    cv: float
    min_ms: float
    max_ms: float
    median_ci95_ms: float
    stable: bool

    @classmethod
    def exact(cls, latency_ms: float) -> LatencyStats:
        """The statistics of one deterministic value (an estimator's, not a timing).

        Example:
            >>> LatencyStats.exact(2.5).n, LatencyStats.exact(2.5).std_ms
            (1, 0.0)
        """
        v = float(latency_ms)
        return cls(
            n=1,
            mean_ms=v,
            median_ms=v,
            p90_ms=v,
            p99_ms=v,
            std_ms=0.0,
            cv=0.0,
            min_ms=v,
            max_ms=v,
            median_ci95_ms=0.0,
            stable=True,
        )


class NpuLayer(BaseModel):
    """One row of Vela's per-layer performance table (``*_per-layer.csv``), as Vela wrote it.

    Attributes:
        original_operator: the TFLite operator, e.g. ``"Conv2D"``.
        operator: the operator Vela lowered it to (``"Passthrough"`` on the CPU).
        target: ``"NPU"`` or ``"CPU"``.
        name: the operator's output tensor name.
        staging_usage_bytes: SRAM staging used by this layer.
        cycles: the layer's total cycles; ``npu_cycles`` and the ``*_access_cycles``
            are its parts.
        macs: multiply-accumulates.
    """

    model_config = ConfigDict(frozen=True)

    original_operator: str
    operator: str
    target: str
    name: str
    staging_usage_bytes: int
    cycles: int
    npu_cycles: int
    sram_access_cycles: int
    dram_access_cycles: int
    on_chip_flash_access_cycles: int
    off_chip_flash_access_cycles: int
    macs: int


class NpuEstimate(BaseModel):
    """What Vela estimates for one model on one Ethos-U configuration (its summary CSV).

    Cycle counts are per inference; memory sizes are in bytes (Vela writes KiB).

    Attributes:
        accelerator: Vela's accelerator configuration, e.g. ``"ethos-u55-128"``.
        system_config, memory_mode: the sections of the Vela configuration file used.
        config_sha256: digest of the configuration file(s), so numbers from edited
            files are never mixed.
        core_clock_hz: the NPU clock of the system configuration.
        inference_time_s: Vela's estimated inference time (cycles_total / clock).
        cycles_*: total cycles and their parts (NPU compute and memory accesses).
        *_used_bytes: memory used per area (SRAM is the working memory; flash holds the
            weights).
        cpu_operators: operators that fall back to the CPU, ``"Op (tensor name)"``;
            when non-empty the estimate covers the NPU part only.
        layers: the per-layer table.
    """

    model_config = ConfigDict(frozen=True)

    accelerator: str
    system_config: str
    memory_mode: str
    config_sha256: str
    core_clock_hz: float
    inference_time_s: float
    cycles_total: int
    cycles_npu: int
    cycles_sram_access: int
    cycles_dram_access: int
    cycles_on_chip_flash_access: int
    cycles_off_chip_flash_access: int
    sram_used_bytes: int
    dram_used_bytes: int
    on_chip_flash_used_bytes: int
    off_chip_flash_used_bytes: int
    npu_operators: int
    cpu_operators: tuple[str, ...]
    layers: tuple[NpuLayer, ...]


class NodeTime(BaseModel):
    """One node of a runtime's per-node profile, as the runtime reported it.

    Attributes:
        name: the node's name in the runtime's optimised graph: the model's own node name,
            or a name the runtime made up for a node it fused or inserted
            (``/2/Relu_output_0_nchwc`` for a Conv+Relu, ``ReorderInput``).
        op: the runtime's operator (``Conv``, ``FusedMatMul``, ``ReorderOutput``).
        ms: the median over the profiled runs of the node's kernel time per run (a node
            run several times per inference, inside a loop, counts its sum).
        node_index: the index of the top-level node of the measured graph (its
            topological order, :attr:`nnlat.graph.ir.Graph.nodes`) this time is
            attributed to, or None when no node could be matched (runtime-inserted
            layout changes, anonymous fusions); see :mod:`nnlat.measure.node_profile`.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    op: str
    ms: float
    node_index: int | None = None


class NodeProfile(BaseModel):
    """A runtime's per-node times of one model: denser supervision than the total.

    The profiled runs are separate from the timed ones (the profiler slows a run down),
    possibly later and by another runtime version; use each node's share of
    :meth:`total_ms` rather than its raw time.

    Attributes:
        runtime: the runtime that profiled (``"onnxruntime"``).
        runtime_version: its version (it may differ from the timed platform's).
        runs: profiled runs the medians are taken over.
        nodes: the kernels in execution order.
    """

    model_config = ConfigDict(frozen=True)

    runtime: str
    runtime_version: str
    runs: int
    nodes: tuple[NodeTime, ...]

    def total_ms(self) -> float:
        """The sum of every node's time.

        Example:
            >>> NodeProfile(runtime="ort", runtime_version="1", runs=3,
            ...             nodes=(NodeTime(name="a", op="Conv", ms=1.5),
            ...                    NodeTime(name="b", op="Relu", ms=0.5))).total_ms()
            2.0
        """
        return float(sum(node.ms for node in self.nodes))


class Measurement(BaseModel):
    """One measured (or failed) latency of a model on a platform.

    The cache key is ``(graph_hash, platform, batch_size, input_shapes, protocol_version)``.
    A failure to convert or run is a result too: ``status`` says which and ``error`` holds
    the runtime's message.

    Three targets: latency (``stats``), memory (``peak_memory_bytes``: the peak working
    memory — resident-set growth on CPUs, SRAM used on an NPU; ``environment["memory"]``
    names the method) and energy (``energy_j`` per inference, or None with
    ``energy_note`` saying why it could not be measured).

    ``deterministic`` marks an estimator's result (Vela): one exact value, ``stats.n``
    is 1, never a distribution. ``npu`` holds Vela's full estimate.

    ``node_profile`` holds the runtime's per-node times (onnxruntime's profiler, taken
    after the timed runs when ``MeasureSpec.profile_runs`` asks for it, or added later
    by ``nnlat dataset profile``); None with ``node_profile_note`` saying why when
    profiling failed, None without a note when nobody asked for it. A failed profile
    never fails the measurement.

    ``stop_reason`` says why timing stopped (``"ci"``: the median's confidence interval
    reached the target; ``"max_runs"`` / ``"max_time"``: a budget ran out) and
    ``warmup_settled`` whether warm-up ended because timings settled rather than on its
    time limit; both are None for results that never reached timing.
    """

    model_config = ConfigDict(frozen=True)

    graph_hash: str
    platform: str
    batch_size: int
    input_shapes: dict[str, tuple[int, ...]]
    protocol_version: int = PROTOCOL_VERSION
    status: Status
    error: str | None = None
    stats: LatencyStats | None = None
    compile_ms: float | None = None
    cold_ms: float | None = None
    peak_memory_bytes: int | None = None
    environment: dict[str, str] = Field(default_factory=dict)
    source: str = "measured"
    created_at: datetime
    stop_reason: Literal["ci", "max_runs", "max_time"] | None = None
    warmup_settled: bool | None = None
    energy_j: float | None = None
    energy_note: str | None = None
    deterministic: bool = False
    npu: NpuEstimate | None = None
    node_profile: NodeProfile | None = None
    node_profile_note: str | None = None
