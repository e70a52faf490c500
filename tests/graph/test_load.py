"""Loading and normalisation: sources, shapes, folding, weight stripping, storage form."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

from nnlat.errors import InvalidInputShapeError, NnlatWarning
from nnlat.graph import graph_key, load
from nnlat.testing import tiny_model


def test_sources_agree(tmp_path: Path) -> None:
    model = tiny_model()
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    keys = {graph_key(load(s)).digest for s in (model, path, str(path), path.read_bytes())}
    assert len(keys) == 1


def test_torch_module_source() -> None:
    module = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU())
    graph = load(module, example_shapes=[(1, 3, 32, 32)])
    assert [n.op_type for n in graph.nodes] == ["Conv", "Relu"]
    assert graph_key(graph) == graph_key(load(tiny_model()))


def test_batch_size_reinfers_every_shape() -> None:
    graph = load(tiny_model(), batch_size=8)
    assert graph.inputs[0].shape == (8, 3, 32, 32)
    assert graph.outputs[0].shape == (8, 8, 32, 32)
    assert all(spec.shape[0] == 8 for spec in graph.tensors.values() if spec.name in ("y", "z"))


def test_reloading_storage_form_at_another_batch_size() -> None:
    graph = load(tiny_model(), batch_size=8)
    again = load(graph, batch_size=1)
    assert again.outputs[0].shape == (1, 8, 32, 32)
    assert graph_key(again) == graph_key(load(tiny_model()))


def test_input_shape_override_and_errors() -> None:
    graph = load(tiny_model(), input_shapes={"x": (2, 3, 64, 48)})
    assert graph.outputs[0].shape == (2, 8, 64, 48)
    with pytest.raises(InvalidInputShapeError, match="model's inputs are: x"):
        load(tiny_model(), input_shapes={"image": (1, 3, 8, 8)})
    with pytest.raises(InvalidInputShapeError, match="rank"):
        load(tiny_model(), input_shapes={"x": (1, 3, 8)})
    with pytest.raises(InvalidInputShapeError, match="positive"):
        load(tiny_model(), batch_size=0)


def test_dynamic_dims_get_defaults_and_a_warning() -> None:
    with pytest.warns(NnlatWarning, match="dynamic dimensions"):
        graph = load(tiny_model(dynamic_batch=True))
    assert graph.inputs[0].shape == (1, 3, 32, 32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NnlatWarning)  # a batch size resolves it: no warning
        assert load(tiny_model(dynamic_batch=True), batch_size=4).inputs[0].shape[0] == 4


def test_weights_are_stripped_but_small_constants_kept() -> None:
    stored = onnx.load_from_string(load(tiny_model(channels=32)).onnx_bytes)
    weight = next(t for t in stored.graph.initializer if t.name == "w")
    assert list(weight.dims) == [32, 3, 3, 3]
    assert len(weight.raw_data) == 0 and len(weight.float_data) == 0


def test_shape_chains_are_folded() -> None:
    """x.reshape(x.shape[0], -1) exports as Shape→Gather→Unsqueeze→Concat→Reshape."""

    class Flatten(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x).reshape(x.shape[0], -1)

    graph = load(Flatten(), example_shapes=[(2, 3, 4, 4)])
    assert [n.op_type for n in graph.nodes] == ["Relu", "Reshape"]
    assert graph.outputs[0].shape == (2, 48)


def test_data_propagation_runs_only_where_a_node_yields_values() -> None:
    """Inference skips ONNX's data propagation when nothing could yield values (a
    Reshape to a shape held in the file), and runs it where a Shape does."""
    from nnlat.graph.passes.infer_shapes import _propagation
    from nnlat.limits import Limits

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    target = numpy_helper.from_array(np.array([2, 12], np.int64), "target")
    held = helper.make_graph(
        [helper.make_node("Reshape", ["x", "target"], ["y"])], "g", [x], [y], [target]
    )
    shaped = helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Reshape", ["x", "s"], ["y"]),
        ],
        "g",
        [x],
        [y],
    )
    assert _propagation(helper.make_model(held), Limits()) == "none"
    assert _propagation(helper.make_model(shaped), Limits()) == "bounded"
    for graph in (held, shaped):
        loaded = load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
        assert loaded.outputs[0].shape == ((2, 12) if graph is held else (2, 3, 4))


def test_constant_of_shape_weights_are_folded(light_resnet50: Path) -> None:
    graph = load(light_resnet50)
    ops = {n.op_type for n in graph.nodes}
    assert "ConstantOfShape" not in ops and "Conv" in ops
    assert graph.weights  # the folded weights became data-less initializers


def test_identity_and_dead_nodes_are_removed() -> None:
    nodes = [
        helper.make_node("Identity", ["x"], ["a"]),
        helper.make_node("Relu", ["a"], ["y"]),
        helper.make_node("Sigmoid", ["x"], ["unused"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    loaded = load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    assert [n.op_type for n in loaded.nodes] == ["Relu"]


def test_identity_of_a_small_constant_folds_to_its_value() -> None:
    """Identity is folded without the reference evaluator: the value must be the input's."""
    target = numpy_helper.from_array(np.array([1, -1], np.int64), "target")
    nodes = [
        helper.make_node("Identity", ["target"], ["shared"]),
        helper.make_node("Reshape", ["x", "shared"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[target],
    )
    loaded = load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    assert [n.op_type for n in loaded.nodes] == ["Reshape"]
    assert loaded.outputs[0].shape == (1, 6)
    stored = onnx.load_from_string(loaded.onnx_bytes)
    (shape,) = (t for t in stored.graph.initializer if t.name == loaded.nodes[0].inputs[1])
    assert numpy_helper.to_array(shape).tolist() == [1, -1]


def test_data_propagating_ops_are_those_of_the_onnx_schemas() -> None:
    """The per-operator lookup finds what a scan of every schema version finds."""
    from onnx import defs

    from nnlat.graph.passes.infer_shapes import propagates_data

    schemas = [s for s in defs.get_all_schemas_with_history() if s.domain in ("", "ai.onnx")]
    expected = {s.name for s in schemas if s.has_data_propagation_function} - {"Shape", "Size"}
    assert expected and {s.name for s in schemas if propagates_data(s.name)} == expected
    assert not propagates_data("NoSuchOperator")


def test_nodes_out_of_order_are_sorted() -> None:
    model = tiny_model()
    nodes = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(reversed(nodes))
    assert [n.op_type for n in load(model).nodes] == ["Conv", "Relu"]


def test_graph_exposes_edges_and_topology() -> None:
    graph = load(tiny_model())
    assert graph.successors(0) == (1,) and graph.predecessors(1) == (0,)
    assert [(e.src, e.dst, e.slot) for e in graph.edges] == [(0, 1, 0)]
    conv = graph.nodes[0]
    assert conv.attr("kernel_shape") == (3, 3) and conv.attr("strides") == (1, 1)


def test_constant_weights_feeding_transpose_are_folded_not_compute() -> None:
    w = numpy_helper.from_array(np.zeros((8, 16), np.float32), "w")
    nodes = [
        helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
        helper.make_node("MatMul", ["x", "wt"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[w],
    )
    loaded = load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    assert [n.op_type for n in loaded.nodes] == ["MatMul"]
    assert loaded.outputs[0].shape == (4, 8)


@pytest.mark.slow
def test_torch_export_is_deterministic() -> None:
    """Uninitialised weights must not change the exported graph (no initializer dedup)."""
    from nnlat.zoo import get_family

    family = get_family("mobilenetv3")
    model = family.model(family.canonical["mobilenet_v3_small"])
    keys = {graph_key(model.to_graph()).digest for _ in range(3)}
    assert len(keys) == 1
