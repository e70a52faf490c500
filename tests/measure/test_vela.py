"""The Vela backend: platforms, conformance, Vela's own numbers, CPU fallback, configs."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from nnlat.graph import load
from nnlat.measure.backends.vela import (
    CONFIG_ENV,
    VelaBackend,
    VelaConfigError,
    VelaRejectedError,
    VelaTarget,
    default_config,
    estimate,
)
from nnlat.measure.runner import measure
from nnlat.platform import parse_platform_name
from nnlat.testing import tiny_model
from nnlat.testing.conformance import check_backend
from nnlat.testing.tflite_models import handmade_tflite

pytest.importorskip("ethosu.vela")

U55 = "u55_128.ethos_u55_high_end_embedded.shared_sram"
INT8_ADD = handmade_tflite("ADD", (1, 8, 8, 16), "int8")


def _single(backend: VelaBackend):  # a registry of just this instance, with its config
    from nnlat.registry import Registry

    registry = Registry("backend")
    registry.register("vela", lambda: backend)
    return registry


def test_platforms_cover_every_accelerator_system_and_memory_mode() -> None:
    platforms = VelaBackend().platforms()
    hardware = {str(parse_platform_name(p.name)["hardware"]) for p in platforms}
    accelerators = {h.split(".")[0] for h in hardware}
    assert accelerators == {
        "u55_32", "u55_64", "u55_128", "u55_256", "u65_256", "u65_512",
        "u85_128", "u85_256", "u85_512", "u85_1024", "u85_2048",
    }  # fmt: skip
    assert f"{U55}" in hardware
    assert any(h.startswith("u85_256.ethos_u85_sys_dram_mid.dedicated_sram") for h in hardware)
    # A system configuration of one NPU family is offered with that family only.
    assert not any(h.startswith("u55") and ".ethos_u85" in h for h in hardware)
    import importlib.metadata

    version = ".".join(importlib.metadata.version("ethos-u-vela").split(".")[:2])
    assert all(p.name.endswith(f"-vela{version}-int8") and p.device == "npu" for p in platforms)


def test_conformance() -> None:
    check_backend(
        VelaBackend(
            accelerators=("ethos-u55-128", "ethos-u85-256"),
            system_configs=("Ethos_U55_High_End_Embedded", "Ethos_U85_SYS_DRAM_Mid"),
            memory_modes=("Shared_Sram", "Dedicated_Sram_384KB"),
        )
    )


def _vela_cli(model: Path, out: Path, *extra: str) -> dict[str, str]:
    """Vela's own summary row, from running its command line in a fresh process."""
    argv = [sys.executable, "-m", "ethosu.vela", str(model), "--output-dir", str(out)]
    argv += ["--accelerator-config", "ethos-u55-128", "--config", str(default_config())]
    argv += ["--system-config", "Ethos_U55_High_End_Embedded", "--memory-mode", "Shared_Sram"]
    subprocess.run(argv + list(extra), check=True, capture_output=True)
    summary = next(out.glob("*_summary_*.csv"))
    return next(csv.DictReader(summary.open()))


def test_result_equals_velas_own_summary(tmp_path: Path) -> None:
    model = tmp_path / "add.tflite"
    model.write_bytes(INT8_ADD)
    row = _vela_cli(model, tmp_path / "out")
    result = measure(load(model), f"{U55}-vela{_version()}-int8")
    assert result.status == "ok" and result.deterministic
    assert result.stats is not None and result.stats.n == 1 and result.stats.std_ms == 0
    assert result.stats.median_ms == float(row["inference_time"]) * 1e3
    npu = result.npu
    assert npu is not None
    assert npu.inference_time_s == float(row["inference_time"])
    assert npu.cycles_total == int(row["cycles_total"])
    assert npu.cycles_npu == int(row["cycles_npu"])
    assert npu.cycles_sram_access == int(row["cycles_sram_access"])
    assert npu.cycles_off_chip_flash_access == int(row["cycles_off_chip_flash_access"])
    assert npu.sram_used_bytes == round(float(row["sram_memory_used"]) * 1024)
    assert result.peak_memory_bytes == npu.sram_used_bytes
    assert result.environment["memory"] == "npu_sram_used"
    assert result.energy_j is None and "no energy" in (result.energy_note or "")
    assert [layer.target for layer in npu.layers] == ["NPU"]
    assert npu.cpu_operators == ()


def _version() -> str:
    import importlib.metadata

    return ".".join(importlib.metadata.version("ethos-u-vela").split(".")[:2])


def test_float_model_names_the_operators_left_to_the_cpu() -> None:
    result = measure(load(handmade_tflite("ADD", (1, 8, 8, 16))), f"{U55}-vela{_version()}-int8")
    assert result.status == "unsupported"
    assert result.stats is None  # no number for a model the NPU cannot take whole
    assert "1 of 1 operators fall back to the CPU: Add (out)" in (result.error or "")
    assert result.npu is not None and result.npu.cpu_operators == ("Add (out)",)


def test_onnx_graph_is_unsupported() -> None:
    result = measure(tiny_model(), f"{U55}-vela{_version()}-int8")
    assert result.status == "unsupported"
    assert ".tflite" in (result.error or "")


def test_a_model_vela_rejects_raises(tmp_path: Path) -> None:
    target = VelaTarget(
        "ethos-u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram", (str(default_config()),), ""
    )
    with pytest.raises(VelaRejectedError, match="Vela rejected the model"):
        estimate(INT8_ADD[: len(INT8_ADD) // 2], target)


def _user_config(path: Path, clock: str = "250e6") -> Path:
    import configparser

    default = configparser.ConfigParser()
    default.optionxform = str  # Vela's keys are case-sensitive
    default.read(default_config())
    user = configparser.ConfigParser()
    user.optionxform = str
    user["System_Config.My_Board"] = dict(default["System_Config.Ethos_U55_High_End_Embedded"])
    user["System_Config.My_Board"]["core_clock"] = clock
    with path.open("w") as file:
        user.write(file)
    return path


def test_user_config_adds_platforms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _user_config(tmp_path / "board.ini")
    name = f"u55_128.my_board.shared_sram-vela{_version()}-int8"
    backend = VelaBackend(config=config)
    assert name in [p.name for p in backend.platforms()]
    slow = measure(load(INT8_ADD), name, backends=_single(backend))
    fast = measure(load(INT8_ADD), f"{U55}-vela{_version()}-int8")
    assert slow.status == fast.status == "ok"
    assert slow.npu is not None and slow.npu.core_clock_hz == 250e6
    assert slow.npu.config_sha256 != fast.npu.config_sha256  # type: ignore[union-attr]
    monkeypatch.setenv(CONFIG_ENV, str(config))
    assert name in [p.name for p in VelaBackend().platforms()]


def test_missing_or_malformed_config_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "nowhere.ini"))
    with pytest.raises(VelaConfigError, match=r"NNLAT_VELA_CONFIG=.*nowhere.ini: no such file"):
        VelaBackend().platforms()
    bad = tmp_path / "bad.ini"
    bad.write_text("this is [not an ini\nfile\n")
    with pytest.raises(VelaConfigError, match="malformed") as info:
        VelaBackend(config=bad).platforms()
    assert "\n" not in str(info.value)
    empty = tmp_path / "empty.ini"
    empty.write_text("[Something]\nx = 1\n")
    with pytest.raises(VelaConfigError, match="defines no"):
        VelaBackend(config=empty).platforms()
