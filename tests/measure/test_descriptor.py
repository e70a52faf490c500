"""Hardware descriptors: the device pool, the a priori specification, counters and PMU detection."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from nnlat.measure.descriptor import (
    HardwareDescriptor,
    characterise_cpu,
    load_descriptors,
    pmu_status,
    save_descriptors,
    vela_spec,
)
from nnlat.measure.pool import VELA_HELD_OUT, VELA_POOL, pool_config


def descriptor(platform: str = "p", scale: float = 1.0) -> HardwareDescriptor:
    return HardwareDescriptor(
        platform=platform,
        workloads=("a", "b"),
        counter_names=("latency_s", "cycles_total"),
        counters=((1e-6 * scale, 100.0 * scale), (2e-6 * scale, 300.0)),
        spec={"macs_per_cycle": 64.0, "core_clock_hz": 5e8},
        notes=("x",),
    )


def test_a_descriptor_round_trips_through_json(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    save_descriptors([descriptor("p"), descriptor("q", 2.0)], path)
    back = load_descriptors(path)
    assert back["p"] == descriptor("p") and back["q"] == descriptor("q", 2.0)
    assert back["q"].counter("a", "cycles_total") == 200.0


def test_vector_parts_have_a_fixed_layout_and_tell_devices_apart() -> None:
    d, e = descriptor("p"), descriptor("q", 3.0)
    assert d.vector(("latency",)).shape == (2,)
    assert d.vector(("counters",)).shape == (2,)
    assert d.vector(("spec",)).shape == (2,)
    assert d.vector().shape == (6,)
    assert d.vector(()).shape == (0,)
    assert not np.allclose(d.vector(("latency",)), e.vector(("latency",)))
    np.testing.assert_allclose(d.vector(("spec",)), e.vector(("spec",)))


def test_a_descriptor_of_another_version_is_refused() -> None:
    data = descriptor().to_json() | {"version": 0}
    with pytest.raises(ValueError, match="version"):
        HardwareDescriptor.from_json(data)


def test_pmu_detection_says_why_there_are_no_counters(tmp_path: Path) -> None:
    (tmp_path / "software").mkdir()
    (tmp_path / "tracepoint").mkdir()
    status = pmu_status(tmp_path)
    assert not status.available and "no CPU PMU" in status.reason and "software" in status.reason
    (tmp_path / "cpu").mkdir()
    assert pmu_status(tmp_path).available == (shutil.which("perf") is not None)
    assert not pmu_status(tmp_path / "missing").available


def test_the_pool_has_sixteen_valid_distinct_npus_that_differ_in_what_matters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("ethosu.vela")
    from nnlat.measure.backends.vela import VelaBackend

    monkeypatch.setenv("NNLAT_VELA_CONFIG", str(pool_config()))
    backend = VelaBackend()
    offered = {p.name for p in backend.platforms()}
    assert len(set(VELA_POOL)) >= 16 and set(VELA_POOL) <= offered
    assert set(VELA_HELD_OUT) <= offered and not set(VELA_HELD_OUT) & set(VELA_POOL)
    specs = [vela_spec(backend.target(name)) for name in VELA_POOL]
    assert len({s["macs_per_cycle"] for s in specs}) >= 5
    assert len({s["core_clock_hz"] for s in specs}) >= 5
    assert len({s["axi1_bandwidth_bytes_per_s"] for s in specs}) >= 5
    assert len({(s["const_in_sram"], s["arena_in_sram"]) for s in specs}) >= 2


def test_vela_spec_reads_the_configuration_through_vela() -> None:
    pytest.importorskip("ethosu.vela")
    from nnlat.measure.backends.vela import VelaBackend

    backend = VelaBackend()
    name = "u65_512.ethos_u65_high_end.dedicated_sram_256kb-vela5.2-int8"
    if name not in {p.name for p in backend.platforms()}:
        pytest.skip("another Vela version")
    spec = vela_spec(backend.target(name))
    assert spec["macs_per_cycle"] == 512 and spec["core_clock_hz"] == 1e9
    assert spec["axi1_is_dram"] == 1 and spec["axi1_bandwidth_bytes_per_s"] == 3.75e9
    assert spec["arena_in_dram"] == 1 and spec["cache_in_sram"] == 1
    assert spec["arena_cache_bytes"] == 262144 and spec["family_u65"] == 1


@pytest.mark.slow
def test_a_cpu_descriptor_times_each_workload_and_records_the_cpu() -> None:
    # one keyword-spotting primitive timed for real by LiteRT on this CPU, and a fake
    # second one, so the rows keep the workloads' order
    pytest.importorskip("ai_edge_litert")
    from nnlat.measure.environment import detect_hardware
    from nnlat.measure.runner import available_platforms
    from nnlat.studies.maple_spaces import kws_workloads

    names = [p.name for p in available_platforms()]
    platform = next(n for n in names if "-litert2" in n and n.endswith("-int8-t1"))
    workload = kws_workloads()["pw_32_64"]
    timed = characterise_cpu(platform, {"pw_32_64": workload})
    assert timed.counter_names == ("latency_s",)
    assert 0 < timed.counter("pw_32_64", "latency_s") < 1.0
    hardware = detect_hardware()
    assert timed.spec["physical_cores"] == hardware.physical_cores
    assert timed.spec["isa_avx2"] == float("avx2" in hardware.isa_flags)
    assert timed.notes == (
        pmu_status().reason,
        f"timed on {hardware.cpu_model} ({hardware.fingerprint})",
    )
    faked = characterise_cpu(platform, {"b": b"", "a": b""}, measure_s=lambda _: 2e-6)
    assert faked.workloads == ("b", "a")
    assert faked.vector(("latency",)).tolist() == pytest.approx([np.log1p(2.0)] * 2)
