"""Bad input gives a clear NnlatError; weight-free models load."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from nnlat.errors import ExternalDataError, ModelLoadError, ModelTooLargeError
from nnlat.graph import load
from nnlat.testing import tiny_model


def test_not_onnx(tmp_path: Path) -> None:
    path = tmp_path / "notes.onnx"
    path.write_text("this is not a model\n" * 10)
    with pytest.raises(ModelLoadError, match="not an ONNX model"):
        load(path)


def test_truncated_protobuf() -> None:
    data = tiny_model().SerializeToString()
    for cut in (len(data) // 3, len(data) // 2, len(data) - 7):
        with pytest.raises(ModelLoadError):
            load(data[:cut])


def test_empty_or_truncated_file(tmp_path: Path) -> None:
    # Files are parsed from a memory map, which cannot map an empty file.
    path = tmp_path / "m.onnx"
    path.write_bytes(b"")
    with pytest.raises(ModelLoadError, match="empty"):
        load(path)
    data = tiny_model().SerializeToString()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelLoadError):
        load(path)
    path.write_bytes(data)
    assert load(path).nodes[0].op_type == "Conv"


def test_empty_graph() -> None:
    graph = helper.make_graph([], "empty", [], [])
    with pytest.raises(ModelLoadError, match="empty"):
        load(helper.make_model(graph))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="no such file"):
        load(tmp_path / "absent.onnx")


def test_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(tiny_model().SerializeToString())
    with pytest.raises(ModelTooLargeError, match="over the limit"):
        load(path, max_model_bytes=100)
    with pytest.raises(ModelTooLargeError):
        load(path.read_bytes(), max_model_bytes=100)


def _external(model: onnx.ModelProto, location: str) -> onnx.ModelProto:
    weight = model.graph.initializer[0]
    weight.ClearField("raw_data")
    weight.ClearField("float_data")
    weight.data_location = TensorProto.EXTERNAL
    weight.external_data.add(key="location", value=location)
    return model


@pytest.mark.parametrize("location", ["../outside.bin", "/etc/passwd", "a/../../x.bin"])
def test_external_data_outside_folder(tmp_path: Path, location: str) -> None:
    (tmp_path / "outside.bin").write_bytes(b"0" * 1000)
    folder = tmp_path / "model"
    folder.mkdir()
    path = folder / "m.onnx"
    path.write_bytes(_external(tiny_model(), location).SerializeToString())
    with pytest.raises(ExternalDataError, match="outside"):
        load(path)


def test_external_data_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(_external(tiny_model(), "weights.bin").SerializeToString())
    with pytest.raises(ExternalDataError, match="missing"):
        load(path)


def test_external_data_inside_folder_loads_without_reading_weights(tmp_path: Path) -> None:
    (tmp_path / "weights.bin").write_bytes(b"")  # content never read
    path = tmp_path / "m.onnx"
    path.write_bytes(_external(tiny_model(), "weights.bin").SerializeToString())
    assert [n.op_type for n in load(path).nodes] == ["Conv", "Relu"]


def test_weight_free_model_loads() -> None:
    model = tiny_model()
    for weight in model.graph.initializer:
        weight.ClearField("raw_data")
        weight.ClearField("float_data")
    graph = load(model)
    assert graph.weights["w"].shape == (8, 3, 3, 3)


def test_unsupported_source_type() -> None:
    with pytest.raises(ModelLoadError, match="cannot load"):
        load(42)  # type: ignore[arg-type]
