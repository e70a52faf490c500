"""Hardware descriptors: what a device is, measured on the device before any architecture.

MAPLE (Abbasi et al., CVPRW 2022, §3.3) describes a device by running every primitive
operation of a search space alone and recording hardware counters while it runs; a
regressor then takes (architecture encoding, descriptor) → latency, and adapts to a new
device from three measurements. A :class:`HardwareDescriptor` holds the two parts:

- *operation-level characterisation*: for each primitive workload (a tiny model holding one
  operation of the space at a size the space uses), its latency and the counters the device
  exposes. On an Ethos-U NPU these are Vela's: total, NPU, SRAM, DRAM and off-chip-flash
  access cycles, MACs, MAC utilisation and SRAM used (:func:`characterise_vela`). A CPU's
  counters would come from ``perf`` where the host has a PMU (:func:`pmu_status` says
  whether it does), a GPU's from NVML; where nothing else exists, latency alone
  (:func:`characterise_cpu`).
- *a priori specification*: what the vendor states. For a Vela platform, from Vela's own
  reader of the configuration: MACs per cycle, core clock, per-port bandwidth, burst length,
  latencies and outstanding transactions, and where weights and the arena live
  (:func:`vela_spec`); for a CPU, cores, cache sizes and vector extensions (:func:`cpu_spec`).

Descriptors are plain values that round-trip through JSON (:meth:`HardwareDescriptor.to_json`).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nnlat.measure.backends.vela import VelaBackend, VelaTarget, architecture, estimate
from nnlat.measure.environment import HardwareInfo, detect_hardware
from nnlat.measure.types import MeasureSpec

DESCRIPTOR_VERSION = 1

# Per workload, in this order; cycles are NPU core cycles, latency in seconds.
VELA_COUNTERS = (
    "latency_s",
    "cycles_total",
    "cycles_npu",
    "cycles_sram_access",
    "cycles_dram_access",
    "cycles_off_chip_flash_access",
    "macs",
    "mac_utilisation",
    "sram_used_bytes",
)

_AREAS = ("Sram", "Dram", "OnChipFlash", "OffChipFlash")


@dataclass(frozen=True)
class HardwareDescriptor:
    """One device's descriptor.

    Attributes:
        platform: the platform's name.
        workloads: the primitive workloads' names, in row order of ``counters``.
        counter_names: the counters' names, in column order.
        counters: ``len(workloads) × len(counter_names)`` values, as measured.
        spec: a priori specification, name → value (numbers only; 0/1 for one-hot).
        notes: what could not be measured and why.
    """

    platform: str
    workloads: tuple[str, ...]
    counter_names: tuple[str, ...]
    counters: tuple[tuple[float, ...], ...]
    spec: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def counter(self, workload: str, name: str) -> float:
        """One measured value, e.g. ``counter("conv3x3_c16", "latency_s")``."""
        return self.counters[self.workloads.index(workload)][self.counter_names.index(name)]

    def vector(self, parts: tuple[str, ...] = ("latency", "counters", "spec")) -> np.ndarray:
        """The descriptor as one float vector, positive quantities as ``log1p``.

        Args:
            parts: which parts: ``"latency"`` (per-workload latency, in µs),
                ``"counters"`` (the other per-workload counters), ``"spec"``.

        Returns:
            A 1-D float64 array; the same parts give the same layout for every device of
            the same workloads and counters.
        """
        values: list[float] = []
        table = np.asarray(self.counters, dtype=np.float64)
        if "latency" in parts:
            column = self.counter_names.index("latency_s")
            values += list(np.log1p(table[:, column] * 1e6))
        if "counters" in parts:
            keep = [i for i, n in enumerate(self.counter_names) if n != "latency_s"]
            values += list(np.log1p(np.maximum(table[:, keep], 0.0)).ravel())
        if "spec" in parts:
            values += [math.log1p(max(v, 0.0)) for _, v in sorted(self.spec.items())]
        return np.asarray(values, dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (:meth:`from_json` reads it back)."""
        return {
            "version": DESCRIPTOR_VERSION,
            "platform": self.platform,
            "workloads": list(self.workloads),
            "counter_names": list(self.counter_names),
            "counters": [list(row) for row in self.counters],
            "spec": dict(self.spec),
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HardwareDescriptor:
        """Read :meth:`to_json`'s dict.

        Raises:
            ValueError: written by another descriptor version.
        """
        if data.get("version") != DESCRIPTOR_VERSION:
            raise ValueError(
                f"hardware descriptor version {data.get('version')!r}, "
                f"this nnlat reads {DESCRIPTOR_VERSION}"
            )
        return cls(
            platform=data["platform"],
            workloads=tuple(data["workloads"]),
            counter_names=tuple(data["counter_names"]),
            counters=tuple(tuple(float(v) for v in row) for row in data["counters"]),
            spec=dict(data["spec"]),
            notes=tuple(data["notes"]),
        )


def vela_spec(target: VelaTarget) -> dict[str, float]:
    """The a priori specification of a Vela platform, from Vela's configuration reader.

    Returns:
        ``macs_per_cycle``, ``core_clock_hz``, per AXI port
        (``axi0_``, ``axi1_``): the memory behind it (one-hot), ``bandwidth_bytes_per_s``,
        ``burst_length``, ``read_latency``, ``write_latency``; where constants (weights),
        the arena and its cache live (one-hot over memories) and ``arena_cache_bytes``;
        the NPU family (one-hot ``family_u55/u65/u85``).

    Example:
        >>> backend = VelaBackend()
        >>> name = backend.platform(None, "int8").name
        >>> vela_spec(backend.target(name))["macs_per_cycle"]
        256.0
    """
    from ethosu.vela.tensor import MemArea

    arch = architecture(target)
    spec: dict[str, float] = {
        "macs_per_cycle": float(arch.num_macs_per_cycle * arch.ncores),
        "core_clock_hz": float(arch.core_clock),
    }
    for family in ("u55", "u65", "u85"):
        spec[f"family_{family}"] = float(target.accelerator.startswith(f"ethos-{family}-"))
    ports = {"axi0": arch.axi0_port, "axi1": arch.axi1_port}
    for port, area in ports.items():
        for name in _AREAS:
            spec[f"{port}_is_{name.lower()}"] = float(area == getattr(MemArea, name))
        index = int(area.value) if hasattr(area, "value") else int(area)
        spec[f"{port}_bandwidth_bytes_per_s"] = float(arch.memory_bandwidths_per_second[index])
        spec[f"{port}_burst_length"] = float(arch.memory_burst_length[index])
        spec[f"{port}_read_latency"] = float(arch.memory_latency[index][0])
        spec[f"{port}_write_latency"] = float(arch.memory_latency[index][1])
    placement = {
        "const": arch.const_mem_area,
        "arena": arch.arena_mem_area,
        "cache": arch.cache_mem_area,
    }
    for what, mem_port in placement.items():
        area = ports["axi0" if mem_port.name == "Axi0" else "axi1"]
        for name in _AREAS:
            spec[f"{what}_in_{name.lower()}"] = float(area == getattr(MemArea, name))
    spec["arena_cache_bytes"] = float(min(arch.arena_cache_size, 2**32))
    return spec


def characterise_vela(
    platform: str,
    workloads: Mapping[str, bytes],
    backend: VelaBackend | None = None,
) -> HardwareDescriptor:
    """Estimate every workload with Vela on ``platform``: MAPLE's descriptor of an NPU.

    Args:
        platform: a Vela platform name (``nnlat platforms``).
        workloads: name → int8 ``.tflite`` bytes of each primitive workload.
        backend: the Vela backend (with the user's configuration file); a default one if None.

    Returns:
        The operation-level counters (:data:`VELA_COUNTERS`) and :func:`vela_spec`.

    Raises:
        UnknownPlatformError: not a Vela platform offered.
        VelaRejectedError: Vela refused a workload.
    """
    backend = backend or VelaBackend()
    target = backend.target(platform)
    spec = vela_spec(target)
    rows = []
    for tflite in workloads.values():
        result = estimate(tflite, target)
        macs = float(sum(layer.macs for layer in result.layers))
        cycles = float(result.cycles_total)
        utilisation = macs / (cycles * spec["macs_per_cycle"]) if cycles > 0 else 0.0
        rows.append(
            (
                result.inference_time_s,
                cycles,
                float(result.cycles_npu),
                float(result.cycles_sram_access),
                float(result.cycles_dram_access),
                float(result.cycles_off_chip_flash_access),
                macs,
                utilisation,
                float(result.sram_used_bytes),
            )
        )
    return HardwareDescriptor(
        platform=platform,
        workloads=tuple(workloads),
        counter_names=VELA_COUNTERS,
        counters=tuple(rows),
        spec=spec,
    )


def cpu_spec(hardware: HardwareInfo) -> dict[str, float]:
    """The a priori specification of this host's CPU: cores, cache sizes, vector ISA.

    Example:
        >>> from nnlat.measure.environment import HardwareInfo, detect_hardware
        >>> info = HardwareInfo(
        ...     cpu_model="AMD EPYC", hardware="epyc", physical_cores=2, logical_cores=2,
        ...     usable_cpus=2, cache_bytes={"L2": 1048576}, isa_flags=("avx2",), fingerprint="f")
        >>> spec = cpu_spec(info)
        >>> spec["physical_cores"], spec["cache_l2_bytes"], spec["isa_avx2"], spec["isa_avx512f"]
        (2.0, 1048576.0, 1.0, 0.0)
    """
    spec = {
        "physical_cores": float(hardware.physical_cores),
        "usable_cpus": float(hardware.usable_cpus),
    }
    for level in ("L1d", "L2", "L3"):
        spec[f"cache_{level.lower()}_bytes"] = float(hardware.cache_bytes.get(level, 0))
    for flag in CPU_ISA_FLAGS:
        spec[f"isa_{flag}"] = float(flag in hardware.isa_flags)
    return spec


# The vector extensions a CPU descriptor records (one-hot), those the runtimes' kernels pick.
CPU_ISA_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "fma")


