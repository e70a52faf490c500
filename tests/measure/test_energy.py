"""Energy counters: RAPL through powercap, wrap-around, and a clear reason when absent."""

from __future__ import annotations

from pathlib import Path

from nnlat.measure.environment import energy_meter


def _package(root: Path, name: str, energy_uj: int, max_uj: int = 1000) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "energy_uj").write_text(f"{energy_uj}\n")
    (folder / "max_energy_range_uj").write_text(f"{max_uj}\n")
    return folder


def test_rapl_sums_packages_and_undoes_wraparound(tmp_path: Path) -> None:
    first = _package(tmp_path, "intel-rapl:0", 900)
    _package(tmp_path, "intel-rapl:1", 100)
    _package(tmp_path, "intel-rapl:0:0", 5)  # a part of package 0: not counted twice
    meter, why = energy_meter("cpu", root=tmp_path)
    assert meter is not None and meter.method == "rapl" and why == ""
    before = meter.read_j()
    (first / "energy_uj").write_text("50\n")  # wrapped past 1000 µJ: +150 µJ
    assert abs(meter.read_j() - before - 150e-6) < 1e-12


def test_no_counter_says_why(tmp_path: Path) -> None:
    meter, why = energy_meter("cpu", root=tmp_path / "missing")
    assert meter is None and "no RAPL" in why
    meter, why = energy_meter("cpu", root=tmp_path)
    assert meter is None and "no RAPL package domain" in why
    meter, why = energy_meter("npu")
    assert meter is None and why
