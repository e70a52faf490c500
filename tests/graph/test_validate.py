"""Only valid models within the limits load (issue 29): each refusal names its reason."""

from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from nnlat.errors import ExternalDataError, InvalidModelError, LimitExceededError, NnlatWarning
from nnlat.graph import load
from nnlat.limits import Limits
from nnlat.testing import tiny_model


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _const(name: str, value: int) -> onnx.NodeProto:
    tensor = helper.make_tensor(name, TensorProto.INT64, [], [value])
    return helper.make_node("Constant", [], [name], value=tensor)


def _conv_with(name: str, value) -> onnx.ModelProto:
    model = tiny_model()
    conv = model.graph.node[0]
    for attr in list(conv.attribute):
        if attr.name == name:
            conv.attribute.remove(attr)
    conv.attribute.append(helper.make_attribute(name, value))
    return model


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("kernel_shape", [1 << 62, 3]),
        ("kernel_shape", [0, 3]),
        ("strides", [0, 1]),
        ("dilations", [-1, 1]),
        ("pads", [-3, 0, 0, 0]),
        ("group", 0),
    ],
)
def test_absurd_conv_attributes_are_refused(name: str, value) -> None:
    with pytest.raises(InvalidModelError, match=name):
        load(_conv_with(name, value))


def test_negative_hidden_size_is_refused() -> None:
    w = helper.make_tensor("W", TensorProto.FLOAT, [1, 16, 3], [0.0] * 48)
    r = helper.make_tensor("R", TensorProto.FLOAT, [1, 16, 4], [0.0] * 64)
    model = _model(
        [helper.make_node("LSTM", ["x", "W", "R"], ["y"], hidden_size=-1)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 1, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [w, r],
    )
    with pytest.raises(InvalidModelError, match="hidden_size=-1"):
        load(model)


def test_unknown_dtype_is_refused_by_name() -> None:
    model = tiny_model()
    model.graph.input[0].type.tensor_type.elem_type = 41
    with pytest.raises(InvalidModelError, match="element type 41"):
        load(model.SerializeToString())


def test_the_onnx_checker_runs_with_shape_checks() -> None:
    # Add of [2, 3] and [4]: parses, but the shapes cannot broadcast.
    model = _model(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [4]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    with pytest.raises(InvalidModelError, match="checker"):
        load(model)


def _relu_declared(shape: list, *, bad_add: bool = False) -> onnx.ModelProto:
    """Relu of a [2, 3] input whose output ``r`` is declared ``shape``."""
    nodes = [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Neg", ["r"], ["y"])]
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])]
    if bad_add:  # and a real fault: [2, 3] + [4] cannot broadcast
        nodes.append(helper.make_node("Add", ["a", "b"], ["z"]))
        inputs.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, [4]))
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if bad_add:
        outputs.append(helper.make_tensor_value_info("z", TensorProto.FLOAT, None))
    graph = helper.make_graph(
        nodes,
        "g",
        inputs,
        outputs,
        value_info=[helper.make_tensor_value_info("r", TensorProto.FLOAT, shape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("shape", [[6], [2, 4], ["n"]])
def test_a_declared_shape_inference_contradicts_is_ignored_with_a_warning(shape) -> None:
    # onnxruntime runs such a model (merging the declaration leniently): so does nnlat.
    with pytest.warns(NnlatWarning, match=r"ignored 1 declared shape\(s\).*\br declared") as seen:
        graph = load(_relu_declared(shape))
    assert len(seen) == 1
    assert graph.tensors["r"].shape == (2, 3)


def test_a_declaration_that_agrees_is_no_warning(recwarn) -> None:
    load(_relu_declared([2, "n"]))
    assert not [w for w in recwarn if issubclass(w.category, NnlatWarning)]


def test_a_real_shape_fault_is_refused_even_beside_a_contradicted_declaration() -> None:
    with pytest.raises(InvalidModelError, match="checker"):
        load(_relu_declared([6], bad_add=True))


def test_a_model_output_its_graph_contradicts_is_still_refused() -> None:
    # The outputs are the model's interface: [2, 3] declared [6] is a fault, not bookkeeping.
    model = _relu_declared([2, 3])
    model.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", TensorProto.FLOAT, [6]))
    with pytest.raises(InvalidModelError, match="checker"):
        load(model)


@pytest.mark.parametrize("declared", [[], [2, -1]])
def test_a_model_output_declared_unknown_the_wrong_way_is_ignored(declared) -> None:
    # PaddleOCR exports declare a scalar, or -1, for outputs they do not know; onnxruntime
    # runs them, and so does nnlat (with the usual warning).
    model = _relu_declared([2, 3])
    model.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", TensorProto.FLOAT, declared))
    with pytest.warns(NnlatWarning, match=r"\by declared"):
        graph = load(model)
    assert graph.tensors[graph.outputs[0].name].shape == (2, 3)


def test_a_nul_byte_in_an_external_data_path_is_a_clean_error(tmp_path) -> None:
    model = tiny_model()
    weight = model.graph.initializer[0]
    weight.data_location = TensorProto.EXTERNAL
    weight.ClearField("float_data")
    weight.ClearField("raw_data")
    weight.external_data.add(key="location", value="w\x00.bin")
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    with pytest.raises(ExternalDataError, match="not a usable file name"):
        load(path)


def range_bomb(size: int) -> onnx.ModelProto:
    return _model(
        [
            _const("s", 0),
            _const("l", size),
            _const("d", 1),
            helper.make_node("Range", ["s", "l", "d"], ["r"]),
            helper.make_node("Add", ["r", "x"], ["y"]),
        ],
        [helper.make_tensor_value_info("x", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, ["n"])],
    )


def test_the_range_bomb_is_refused_with_the_limit() -> None:
    with pytest.raises(LimitExceededError, match=r"max_tensor_elements=68719476736 \(raise"):
        load(range_bomb(1 << 40))
    with pytest.raises(LimitExceededError, match="max_value_elements=1048576"):
        load(range_bomb(1 << 26))
    assert load(range_bomb(1 << 12)) is not None  # a real position-id Range
    with pytest.raises(LimitExceededError, match="max_value_elements=1024"):
        load(range_bomb(1 << 12), limits=Limits(max_value_elements=1024))


def test_propagation_of_a_size_known_only_late_is_capped() -> None:
    # Shape(x) * 2**38 → Expand → Cast: the size is only known during propagation.
    k = helper.make_tensor("k", TensorProto.INT64, [1], [1 << 38])
    one = helper.make_tensor("one", TensorProto.INT64, [1], [1])
    model = _model(
        [
            helper.make_node("Constant", [], ["k"], value=k),
            helper.make_node("Constant", [], ["one"], value=one),
            helper.make_node("Shape", ["x"], ["sh"]),
            helper.make_node("Mul", ["sh", "k"], ["l"]),
            helper.make_node("Expand", ["one", "l"], ["e"]),
            helper.make_node("Cast", ["e"], ["y"], to=TensorProto.INT64),
        ],
        [helper.make_tensor_value_info("x", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, ["n"])],
    )
    with pytest.raises(LimitExceededError, match="max_inference_bytes=67108864"):
        load(model, limits=Limits(max_inference_bytes=64 << 20))


def _unknown_size_into_add(valued: bool) -> onnx.ModelProto:
    """An Add reading a 1-D tensor whose size ONNX cannot infer without propagation: a
    custom operator's output (an activation), or ``Expand(1, Shape(x) * 3)``, whose
    values propagation knows."""
    k = helper.make_tensor("k", TensorProto.INT64, [1], [3])
    one = helper.make_tensor("one", TensorProto.INT64, [1], [1])
    unknown = (
        [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Mul", ["s", "k"], ["l"]),
            helper.make_node("Expand", ["one", "l"], ["u"]),
        ]
        if valued
        else [helper.make_node("Custom", ["x"], ["u"], domain="vendor.ops")]
    )
    model = _model(
        [*unknown, helper.make_node("Add", ["u", "x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, None)],
        initializers=[k, one],
    )
    model.opset_import.append(helper.make_opsetid("vendor.ops", 1))
    return model


def test_an_activation_of_unknown_size_needs_no_capped_inference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import nnlat.graph.passes.infer_shapes as infer

    capped: list[bool] = []
    original = infer._infer_capped

    def spy(model: onnx.ModelProto, limits: Limits) -> onnx.ModelProto:
        capped.append(True)
        return original(model, limits)

    monkeypatch.setattr(infer, "_infer_capped", spy)
    load(_unknown_size_into_add(valued=False))
    assert not capped  # a custom operator's output holds no values to propagate
    load(_unknown_size_into_add(valued=True))
    assert capped  # Expand(1, Shape(x) * 3) holds values: propagation runs capped


def _nested(depth: int) -> onnx.ModelProto:
    body = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["o0"])],
        "b0",
        [],
        [helper.make_tensor_value_info("o0", TensorProto.FLOAT, [2])],
    )
    for level in range(1, depth + 1):
        node = helper.make_node("If", ["c"], [f"o{level}"], then_branch=body, else_branch=body)
        out = helper.make_tensor_value_info(f"o{level}", TensorProto.FLOAT, [2])
        body = helper.make_graph([node], f"b{level}", [], [out])
    return _model(
        list(body.node),
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
        ],
        list(body.output),
    )


def test_nodes_nesting_and_subgraphs_are_bounded() -> None:
    assert load(_nested(3)) is not None
    with pytest.raises(LimitExceededError, match="max_graph_depth=2"):
        load(_nested(3), limits=Limits(max_graph_depth=2))
    with pytest.raises(LimitExceededError, match="max_subgraphs=10"):
        load(_nested(3), limits=Limits(max_subgraphs=10))  # 2 + 4 + 8 sub-graphs
    with pytest.raises(LimitExceededError, match="max_nodes=5"):
        load(_nested(3), limits=Limits(max_nodes=5))


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_nodes"):
        Limits(max_nodes=0)
