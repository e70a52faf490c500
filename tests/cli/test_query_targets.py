"""``nnlat query --target latency|memory|energy`` on TFLite models (LiteRT and Vela)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.measure.environment import energy_meter
from nnlat.testing.tflite_models import handmade_tflite

pytest.importorskip("ethosu.vela")
runner = CliRunner()
VELA = ".".join(importlib.metadata.version("ethos-u-vela").split(".")[:2])
NPU = f"u55_128.ethos_u55_high_end_embedded.shared_sram-vela{VELA}-int8"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "add8.tflite").write_bytes(handmade_tflite("ADD", (1, 8, 8, 16), "int8"))
    (tmp_path / "add.tflite").write_bytes(handmade_tflite("ADD", (1, 8, 8, 16)))
    return {"NNLAT_DB_URL": f"sqlite:///{tmp_path / 'db.sqlite'}"}


def test_npu_latency_and_memory(tmp_path: Path, env: dict[str, str]) -> None:
    model = str(tmp_path / "add8.tflite")
    latency = runner.invoke(app, ["query", model, "-p", NPU], env=env)
    assert latency.exit_code == 0, latency.output
    assert "deterministic" in latency.output
    memory = runner.invoke(app, ["query", model, "-p", NPU, "--target", "memory"], env=env)
    assert memory.exit_code == 0, memory.output
    assert "from the database" in memory.output and "npu_sram_used" in memory.output


def test_npu_fallback_and_missing_energy_are_one_clear_answer(
    tmp_path: Path, env: dict[str, str]
) -> None:
    fallback = runner.invoke(app, ["query", str(tmp_path / "add.tflite"), "-p", NPU], env=env)
    assert fallback.exit_code == 1
    assert "fall back to the CPU" in fallback.output and "Traceback" not in fallback.output
    energy = runner.invoke(
        app, ["query", str(tmp_path / "add8.tflite"), "-p", NPU, "--target", "energy"], env=env
    )
    assert energy.exit_code == 1
    assert "energy not measured" in energy.output


def test_cpu_energy_is_measured_or_explained(tmp_path: Path, env: dict[str, str]) -> None:
    from nnlat.measure.backends.litert import LiteRtBackend

    platform = LiteRtBackend().platform(1, "int8").name
    args = ["query", str(tmp_path / "add8.tflite"), "-p", platform, "--target", "energy"]
    result = runner.invoke(app, [*args, "--max-time", "0.3"], env=env)
    meter, why = energy_meter("cpu")
    if meter is None:
        assert result.exit_code == 1 and why in " ".join(result.output.split())
    else:
        assert result.exit_code == 0 and "mJ per inference" in result.output
