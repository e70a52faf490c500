"""The commands that load a model apply the ``NNLAT_*`` limits, as the server does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.testing import tiny_model
from nnlat.testing.records import toy_predictor

runner = CliRunner()


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.onnx"
    onnx.save(tiny_model(), path)  # two nodes: Conv, Relu
    return path


def _refused(result: object, limit: str) -> None:
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    lines = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert f"over the limit {limit}" in lines[0] and "Traceback" not in lines[0]


def test_inspect_refuses_a_model_over_the_configured_node_limit(model: Path) -> None:
    assert runner.invoke(app, ["inspect", str(model)], env={"NNLAT_MAX_NODES": "2"}).exit_code == 0
    result = runner.invoke(app, ["inspect", str(model)], env={"NNLAT_MAX_NODES": "1"})
    _refused(result, "max_nodes=1")
    assert "tiny.onnx" in result.stderr and "NNLAT_MAX_NODES" in result.stderr


def test_limit_variables_match_in_any_case(model: Path) -> None:
    result = runner.invoke(app, ["inspect", str(model)], env={"nnlat_max_tensor_elements": "100"})
    _refused(result, "max_tensor_elements=100")


def test_inspect_refuses_a_model_over_the_configured_size(model: Path) -> None:
    result = runner.invoke(app, ["inspect", str(model)], env={"NNLAT_MAX_MODEL_BYTES": "100"})
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and "over the limit of 100" in line


def test_query_refuses_before_measuring_or_storing(tmp_path: Path, model: Path) -> None:
    env = {"NNLAT_DB_URL": f"sqlite:///{tmp_path / 'db.sqlite'}", "NNLAT_MAX_NODES": "1"}
    result = runner.invoke(app, ["query", str(model), "--max-time", "0.2", "--json"], env=env)
    _refused(result, "max_nodes=1")
    assert result.stdout == ""
    stats = runner.invoke(app, ["db", "stats", "--json"], env=env)
    assert json.loads(stats.stdout)["measurements"] == 0


def test_predict_refuses_a_model_over_the_configured_limit(tmp_path: Path, model: Path) -> None:
    predictor, _ = toy_predictor()
    predictor.save(tmp_path / "toy")
    args = ["predict", str(model), "--predictor", str(tmp_path / "toy")]
    assert runner.invoke(app, args, env={"NNLAT_MAX_NODES": "2"}).exit_code == 0
    _refused(runner.invoke(app, args, env={"NNLAT_MAX_NODES": "1"}), "max_nodes=1")


@pytest.mark.parametrize("command", ["inspect", "serve"])
def test_an_invalid_setting_is_one_line_naming_the_variable(model: Path, command: str) -> None:
    args = ["inspect", str(model)] if command == "inspect" else ["serve", "--port", "1"]
    result = runner.invoke(app, args, env={"NNLAT_MAX_NODES": "-1"})
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ")
    assert line.endswith("NNLAT_MAX_NODES=-1: Input should be greater than 0")


def test_inspect_without_limit_variables_does_not_read_settings(model: Path) -> None:
    """pydantic-settings costs ~80 ms of start-up: not imported when it would say nothing."""
    probe = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from nnlat.cli.main import app\n"
        f"assert CliRunner().invoke(app, ['inspect', {str(model)!r}]).exit_code == 0\n"
        "print('pydantic_settings' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("NNLAT_")}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip().splitlines()[-1] == "False"
