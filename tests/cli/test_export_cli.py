"""``nnlat export FILE.py::NAME``: a user's own PyTorch module → an ONNX file nnlat reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.graph import graph_key, load

runner = CliRunner()

NET = """
import torch


class Net(torch.nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, width, 3)

    def forward(self, image):
        return torch.relu(self.conv(image))
"""


@pytest.fixture
def net(tmp_path: Path) -> Path:
    (tmp_path / "net.py").write_text(NET)
    return tmp_path / "net.py"


def test_export_writes_a_model_nnlat_loads(net: Path, tmp_path: Path) -> None:
    out = tmp_path / "net.onnx"
    args = ["export", f"{net}::Net", "-o", str(out), "-i", "image=1x3x16x16"]
    result = runner.invoke(app, [*args, "--init-args", '{"width": 4}', "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    graph = load(out)
    assert payload["graph_hash"] == graph_key(graph).digest
    assert [n.op_type for n in graph.nodes] == ["Conv", "Relu"]
    assert graph.inputs[0].name == "image" and graph.inputs[0].shape == (1, 3, 16, 16)
    assert graph.outputs[0].shape == (1, 4, 14, 14)  # --init-args reached the constructor


@pytest.mark.parametrize(
    ("source", "extra", "message"),
    [
        ("{net}::Nt", [], "its nn.Module classes: Net"),
        ("{net}", [], "is not FILE.py::NAME"),
        ("{net}::Net", ["--init-args", "{width: 4}"], "--init-args is not JSON"),
        ("{net}::Net", ["--init-args", '{"depth": 4}'], "pass its arguments with --init-args"),
    ],
)
def test_export_errors_say_what_to_do(
    net: Path, tmp_path: Path, source: str, extra: list[str], message: str
) -> None:
    args = ["export", source.format(net=net), "-o", str(tmp_path / "m.onnx"), "-i", "x=1x3x8x8"]
    result = runner.invoke(app, [*args, *extra])
    assert result.exit_code == 2 and message in result.stderr, result.stderr
    assert not (tmp_path / "m.onnx").exists()
