"""Memory traffic of a NAS-Bench-201 network on an Ethos-U NPU, priced from the device's spec.

The MAPLE study's compositions (``maple-ops``, ``maple-lut``) price an architecture as the
sum of its primitives' latencies, each primitive estimated by Vela *alone*. Alone, a
primitive's input and output are the model's own, and they live in the tensor arena: on a
configuration whose arena is in DRAM (Vela's ``Dedicated_Sram`` memory mode) each
primitive pays a DRAM round trip for its activations, which inside a network Vela keeps in
the SRAM it uses as the arena's cache, as long as the live tensors fit. Per architecture
this module derives what decides that — activation bytes each operator reads and writes,
weight bytes, peak live activation bytes — and prices the primitives in three ways
(:data:`PRICINGS`):

* ``compute``: as Vela estimated them alone (what the study did before);
* ``on_chip``: with each primitive's activation traffic moved from the arena's memory to
  the SRAM, at the SRAM's bandwidth; weights stay where the configuration keeps them;
* ``placement``: ``on_chip`` for the share of the activations that fits the SRAM (the
  arena cache size against the architecture's peak live activation bytes), ``compute``
  for the rest.

The moved traffic is Vela's own number: a primitive's access cycles on the arena's memory
(descriptor counters) less the cycles its weights take there; the bandwidths, clock, memory
mode and cache size come from the descriptor's a priori specification (Vela's
configuration reader). A device whose arena is in SRAM prices the same in all three.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nnlat.measure.descriptor import HardwareDescriptor
from nnlat.zoo.nasbench201 import NUM_NODES, parse_arch
from nnlat.zoo.nasbench201_tflite import CONVERTED_OPS, converted_ops, stage_sizes

PRICINGS = ("compute", "on_chip", "placement")
_MEMORIES = ("sram", "dram", "onchipflash", "offchipflash")
_ACCESS_COUNTER = {
    "sram": "cycles_sram_access",
    "dram": "cycles_dram_access",
    "offchipflash": "cycles_off_chip_flash_access",
}
# Activation tensors an operator reads and writes, in units of its stage's tensor.
_ACTIVATION_TENSORS = {"add": 3.0, "zero_output": 0.0}


@dataclass(frozen=True)
class MemorySpec:
    """Where a device keeps its tensors and how fast it moves them (a priori values).

    Attributes:
        clock_hz: NPU core clock.
        sram_bytes_per_cycle: SRAM bandwidth per core cycle.
        arena: the memory holding the tensor arena (``sram``, ``dram``, …).
        arena_bytes_per_cycle: its bandwidth per core cycle.
        const: the memory holding the weights.
        const_bytes_per_cycle: its bandwidth per core cycle.
        sram_bytes: SRAM the arena may use as its cache (Vela's ``arena_cache_size``;
            infinite where the arena is the SRAM itself).
    """

    clock_hz: float
    sram_bytes_per_cycle: float
    arena: str
    arena_bytes_per_cycle: float
    const: str
    const_bytes_per_cycle: float
    sram_bytes: float


def memory_spec(descriptor: HardwareDescriptor) -> MemorySpec:
    """Read a Vela descriptor's specification (:func:`nnlat.measure.descriptor.vela_spec`).

    Example:
        >>> spec = {"core_clock_hz": 1e9, "arena_cache_bytes": 262144.0}
        >>> for port, memory, bandwidth in (("axi0", "sram", 16e9), ("axi1", "dram", 4e9)):
        ...     spec |= {f"{port}_is_{m}": float(m == memory) for m in _MEMORIES}
        ...     spec[f"{port}_bandwidth_bytes_per_s"] = bandwidth
        >>> for what in ("arena", "const"):
        ...     spec |= {f"{what}_in_{m}": float(m == "dram") for m in _MEMORIES}
        >>> m = memory_spec(HardwareDescriptor("d", (), (), (), spec))
        >>> m.arena, m.arena_bytes_per_cycle, m.sram_bytes_per_cycle, m.sram_bytes
        ('dram', 4.0, 16.0, 262144.0)
    """
    spec = descriptor.spec

    def where(what: str) -> str:
        return next(m for m in _MEMORIES if spec[f"{what}_in_{m}"])

    def bytes_per_cycle(memory: str) -> float:
        port = next(p for p in ("axi0", "axi1") if spec[f"{p}_is_{memory}"])
        return spec[f"{port}_bandwidth_bytes_per_s"] / spec["core_clock_hz"]

    arena, const = where("arena"), where("const")
    return MemorySpec(
        clock_hz=spec["core_clock_hz"],
        sram_bytes_per_cycle=bytes_per_cycle("sram"),
        arena=arena,
        arena_bytes_per_cycle=bytes_per_cycle(arena),
        const=const,
        const_bytes_per_cycle=bytes_per_cycle(const),
        sram_bytes=float("inf") if arena == "sram" else spec["arena_cache_bytes"],
    )


def workload_weight_bytes(config: Mapping[str, Any]) -> dict[str, float]:
    """Weight bytes of each primitive workload: int8 kernels, int32 biases (BN folded).

    Example:
        >>> from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config
        >>> weights = workload_weight_bytes(arch_config(ALL_CONV3X3))
        >>> weights["conv3x3_c16"], weights["add_c16"], weights["head"]
        (2368.0, 0.0, 680.0)
    """

    def conv(kernel: int, c_in: int, c_out: int) -> float:
        return float(kernel * kernel * c_in * c_out + 4 * c_out)

    sizes = [channels for channels, _ in stage_sizes(config)]
    found: dict[str, float] = {}
    for c in sizes:
        found |= {f"{op}_c{c}": 0.0 for op in ("avgpool3x3", "add", "zero")}
        found |= {f"conv1x1_c{c}": conv(1, c, c), f"conv3x3_c{c}": conv(3, c, c)}
    for c_in, c in itertools.pairwise(sizes):
        found[f"reduction_c{c}"] = conv(3, c_in, c) + conv(3, c, c) + conv(1, c_in, c)
    classes = config["num_classes"]
    found["stem"] = conv(3, 3, sizes[0])
    found["head"] = float(sizes[-1] * classes + 4 * classes)
    return found


def on_chip_latency_ms(
    descriptor: HardwareDescriptor, memory: MemorySpec, config: Mapping[str, Any]
) -> dict[str, float]:
    """Each workload's latency with its activation traffic moved to the SRAM.

    Vela prices an operator as the largest of its compute cycles and its access cycles on
    each memory. The arena memory's access cycles, less those of the weights kept there,
    are the activations' (Vela's own number); they move to the SRAM at the SRAM's bandwidth,
    and the latency scales with the new largest term. Unchanged where the arena is the SRAM.

    Returns:
        workload → latency (ms).
    """
    weights = workload_weight_bytes(config)
    found = {}
    for workload in descriptor.workloads:
        latency_ms = descriptor.counter(workload, "latency_s") * 1e3
        if memory.arena == "sram":
            found[workload] = latency_ms
            continue
        cycles = {m: descriptor.counter(workload, c) for m, c in _ACCESS_COUNTER.items()}
        weight_cycles = (
            weights[workload] / memory.const_bytes_per_cycle
            if memory.const == memory.arena
            else 0.0
        )
        moved = max(cycles[memory.arena] - weight_cycles, 0.0)
        before = max(descriptor.counter(workload, "cycles_npu"), *cycles.values())
        cycles[memory.arena] -= moved
        cycles["sram"] += moved * memory.arena_bytes_per_cycle / memory.sram_bytes_per_cycle
        after = max(descriptor.counter(workload, "cycles_npu"), *cycles.values())
        found[workload] = latency_ms * after / before if before > 0 else latency_ms
    return found


@dataclass(frozen=True)
class ArchTraffic:
    """What one architecture's network moves, from its converted operators and shapes.

    Attributes:
        activation_bytes: activation bytes read and written by the cells' operators.
        weight_bytes: the cells' weight bytes (int8 kernels, int32 biases).
        peak_live_bytes: the most activation bytes live at once inside a cell (the largest
            stage's tensors: the cell input, nodes still to be read, the terms of the node
            being computed and its output).
    """

    activation_bytes: float
    weight_bytes: float
    peak_live_bytes: float


def arch_traffic(arch: str, config: Mapping[str, Any]) -> ArchTraffic:
    """The :class:`ArchTraffic` of ``arch`` on ``config``'s skeleton.

    Example:
        >>> from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config
        >>> traffic = arch_traffic(ALL_CONV3X3, arch_config(ALL_CONV3X3))
        >>> traffic.peak_live_bytes / 16384  # input, nodes 1 and 2, three terms, the output
        7.0
    """
    counts = converted_ops(arch)
    tensor, weights = 0.0, 0.0
    for channels, resolution in stage_sizes(config):
        tensor_bytes = channels * resolution * resolution
        for op in CONVERTED_OPS:
            tensor += counts[op] * _ACTIVATION_TENSORS.get(op, 2.0) * tensor_bytes
        kernel_bytes = {"conv1x1": channels * channels, "conv3x3": 9 * channels * channels}
        for op, size in kernel_bytes.items():
            weights += counts[op] * (size + 4 * channels)
    cells = config["cells_per_stage"]
    largest = max(c * r * r for c, r in stage_sizes(config))
    return ArchTraffic(
        activation_bytes=cells * tensor,
        weight_bytes=cells * weights,
        peak_live_bytes=_peak_live_tensors(arch) * largest,
    )


def _peak_live_tensors(arch: str) -> int:
    """The most tensors live at once while one cell runs (live nodes only)."""
    nodes = parse_arch(arch)
    live = {NUM_NODES - 1}
    for target in range(NUM_NODES - 1, 0, -1):
        if target in live:
            live.update(source for op, source in nodes[target - 1] if op != "none")
    last_read = {
        source: target
        for target in sorted(live - {0})
        for op, source in nodes[target - 1]
        if op != "none"
    }
    peak = 1
    for target in sorted(live - {0}):
        waiting = sum(1 for node, last in last_read.items() if node < target and last >= target)
        terms = sum(op not in ("none", "skip_connect") for op, _ in nodes[target - 1])
        peak = max(peak, waiting + terms + 1)
    return peak


def sram_share(traffic: ArchTraffic, memory: MemorySpec, pricing: str) -> float:
    """The share of the activation traffic that runs at the SRAM's bandwidth.

    Raises:
        ValueError: an unknown pricing.

    Example:
        >>> m = MemorySpec(1e9, 16.0, "dram", 4.0, "dram", 4.0, sram_bytes=65536.0)
        >>> t = ArchTraffic(1e6, 1e4, peak_live_bytes=131072.0)
        >>> [sram_share(t, m, p) for p in PRICINGS]
        [0.0, 1.0, 0.5]
    """
    if pricing not in PRICINGS:
        raise ValueError(f"unknown pricing {pricing!r}; known: {', '.join(PRICINGS)}")
    if pricing == "compute":
        return 0.0
    if pricing == "on_chip" or traffic.peak_live_bytes <= memory.sram_bytes:
        return 1.0
    return memory.sram_bytes / traffic.peak_live_bytes


def traffic_ms(traffic: ArchTraffic, memory: MemorySpec, share: float) -> float:
    """Time to move an architecture's traffic: activations split by ``share``, weights.

    Example:
        >>> m = MemorySpec(1e9, 16.0, "dram", 4.0, "dram", 4.0, sram_bytes=65536.0)
        >>> traffic_ms(ArchTraffic(1.6e7, 4e6, 0.0), m, share=1.0)  # 1e6 + 1e6 cycles
        2.0
    """
    activation_cycles = traffic.activation_bytes * (
        share / memory.sram_bytes_per_cycle + (1.0 - share) / memory.arena_bytes_per_cycle
    )
    weight_cycles = traffic.weight_bytes / memory.const_bytes_per_cycle
    return (activation_cycles + weight_cycles) / memory.clock_hz * 1e3


@dataclass(frozen=True)
class Pricing:
    """One pricing of every architecture on every device.

    Attributes:
        costs: ``(devices, archs, ops + 1)`` per-operator costs (ms) then the fixed part's,
            for :func:`nnlat.predictor.maple.priced`.
        traffic_ms: ``(archs, devices)`` :func:`traffic_ms` of each architecture.
    """

    costs: np.ndarray
    traffic_ms: np.ndarray


def primitive_costs(
    descriptor: HardwareDescriptor,
    config: dict[str, Any],
    latency_ms: Mapping[str, float] | None = None,
) -> np.ndarray:
    """The descriptor's cost (ms) of each converted operator, then of the fixed part.

    One entry per :data:`~nnlat.zoo.nasbench201_tflite.CONVERTED_OPS` operator: its
    primitive's latency summed over the stages, times the cells per stage (what one more
    such operator per cell adds); a standalone ReLU is costed as the zero multiply (a
    unary element-wise operator of the same size, which the primitives lack), and so is a
    zero cell output. Last: stem,
    reductions and head, which every architecture has. ``latency_ms`` replaces the
    descriptor's workload latencies (a pricing of them, :func:`price`).

    Example:
        >>> from nnlat.measure.descriptor import HardwareDescriptor
        >>> names = ["stem", "head", "reduction_c32", "reduction_c64"] + [
        ...     f"{op}_c{c}" for op in ("conv1x1", "conv3x3", "avgpool3x3", "add", "zero")
        ...     for c in (16, 32, 64)]
        >>> d = HardwareDescriptor("x", tuple(names), ("latency_s",), ((1e-3,),) * len(names))
        >>> from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config
        >>> primitive_costs(d, arch_config(ALL_CONV3X3)).tolist()
        [15.0, 15.0, 15.0, 15.0, 15.0, 15.0, 15.0, 4.0]
    """

    def lat(name: str) -> float:
        if latency_ms is not None:
            return latency_ms[name]
        return descriptor.counter(name, "latency_s") * 1e3

    sizes = [channels for channels, _ in stage_sizes(config)]
    primitive = {op: op for op in CONVERTED_OPS} | {"relu": "zero", "zero_output": "zero"}
    per_op = [
        config["cells_per_stage"] * sum(lat(f"{primitive[op]}_c{c}") for c in sizes)
        for op in CONVERTED_OPS
    ]
    fixed = lat("stem") + lat("head") + sum(lat(f"reduction_c{c}") for c in sizes[1:])
    return np.array([*per_op, fixed])


def price(
    archs: Sequence[str],
    descriptors: Mapping[str, HardwareDescriptor],
    devices: Sequence[str],
    pricing: str,
    config: Mapping[str, Any],
) -> Pricing:
    """Price ``archs`` on ``devices``: costs mixed between alone and on-chip by SRAM share.

    Example:
        >>> from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config
        >>> price([], {}, [], "on_chip", arch_config(ALL_CONV3X3)).costs.shape
        (0, 0, 8)
    """
    traffic = [arch_traffic(a, config) for a in archs]
    costs = np.zeros((len(devices), len(archs), len(CONVERTED_OPS) + 1))
    moved = np.zeros((len(archs), len(devices)))
    for d, device in enumerate(devices):
        descriptor = descriptors[device]
        memory = memory_spec(descriptor)
        alone = primitive_costs(descriptor, dict(config))
        on_chip = primitive_costs(
            descriptor, dict(config), on_chip_latency_ms(descriptor, memory, config)
        )
        for i, t in enumerate(traffic):
            share = sram_share(t, memory, pricing)
            costs[d, i] = (1.0 - share) * alone + share * on_chip
            moved[i, d] = traffic_ms(t, memory, share)
    return Pricing(costs, moved)
