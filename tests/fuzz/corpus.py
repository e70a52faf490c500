"""A seeded generator of damaged and hostile ONNX models (issue 29).

:func:`make_corpus` writes ``count`` files into a folder: valid base models, and the
kinds of damage a probe of nnlat found harmful — byte flips, truncations, zeroed
regions, absurd dimensions and attributes, cycles, no outputs, unknown domains, op types
and dtypes, external-data tricks, sub-graph nesting, and memory bombs (ONNX's data
propagation of a ``Range(0, 2**40)``). The same seed gives the same files; nothing is
committed. Each file's name starts with its kind.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import onnx
from onnx import TensorProto, helper, numpy_helper

from nnlat.testing import tiny_model

OPSET = [helper.make_opsetid("", 17)]


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=OPSET)


def _info(name: str, elem_type: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem_type, shape)


def _const(name: str, value: int, elem_type: int = TensorProto.INT64) -> onnx.NodeProto:
    tensor = helper.make_tensor(name, elem_type, [], [value])
    return helper.make_node("Constant", [], [name], value=tensor)


# -- valid base models ------------------------------------------------------------------


def mlp() -> onnx.ModelProto:
    import numpy as np

    w = numpy_helper.from_array(np.ones((8, 4), np.float32), "w")
    b = numpy_helper.from_array(np.zeros(4, np.float32), "b")
    return _model(
        [
            helper.make_node("MatMul", ["x", "w"], ["h"]),
            helper.make_node("Add", ["h", "b"], ["a"]),
            helper.make_node("Relu", ["a"], ["y"]),
        ],
        [_info("x", TensorProto.FLOAT, [2, 8])],
        [_info("y", TensorProto.FLOAT, [2, 4])],
        [w, b],
    )


def lstm() -> onnx.ModelProto:
    import numpy as np

    w = numpy_helper.from_array(np.ones((1, 16, 3), np.float32), "W")
    r = numpy_helper.from_array(np.ones((1, 16, 4), np.float32), "R")
    return _model(
        [helper.make_node("LSTM", ["x", "W", "R"], ["y"], hidden_size=4)],
        [_info("x", TensorProto.FLOAT, [5, 1, 3])],
        [_info("y", TensorProto.FLOAT, [5, 1, 1, 4])],
        [w, r],
    )


def nested_if_with_bool_input() -> onnx.ModelProto:
    """A valid model whose bool input is read inside a nested ``If`` (issue 29, case 5)."""
    inner_then = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"])], "t", [], [_info("t", TensorProto.FLOAT, [2])]
    )
    inner_else = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"])], "e", [], [_info("e", TensorProto.FLOAT, [2])]
    )
    outer_then = helper.make_graph(
        [helper.make_node("If", ["flag"], ["o"], then_branch=inner_then, else_branch=inner_else)],
        "ot",
        [],
        [_info("o", TensorProto.FLOAT, [2])],
    )
    outer_else = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["p"])], "oe", [], [_info("p", TensorProto.FLOAT, [2])]
    )
    return _model(
        [helper.make_node("If", ["flag"], ["y"], then_branch=outer_then, else_branch=outer_else)],
        [_info("flag", TensorProto.BOOL, []), _info("x", TensorProto.FLOAT, [2])],
        [_info("y", TensorProto.FLOAT, [2])],
    )


def small_range() -> onnx.ModelProto:
    return _model(
        [
            _const("s", 0),
            _const("l", 10),
            _const("d", 1),
            helper.make_node("Range", ["s", "l", "d"], ["r"]),
            helper.make_node("Add", ["r", "x"], ["y"]),
        ],
        [_info("x", TensorProto.INT64, [1])],
        [_info("y", TensorProto.INT64, [10])],
    )


BASES: dict[str, Callable[[], onnx.ModelProto]] = {
    "tiny": tiny_model,
    "mlp": mlp,
    "lstm": lstm,
    "nested_if": nested_if_with_bool_input,
    "range": small_range,
}

# -- hostile models ---------------------------------------------------------------------

ABSURD = [0, -1, -7, 1 << 31, 1 << 40, 1 << 62, -(1 << 40)]


def range_bomb(rng: random.Random) -> onnx.ModelProto:
    """``Range(0, 2**k, 1)`` read by an ``Add``: data propagation of it exhausted memory."""
    size = 1 << rng.choice([26, 30, 40, 50])
    return _model(
        [
            _const("s", 0),
            _const("l", size),
            _const("d", 1),
            helper.make_node("Range", ["s", "l", "d"], ["r"]),
            helper.make_node(rng.choice(["Add", "Mul", "Sub"]), ["r", "x"], ["y"]),
        ],
        [_info("x", TensorProto.INT64, [1])],
        [_info("y", TensorProto.INT64, ["n"])],
    )


def expand_bomb(rng: random.Random) -> onnx.ModelProto:
    """A size known only through data propagation (Shape x 2**38), then propagated."""
    k = helper.make_tensor("k", TensorProto.INT64, [1], [1 << rng.choice([30, 38])])
    one = helper.make_tensor("one", TensorProto.INT64, [1], [1])
    return _model(
        [
            helper.make_node("Constant", [], ["k"], value=k),
            helper.make_node("Constant", [], ["one"], value=one),
            helper.make_node("Shape", ["x"], ["sh"]),
            helper.make_node("Mul", ["sh", "k"], ["l"]),
            helper.make_node("Expand", ["one", "l"], ["e"]),
            helper.make_node("Cast", ["e"], ["y"], to=TensorProto.INT64),
        ],
        [_info("x", TensorProto.INT64, [4])],
        [_info("y", TensorProto.INT64, ["n"])],
    )


def wide_input_bomb(rng: random.Random) -> onnx.ModelProto:
    """A 1-D integer input of 2**k elements into a ``Cast``: propagated element by element."""
    size = 1 << rng.choice([24, 30, 36])
    return _model(
        [helper.make_node("Cast", ["x"], ["c"], to=7), helper.make_node("Add", ["c", "c"], ["y"])],
        [_info("x", TensorProto.INT64, [size])],
        [_info("y", TensorProto.INT64, [size])],
    )


def _nested_ifs(depth: int, shared: bool) -> onnx.ModelProto:
    """``If`` inside ``If``, ``depth`` deep; ``shared``: both branches hold the level below,
    so the file holds 2**depth copies of the innermost graph."""
    leaf = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["o0"])], "b0", [], [_info("o0", TensorProto.FLOAT, [2])]
    )
    body = leaf
    for level in range(1, depth + 1):
        other = body if shared else leaf
        node = helper.make_node("If", ["flag"], [f"o{level}"], then_branch=body, else_branch=other)
        body = helper.make_graph(
            [node], f"b{level}", [], [_info(f"o{level}", TensorProto.FLOAT, [2])]
        )
    return _model(
        [body.node[0]],
        [_info("flag", TensorProto.BOOL, []), _info("x", TensorProto.FLOAT, [2])],
        list(body.output),
    )


def nesting(rng: random.Random) -> onnx.ModelProto:
    return _nested_ifs(rng.choice([17, 24, 30]), shared=False)


def fanout(rng: random.Random) -> onnx.ModelProto:
    return _nested_ifs(rng.choice([8, 12, 17]), shared=True)


def _pick_base(rng: random.Random) -> onnx.ModelProto:
    return BASES[rng.choice(sorted(BASES))]()


def absurd_dims(rng: random.Random) -> onnx.ModelProto:
    model = _pick_base(rng)
    value = model.graph.input[rng.randrange(len(model.graph.input))]
    dims = value.type.tensor_type.shape.dim
    if dims:
        dims[rng.randrange(len(dims))].dim_value = rng.choice(ABSURD)
    else:
        dims.add().dim_value = rng.choice(ABSURD)
    return model


SIZE_ATTRS = ["kernel_shape", "strides", "dilations", "pads", "hidden_size", "group"]


def absurd_attribute(rng: random.Random) -> onnx.ModelProto:
    model = rng.choice([tiny_model, lstm])()
    node = next(n for n in model.graph.node if n.op_type in ("Conv", "LSTM"))
    name = rng.choice(["hidden_size"] if node.op_type == "LSTM" else [*SIZE_ATTRS[:4], "group"])
    for attr in list(node.attribute):
        if attr.name == name:
            node.attribute.remove(attr)
    value = rng.choice(ABSURD)
    if name in ("hidden_size", "group"):
        node.attribute.append(helper.make_attribute(name, value))
    else:
        count = 4 if name == "pads" else 2
        node.attribute.append(helper.make_attribute(name, [value] * count))
    return model


def cycle(rng: random.Random) -> onnx.ModelProto:
    model = rng.choice([tiny_model, mlp])()
    nodes = model.graph.node
    nodes[0].input[0] = nodes[-1].output[0]
    return model


def no_outputs(rng: random.Random) -> onnx.ModelProto:
    model = _pick_base(rng)
    del model.graph.output[:]
    return model


def unknown_domain(rng: random.Random) -> onnx.ModelProto:
    model = _pick_base(rng)
    node = model.graph.node[rng.randrange(len(model.graph.node))]
    node.domain = rng.choice(["evil.example", "com.microsoft", "ai.onnx.ml", "x|y:z"])
    if rng.random() < 0.5:
        model.opset_import.add(domain=node.domain, version=rng.choice([1, 99]))
    return model


def unknown_op(rng: random.Random) -> onnx.ModelProto:
    model = _pick_base(rng)
    node = model.graph.node[rng.randrange(len(model.graph.node))]
    node.op_type = rng.choice(["NoSuchOp", "", "Conv|attr:x=int:1", "Relu\x00"])
    return model


def unknown_dtype(rng: random.Random) -> onnx.ModelProto:
    model = _pick_base(rng)
    elem_type = rng.choice([41, 99, 1000, -3])
    if model.graph.initializer and rng.random() < 0.5:
        model.graph.initializer[0].data_type = elem_type
    else:
        model.graph.input[
            rng.randrange(len(model.graph.input))
        ].type.tensor_type.elem_type = elem_type
    return model


def external_data(rng: random.Random) -> onnx.ModelProto:
    model = rng.choice([tiny_model, mlp, lstm])()
    weight = model.graph.initializer[0]
    weight.data_location = TensorProto.EXTERNAL
    for field in ("raw_data", "float_data"):
        weight.ClearField(field)
    location = rng.choice(
        ["../../etc/passwd", "/etc/passwd", "a\x00b.bin", "missing.bin", "x" * 5000, "w.bin"]
    )
    weight.external_data.add(key="location", value=location)
    if rng.random() < 0.5:
        weight.external_data.add(key="offset", value=str(rng.choice([-1, 1 << 63, 10**30])))
    return model


def bad_opset(rng: random.Random) -> onnx.ModelProto:
    model = _pick_base(rng)
    model.opset_import[0].version = rng.choice([0, -1, 9999, 1 << 40])
    return model


def empty_graph(rng: random.Random) -> onnx.ModelProto:
    return _model([], [_info("x", TensorProto.FLOAT, [2])], [_info("x", TensorProto.FLOAT, [2])])


HOSTILE: dict[str, Callable[[random.Random], onnx.ModelProto]] = {
    "range_bomb": range_bomb,
    "expand_bomb": expand_bomb,
    "wide_input_bomb": wide_input_bomb,
    "nesting": nesting,
    "fanout": fanout,
    "dims": absurd_dims,
    "attribute": absurd_attribute,
    "cycle": cycle,
    "no_outputs": no_outputs,
    "domain": unknown_domain,
    "op": unknown_op,
    "dtype": unknown_dtype,
    "external": external_data,
    "opset": bad_opset,
    "empty": empty_graph,
}

# -- damaged bytes ----------------------------------------------------------------------


def flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data))]


def zero(data: bytes, rng: random.Random) -> bytes:
    start = rng.randrange(len(data))
    length = rng.randint(1, max(1, len(data) // 4))
    return data[:start] + bytes(min(length, len(data) - start)) + data[start + length :]


def garbage(data: bytes, rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))


DAMAGE: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "flip": flip,
    "truncate": truncate,
    "zero": zero,
    "garbage": garbage,
}

BOMBS = {"range_bomb", "expand_bomb", "wide_input_bomb"}


def make_corpus(folder: Path, count: int, seed: int = 0) -> list[Path]:
    """Write ``count`` models (valid, hostile and damaged) into ``folder``.

    The first files are one of every kind (the valid bases, each hostile kind, each
    kind of byte damage); the rest are drawn at random, bombs rarely (they take seconds
    each to refuse).

    Returns:
        The files, in order; a file's name starts with its kind.
    """
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "w.bin").write_bytes(b"\0" * 64)  # an external-data target that exists
    kinds = [f"valid-{name}" for name in sorted(BASES)]
    kinds += sorted(HOSTILE) + sorted(DAMAGE)
    while len(kinds) < count:
        kind = rng.choice([*sorted(HOSTILE), *sorted(DAMAGE) * 3, "valid"])
        if kind in BOMBS and rng.random() < 0.8:
            continue
        kinds.append(f"valid-{rng.choice(sorted(BASES))}" if kind == "valid" else kind)
    files = []
    for index, kind in enumerate(kinds[:count]):
        if kind.startswith("valid-"):
            data = BASES[kind.removeprefix("valid-")]().SerializeToString()
        elif kind in HOSTILE:
            data = HOSTILE[kind](rng).SerializeToString()
        else:
            base = (
                _pick_base(rng) if rng.random() < 0.7 else HOSTILE[rng.choice(sorted(HOSTILE))](rng)
            )
            data = DAMAGE[kind](base.SerializeToString(), rng)
        path = folder / f"{kind}-{index:04d}.onnx"
        path.write_bytes(data)
        files.append(path)
    return files
