"""``nnlat inspect``: human and JSON output, clean errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.testing import tiny_model

runner = CliRunner()


@pytest.fixture
def model_path(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.onnx"
    onnx.save(tiny_model(dynamic_batch=True), path)
    return path


def test_json_has_the_documented_keys(model_path: Path) -> None:
    result = runner.invoke(app, ["inspect", str(model_path), "--json", "-b", "2"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    for key in (
        "graph_hash",
        "flops",
        "params",
        "bytes",
        "nodes",
        "op_counts",
        "kernels",
        "unknown_ops",
    ):
        assert key in payload
    assert payload["op_counts"] == {"Conv": 1, "Relu": 1}
    assert payload["macs"] == 2 * 8 * 32 * 32 * 27
    assert payload["inputs"][0]["shape"] == [2, 3, 32, 32]
    assert len(payload["graph_hash"]) == 16


def test_input_shape_option(model_path: Path) -> None:
    result = runner.invoke(app, ["inspect", str(model_path), "--json", "-i", "x=1x3x16x16"])
    assert json.loads(result.stdout)["inputs"][0]["shape"] == [1, 3, 16, 16]


def test_dynamic_dim_warning_goes_to_stderr(model_path: Path) -> None:
    result = runner.invoke(app, ["inspect", str(model_path), "--json"])
    assert result.exit_code == 0
    json.loads(result.stdout)  # stdout stays pure JSON
    assert "dynamic dimensions" in result.stderr


def test_human_output(model_path: Path) -> None:
    result = runner.invoke(app, ["inspect", str(model_path), "-b", "1"])
    assert result.exit_code == 0
    assert "graph hash" in result.stdout and "Conv" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-i", "nope=1x3x8x8"], "model's inputs are"),
        (["-b", "0"], "batch size must be positive"),
        (["-i", "x=1x3x8"], "rank"),
    ],
)
def test_bad_shapes_exit_non_zero(model_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["inspect", str(model_path), *args])
    assert result.exit_code == 2
    assert message in result.stderr


def test_bad_file_exits_cleanly_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage" * 50)
    result = subprocess.run(
        [sys.executable, "-m", "nnlat", "inspect", str(bad)], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "error:" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_size_limit_from_environment(model_path: Path) -> None:
    result = runner.invoke(app, ["inspect", str(model_path)], env={"NNLAT_MAX_MODEL_BYTES": "10"})
    assert result.exit_code == 2 and "over the limit" in result.stderr


def test_an_empty_shape_makes_a_scalar_input(tmp_path: Path) -> None:
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Mul", ["x", "sr"], ["y"])],
        "scalar",
        [
            onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 16]),
            # ONNX wants a shape on every graph input: a scalar's is [] (a rank-unknown
            # input fails the checker)
            onnx.helper.make_tensor_value_info("sr", onnx.TensorProto.FLOAT, []),
        ],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
    )
    path = tmp_path / "scalar.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 13)]), path)
    result = runner.invoke(app, ["inspect", str(path), "--json", "-i", "sr="])
    assert result.exit_code == 0, result.output
    shapes = {i["name"]: i["shape"] for i in json.loads(result.stdout)["inputs"]}
    assert shapes == {"x": [1, 16], "sr": []}


@pytest.mark.parametrize("value", ["sr", "=", "sr=1xa"])
def test_malformed_shapes_are_refused(model_path: Path, value: str) -> None:
    result = runner.invoke(app, ["inspect", str(model_path), "-i", value])
    assert result.exit_code == 2
    assert "NAME=DIMS" in result.output


@pytest.mark.parametrize("name", ["loop_if_declared_scalar", "gather_declared_rank"])
def test_a_contradicted_declared_shape_inspects_with_a_warning(name: str, tmp_path: Path) -> None:
    # Strict ONNX checking refuses these (onnxruntime runs them): issue 33.
    from nnlat.testing.hard_models import HARD_MODELS

    path = tmp_path / f"{name}.onnx"
    onnx.save(HARD_MODELS[name](), path)
    result = runner.invoke(app, ["inspect", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["nodes"] > 0
    [line] = [line for line in result.stderr.splitlines() if "declared shape" in line]
    assert "contradicts" in line and "nnlat uses the inferred shapes" in line


def test_shapes_inference_leaves_open_are_observed_and_counted(tmp_path: Path) -> None:
    from nnlat.testing.hard_models import HARD_MODELS

    path = tmp_path / "framed.onnx"
    onnx.save(HARD_MODELS["framed_loop"](), path)
    result = runner.invoke(app, ["inspect", str(path), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["observed_shapes"] == 4  # the loop's output and the three after it
    assert payload["macs"] >= 20 * 200 * 128  # the projection of 20 frames is costed
    human = runner.invoke(app, ["inspect", str(path)])
    assert "observed shapes" in human.stdout
