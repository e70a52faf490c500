"""Memory-traffic pricings of the MAPLE study: placement, on-chip moves, methods, a small run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from nnlat.measure.descriptor import VELA_COUNTERS, HardwareDescriptor
from nnlat.studies.maple import MapleConfig, MapleResult, load_table, method_pricing, render, run
from nnlat.studies.maple_traffic import (
    _MEMORIES,
    arch_traffic,
    memory_spec,
    on_chip_latency_ms,
    price,
)
from nnlat.studies.results import Results
from nnlat.zoo.nasbench201 import ALL_CONV3X3, arch_config
from nnlat.zoo.nasbench201_tflite import primitives

CONFIG = arch_config(ALL_CONV3X3)


def descriptor(arena: str, cache_bytes: float) -> HardwareDescriptor:
    """Every primitive bound by 1,000 cycles on the arena's memory (at 1 GHz: 1 µs each)."""
    spec = {"core_clock_hz": 1e9, "arena_cache_bytes": cache_bytes}
    for port, memory, bandwidth in (("axi0", "sram", 16e9), ("axi1", "dram", 4e9)):
        spec |= {f"{port}_is_{m}": float(m == memory) for m in _MEMORIES}
        spec[f"{port}_bandwidth_bytes_per_s"] = bandwidth
    spec |= {f"arena_in_{m}": float(m == arena) for m in _MEMORIES}
    spec |= {f"const_in_{m}": float(m == "dram") for m in _MEMORIES}
    values = dict.fromkeys(VELA_COUNTERS, 0.0) | {"latency_s": 1e-6, "cycles_npu": 200.0}
    values["cycles_dram_access" if arena == "dram" else "cycles_sram_access"] = 1000.0
    names = tuple(primitives(CONFIG))
    row = tuple(values[c] for c in VELA_COUNTERS)
    return HardwareDescriptor("d", names, VELA_COUNTERS, (row,) * len(names), spec)


def test_on_chip_moves_a_dram_arena_to_the_faster_sram_and_leaves_an_sram_arena_alone() -> None:
    dram = descriptor("dram", 2.0**20)
    moved = on_chip_latency_ms(dram, memory_spec(dram), CONFIG)
    # add: no weights, its 1,000 DRAM cycles become 250 at the 4x faster SRAM; npu 200
    assert moved["add_c16"] == pytest.approx(1e-3 * 250 / 1000)
    # a convolution's weights stay in DRAM: 2,368 bytes, 592 of its 1,000 cycles
    assert moved["conv3x3_c16"] == pytest.approx(1e-3 * 592 / 1000)
    assert moved["conv3x3_c64"] == pytest.approx(1e-3)  # 37,120 bytes of weights: all weights
    sram = descriptor("sram", 2.0**20)
    assert set(on_chip_latency_ms(sram, memory_spec(sram), CONFIG).values()) == {1e-3}


def test_placement_costs_more_when_the_live_activations_exceed_the_sram() -> None:
    peak = arch_traffic(ALL_CONV3X3, CONFIG).peak_live_bytes
    descriptors = {"fits": descriptor("dram", 2 * peak), "spills": descriptor("dram", peak / 4)}
    devices = list(descriptors)

    def lut(pricing: str) -> np.ndarray:
        found = price([ALL_CONV3X3], descriptors, devices, pricing, CONFIG)
        return found.costs[:, 0].sum(axis=1)  # per device, the architecture's cost vector

    on_chip, placement, compute = lut("on_chip"), lut("placement"), lut("compute")
    assert placement[0] == pytest.approx(on_chip[0])  # fits: all of it on chip
    assert on_chip[1] < placement[1] < compute[1]  # a quarter fits, the rest stays in DRAM
    traffic = price([ALL_CONV3X3], descriptors, devices, "placement", CONFIG).traffic_ms[0]
    assert traffic[1] > traffic[0]


def test_methods_take_a_pricing_and_unknown_ones_are_refused_with_the_choices() -> None:
    assert method_pricing("maple-lut@on_chip") == ("maple-lut", "on_chip")
    assert method_pricing("maple-ops-traffic")[0] == "maple-ops"
    assert method_pricing("lut-scaled") == ("lut-scaled", "compute")
    with pytest.raises(ValueError, match="placement"):
        method_pricing("maple-ops@somewhere")
    with pytest.raises(ValueError, match="maple-lut"):
        method_pricing("maple@on_chip")  # MAPLE's regressor composes nothing to price


def test_a_small_study_runs_the_traffic_variants_on_rows_of_the_pool(
    tmp_path: Path,
    pool_rows: Callable[[Path, int], Path],
    small_study: Callable[..., MapleConfig],
) -> None:
    table = pool_rows(tmp_path, 44)  # 36 training, 8 test architectures
    devices = load_table(table).devices
    methods = (
        "maple-ops@placement",
        "maple-ops-traffic",
        "maple-lut-traffic",
        "lut-scaled@on_chip",
        "maple-ops@context",
    )
    results = run(small_study(table, devices, methods, steps=5)).rows
    assert {r.method for r in results} == set(methods)
    assert len(results) == len(devices) * len(methods)
    assert all(r.test_archs == 8 and 0 <= r.acc_10 <= 1 for r in results)
    assert np.mean([r.mape for r in results if r.method == "maple-ops-traffic"]) < 0.5
    assert np.mean([r.mape for r in results if r.method == "maple-ops@context"]) < 0.1


def test_the_report_averages_the_dram_arena_devices_apart() -> None:
    devices = ("u55_32.a.shared_sram-vela5.2-int8", "u65_256.b.dedicated_sram_256kb-vela5.2-int8")
    rows = [
        MapleResult(d, "maple-lut-traffic", k, 0, 100, 20, acc, acc, 0.1, 0.9, 0.0, "10x2")
        for d, acc in zip(devices, (0.8, 1.0), strict=True)
        for k in (3, 10)
    ]
    text = render(Results(MapleConfig("", "", devices), rows))
    assert "| **mean** | 0.900 | 0.900 |" in text
    assert "| **mean, arena in DRAM** | 1.000 | 1.000 |" in text
