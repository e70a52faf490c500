"""``nnlat predict path/to/model.py::ClassName``: latency from source code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.testing.cobra import toy_cobra_model

runner = CliRunner()

SOURCE = """import torch
class Net(torch.nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, c, 3)
    def forward(self, x):
        return torch.relu(self.conv(x))
"""


@pytest.fixture
def code(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "m.py").write_text(SOURCE)
    model_dir = tmp_path / "cobra"
    toy_cobra_model().save(model_dir)
    return tmp_path / "m.py", model_dir


def test_a_class_in_a_file_is_predicted_from_its_source(code: tuple[Path, Path]) -> None:
    source, model_dir = code
    args = ["predict", f"{source}::Net", "-i", "x=1x3x16x16", "--init-args", '{"c": 4}']
    result = runner.invoke(app, [*args, "--predictor", str(model_dir), "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["code"] == f"{source}::Net" and found["latency_ms"] > 0
    assert found["kinds"] == {"Conv2d": 1, "relu": 1}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--init-args", "[1]"], "JSON object"),
        (["--target", "memory"], "latency only"),
        (["-p", "somewhere-else"], "predicts"),
    ],
)
def test_bad_code_requests_get_one_line(
    code: tuple[Path, Path], extra: list[str], message: str
) -> None:
    source, model_dir = code
    args = ["predict", f"{source}::Net", "-i", "x=1x3x16x16", "--predictor", str(model_dir)]
    result = runner.invoke(app, [*args, *extra])
    assert result.exit_code == 2
    assert message in " ".join(result.output.replace("│", " ").split())  # the box wraps lines


def test_an_unknown_class_names_the_classes_there(code: tuple[Path, Path]) -> None:
    source, model_dir = code
    args = ["predict", f"{source}::Nett", "-i", "x=1x3x16x16", "--predictor", str(model_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "Net" in result.output and len(result.output.strip().splitlines()) == 1