def characterise_cpu(
    platform: str,
    workloads: Mapping[str, bytes],
    measure_s: Callable[[bytes], float] | None = None,
    spec: MeasureSpec | None = None,
) -> HardwareDescriptor:
    """Time every workload on a CPU platform of this host: MAPLE's descriptor of a CPU.

    This VM exposes no PMU (:func:`pmu_status`), so each workload's counters are its
    latency alone: the median of the measurement protocol's runs (one pinned thread for
    a ``-t1`` platform; run it on a quiet core). The specification is :func:`cpu_spec`.

    Args:
        platform: a CPU platform of this host (``nnlat platforms``), e.g. LiteRT int8.
        workloads: name → ``.tflite`` (or ONNX) bytes of each primitive workload.
        measure_s: times one workload in seconds (default: the measurement protocol).
        spec: the protocol of the default ``measure_s`` (the campaign's, to match the
            architectures' measurements: ``nnlat.datasets.CAMPAIGN_SPEC``).

    Raises:
        NnlatError: a workload did not measure.
    """
    measure_s = measure_s or _protocol_seconds(platform, spec)
    rows = tuple((measure_s(model),) for model in workloads.values())
    hardware = detect_hardware()
    return HardwareDescriptor(
        platform=platform,
        workloads=tuple(workloads),
        counter_names=("latency_s",),
        counters=rows,
        spec=cpu_spec(hardware),
        notes=(pmu_status().reason, f"timed on {hardware.cpu_model} ({hardware.fingerprint})"),
    )


