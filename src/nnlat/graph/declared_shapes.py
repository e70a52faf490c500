"""Declared shapes that ONNX shape inference contradicts.

An exporter may write a wrong shape into ``value_info`` or a sub-graph's outputs (the
Paddle2ONNX export of a ``Gather`` declared ``[n]`` for what is ``[n, 1]``; an ``If``
branch declared a scalar for a ``[1]`` tensor). ``onnx.checker`` in strict mode refuses
such a model, though nothing in the graph is wrong: onnxruntime, for models below the
newest opset, merges a declared shape that conflicts with its own inference leniently and
runs the model. nnlat never uses declared intermediate shapes either (normalisation
forgets them and infers its own), so the checker is run again without the contradicted
declarations rather than refusing the model. A conflict in the graph itself (an ``Add``
whose inputs cannot broadcast) is no declaration and still fails the checker, and so does
a contradicted shape of a model output: the outputs are the model's interface, and one
that its graph contradicts is a fault of the model (a hostile ``hidden_size``, say), not
of an exporter's bookkeeping. Except where the declaration is "unknown" written wrongly:
a model output declared with no dimensions at all (a scalar, for what the graph makes a
matrix) or with a negative dimension (``-1``, which ONNX has no meaning for) is how some
exporters say they did not know the shape (PaddleOCR exports shipped in wheels do both);
such an output declaration is forgotten like an intermediate one.
"""

from __future__ import annotations

from dataclasses import dataclass

import onnx
from onnx import shape_inference

from nnlat.graph.onnx_io import iter_graphs

MAX_NAMED = 3
"""Contradictions named in a message; the rest are counted."""


@dataclass(frozen=True)
class Contradiction:
    """A declared intermediate shape (``value_info``, a sub-graph's output) that inference
    contradicts."""

    graph: int  # index of the graph in iter_graphs order
    name: str
    declared: tuple[int | None, ...]
    inferred: tuple[int | None, ...]

    def __str__(self) -> str:
        return f"{self.name} declared {_show(self.declared)}, inferred {_show(self.inferred)}"


def contradicted_shapes(model: onnx.ModelProto) -> list[Contradiction]:
    """The declared shapes of ``model`` that its own shape inference contradicts.

    Inference runs on a copy with every declared intermediate shape cleared, not strictly
    and without data propagation (allocation-free), so a wrong declaration does not feed
    the shapes it is compared with. Ranks must agree, and so must each dimension known on
    both sides; a symbolic dimension agrees with anything. The model's own outputs are
    not compared: a contradiction there stays the checker's to refuse.

    Args:
        model: a model whose weights may be value-less; not modified.

    Returns:
        The contradictions, in graph order; empty when inference fails outright.

    Example:
        >>> from onnx import TensorProto, helper
        >>> graph = helper.make_graph(
        ...     [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["y"], ["z"])],
        ...     "g",
        ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        ...     [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])],
        ...     value_info=[helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])],
        ... )
        >>> [str(c) for c in contradicted_shapes(helper.make_model(graph))]
        ['y declared (6,), inferred (2, 3)']
    """
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    for graph in iter_graphs(bare.graph):
        for value in _declared(graph, bare.graph):
            value.type.tensor_type.ClearField("shape")
    try:
        inferred = shape_inference.infer_shapes(
            bare, check_type=False, strict_mode=False, data_prop=False
        )
    except (shape_inference.InferenceError, RuntimeError, ValueError):
        return []
    found = []
    pairs = zip(iter_graphs(model.graph), iter_graphs(inferred.graph), strict=True)
    for index, (graph, inferred_graph) in enumerate(pairs):
        values = [*inferred_graph.value_info, *inferred_graph.output]
        shapes = {v.name: _dims(v.type) for v in values if v.type.HasField("tensor_type")}
        for value in _declared(graph, model.graph):
            declared, shape = _dims(value.type), shapes.get(value.name)
            if declared is not None and shape is not None and _conflict(declared, shape):
                found.append(Contradiction(index, value.name, declared, shape))
    return found


def forget_declared(model: onnx.ModelProto, contradictions: list[Contradiction]) -> None:
    """Clear the declared shapes named by ``contradictions`` from ``model``, in place."""
    names: dict[int, set[str]] = {}
    for c in contradictions:
        names.setdefault(c.graph, set()).add(c.name)
    for index, graph in enumerate(iter_graphs(model.graph)):
        for value in _declared(graph, model.graph):
            if value.name in names.get(index, ()):
                value.type.tensor_type.ClearField("shape")


def describe(contradictions: list[Contradiction]) -> str:
    """The first few contradictions, then how many more, for a one-line message."""
    shown = "; ".join(map(str, contradictions[:MAX_NAMED]))
    more = len(contradictions) - MAX_NAMED
    return shown + (f"; and {more} more" if more > 0 else "")


def _declared(graph: onnx.GraphProto, top: onnx.GraphProto) -> list[onnx.ValueInfoProto]:
    """Declared intermediate tensor types: ``graph``'s value_info, and its outputs unless
    it is the ``top``-level graph (inputs are given, not inferred), where only outputs
    declared as "unknown" written wrongly count (:func:`_unknown_written_wrongly`)."""
    outputs = [v for v in graph.output if graph is not top or _unknown_written_wrongly(v)]
    return [v for v in [*graph.value_info, *outputs] if v.type.HasField("tensor_type")]


def _unknown_written_wrongly(value: onnx.ValueInfoProto) -> bool:
    """A declared shape with no dimensions, or with a negative one.

    Example:
        >>> from onnx import TensorProto, helper
        >>> [_unknown_written_wrongly(helper.make_tensor_value_info("y", 1, s))
        ...  for s in ([], [-1, 4], [2, 3], None)]
        [True, True, False, False]
    """
    tensor_type = value.type.tensor_type
    if not value.type.HasField("tensor_type") or not tensor_type.HasField("shape"):
        return False
    dims = tensor_type.shape.dim
    return not dims or any(d.HasField("dim_value") and d.dim_value < 0 for d in dims)


def _dims(type_proto: onnx.TypeProto) -> tuple[int | None, ...] | None:
    tensor_type = type_proto.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in tensor_type.shape.dim)


def _conflict(declared: tuple[int | None, ...], inferred: tuple[int | None, ...]) -> bool:
    return len(declared) != len(inferred) or any(
        a is not None and b is not None and a != b for a, b in zip(declared, inferred, strict=True)
    )


def _show(dims: tuple[int | None, ...]) -> str:
    shown = ["?" if d is None else str(d) for d in dims]
    return f"({shown[0]},)" if len(shown) == 1 else f"({', '.join(shown)})"