def _protocol_seconds(platform: str, spec: MeasureSpec | None) -> Callable[[bytes], float]:
    from nnlat.measure.runner import median_ms

    return lambda model: median_ms(model, platform, spec) / 1e3


@dataclass(frozen=True)
class PmuStatus:
    """Whether CPU hardware counters can be read here, and why not.

    Attributes:
        available: ``perf`` is installed and the kernel exposes a CPU PMU.
        reason: one line: what was found.
    """

    available: bool
    reason: str


def pmu_status(sysfs: Path = Path("/sys/bus/event_source/devices")) -> PmuStatus:
    """Detect a CPU performance-monitoring unit (MAPLE's counters need one).

    A PMU shows as an event source named ``cpu``, ``cpu_core``/``cpu_atom`` (Intel hybrid)
    or ``armv8_*`` under ``sysfs``; virtual machines often expose only ``software`` and
    ``tracepoint``, and then ``perf stat -e cycles`` reports "not supported".

    Example:
        >>> pmu_status(Path("/nonexistent")).available
        False
    """
    perf = shutil.which("perf")
    try:
        sources = sorted(os.listdir(sysfs))
    except OSError:
        return PmuStatus(False, f"no {sysfs}: the kernel exposes no perf event sources")
    hardware = [s for s in sources if s in ("cpu", "cpu_core", "cpu_atom") or s.startswith("armv")]
    if not hardware:
        return PmuStatus(
            False,
            "no CPU PMU: the kernel's perf event sources are "
            f"{', '.join(sources) or 'none'} (typical of a VM); CPU descriptors use latency only",
        )
    if perf is None:
        return PmuStatus(False, f"a PMU ({', '.join(hardware)}) but no perf executable")
    return PmuStatus(True, f"PMU {', '.join(hardware)}; perf at {perf}")


def save_descriptors(descriptors: list[HardwareDescriptor], path: Path) -> None:
    """Write descriptors as one JSON file (a list)."""
    path.write_text(json.dumps([d.to_json() for d in descriptors], indent=1) + "\n")


def load_descriptors(path: Path) -> dict[str, HardwareDescriptor]:
    """Read :func:`save_descriptors`'s file, by platform name."""
    return {d.platform: d for d in map(HardwareDescriptor.from_json, json.loads(path.read_text()))}
