"""The one module that reads and writes ONNX protobuf: parse, validate, serialise, convert.

Reading validates what a user can get wrong (not ONNX, truncated, empty graph, external
data outside the model's folder or missing, over the size limit) and raises a
:class:`~nnlat.errors.ModelLoadError` subclass that says so. Weights are never read:
those inside the file are left out before parsing (:mod:`nnlat.graph.wire`), and
external-data references are checked for safety and then dropped.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import helper

from nnlat.errors import ExternalDataError, ModelLoadError, ModelTooLargeError
from nnlat.graph.ir import AttrValue, Graph, Node, TensorSpec, TensorValue
from nnlat.graph.wire import WireFormatError, without_weight_data
from nnlat.limits import DEFAULT_LIMITS, DEFAULT_MAX_MODEL_BYTES, Limits


def read_model(
    source: str | Path | bytes,
    *,
    max_bytes: int = DEFAULT_MAX_MODEL_BYTES,
    limits: Limits = DEFAULT_LIMITS,
) -> onnx.ModelProto:
    """Parse an ONNX model from a path or bytes, without loading any weights.

    Args:
        source: a path to a ``.onnx`` file, or the serialised model.
        max_bytes: refuse models larger than this.
        limits: node count and sub-graph nesting, checked before anything else.

    Returns:
        The parsed model with external-data references checked and removed.

    Raises:
        ModelLoadError: missing file, not ONNX, truncated, or an empty graph.
        ModelTooLargeError: the model is over ``max_bytes``.
        ExternalDataError: an external-data reference is unsafe or missing.
        LimitExceededError: too many nodes or too deep a nesting of sub-graphs.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> read_model(tiny_model().SerializeToString()).graph.node[0].op_type
        'Conv'
    """
    if isinstance(source, bytes | bytearray):
        _check_size(len(source), max_bytes, "the given bytes")
        model = parse_model(source, "the given bytes", limits)
        _check_and_drop_external_data(model, None, "the given bytes")
        return model
    path = Path(source)
    if not path.is_file():
        raise ModelLoadError(f"{path}: no such file")
    size = path.stat().st_size
    _check_size(size, max_bytes, str(path))
    if size == 0:
        model = parse_model(b"", str(path), limits)  # raises: mmap cannot map an empty file
    else:
        # Parsed straight from the page cache: reading a file with its weights into a
        # bytes object first costs as much again as parsing it (~50 ms per 100 MB here).
        with (
            path.open("rb") as file,
            mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
            memoryview(mapped) as view,
        ):
            model = parse_model(view, str(path), limits)
    _check_and_drop_external_data(model, path.parent.resolve(), str(path))
    return model


def _check_size(size: int, max_bytes: int, label: str) -> None:
    if size > max_bytes:
        raise ModelTooLargeError(
            f"{label} is {size:,} bytes, over the limit of {max_bytes:,} "
            "(raise it with NNLAT_MAX_MODEL_BYTES / max_model_bytes)"
        )


def parse_model(
    data: bytes | bytearray | memoryview,
    label: str = "the model",
    limits: Limits = DEFAULT_LIMITS,
) -> onnx.ModelProto:
    """Parse serialised ONNX bytes and check that they describe a usable graph.

    Initializers come without the values of weights (more than ``KEEP_VALUE_NUMEL``
    elements): nnlat drops them anyway, and parsing them is most of the time of reading
    a model with its weights.

    Raises:
        ModelLoadError: not a protobuf ModelProto, truncated, or no nodes.
        LimitExceededError: too many nodes or too deep a nesting of sub-graphs.
    """
    model = onnx.ModelProto()
    try:
        model.ParseFromString(_lean(data))
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise ModelLoadError(
            f"{label} is not an ONNX model or is truncated/corrupt ({exc})"
        ) from None
    if model.HasField("graph"):
        check_size(model.graph, limits, label)
    check_model(model, label)
    return model


def _lean(data: bytes | bytearray | memoryview) -> bytes | bytearray | memoryview:
    """``data`` without its weight values (:mod:`nnlat.graph.wire`), or as it is if the
    bytes are malformed: then parsing them says what is wrong."""
    try:
        return without_weight_data(data)
    except WireFormatError:
        return data


def check_model(model: onnx.ModelProto, label: str = "the model") -> None:
    """Check that a parsed model has a non-empty graph whose every input is defined.

    Raises:
        ModelLoadError: no nodes, or a node reads a tensor nothing defines.
    """
    if not model.HasField("graph") or len(model.graph.node) == 0:
        raise ModelLoadError(f"{label} is not an ONNX model or its graph is empty (no nodes)")
    _check_references(model.graph, outer=set(), label=label)


def _check_references(graph: onnx.GraphProto, outer: set[str], label: str) -> None:
    """Every node input must be defined somewhere; a truncated file usually breaks this."""
    defined = set(outer)
    defined.update(i.name for i in graph.input)
    defined.update(i.name for i in graph.initializer)
    defined.update(i.values.name for i in graph.sparse_initializer)
    defined.update(out for node in graph.node for out in node.output)
    for node in graph.node:
        for name in node.input:
            if name and name not in defined:
                raise ModelLoadError(
                    f"{label}: node {node.name or node.op_type!r} reads tensor {name!r} that "
                    "nothing defines; the file is truncated or corrupt"
                )
        for attr in node.attribute:
            for sub in _attribute_graphs(attr):
                _check_references(sub, defined, label)


def _attribute_graphs(attr: onnx.AttributeProto) -> list[onnx.GraphProto]:
    if attr.type == onnx.AttributeProto.GRAPH:
        return [attr.g]
    if attr.type == onnx.AttributeProto.GRAPHS:
        return list(attr.graphs)
    return []


def iter_graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    """``graph`` and, recursively, every sub-graph held in node attributes (pre-order).

    Walked with an explicit stack: nested generators cost a call per level per graph,
    which a hostile nesting turns into minutes.
    """
    stack = [graph]
    while stack:
        current = stack.pop()
        yield current
        # _attribute_graphs inlined: every pass walks every attribute of every node this
        # way, and the call per attribute was a quarter of this walk's time.
        found: list[onnx.GraphProto] = []
        for node in current.node:
            for attr in node.attribute:
                kind = attr.type
                if kind == onnx.AttributeProto.GRAPH:
                    found.append(attr.g)
                elif kind == onnx.AttributeProto.GRAPHS:
                    found.extend(attr.graphs)
        stack.extend(reversed(found))


def check_size(graph: onnx.GraphProto, limits: Limits, label: str = "the model") -> None:
    """Refuse a graph over ``limits.max_nodes`` (sub-graphs included), with more than
    ``limits.max_subgraphs`` sub-graphs or nesting them deeper than
    ``limits.max_graph_depth``; checked first, as every later step walks every sub-graph.

    Raises:
        LimitExceededError: over one of these limits.
    """
    nodes = graphs = 0
    stack = [(graph, 0)]
    while stack:
        current, depth = stack.pop()
        limits.check("max_graph_depth", depth, f"{label} nests sub-graphs {depth} deep")
        limits.check("max_subgraphs", graphs, f"{label} has more than {graphs - 1:,} sub-graphs")
        graphs += 1
        nodes += len(current.node)
        limits.check("max_nodes", nodes, f"{label} has more than {nodes - 1:,} nodes")
        for node in current.node:
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    stack.append((attr.g, depth + 1))
                elif attr.type == onnx.AttributeProto.GRAPHS:
                    stack.extend((g, depth + 1) for g in attr.graphs)


def _check_and_drop_external_data(
    model: onnx.ModelProto, base_dir: Path | None, label: str
) -> None:
    for graph in iter_graphs(model.graph):
        for tensor in graph.initializer:
            if tensor.data_location != onnx.TensorProto.EXTERNAL:
                continue
            entries = {e.key: e.value for e in tensor.external_data}
            location = entries.get("location", "")
            shown = repr(location if len(location) <= 120 else location[:120] + "...")
            if base_dir is None:
                raise ExternalDataError(
                    f"{label}: weight {tensor.name!r} is stored in external file "
                    f"{shown}; pass the model as a file path so it can be checked"
                )
            try:
                target = (base_dir / location).resolve()
                outside = Path(location).is_absolute() or not target.is_relative_to(base_dir)
                missing = outside or not target.is_file()
            except (OSError, ValueError):  # a NUL byte, a name too long for the system
                raise ExternalDataError(
                    f"{label}: weight {tensor.name!r} points to {shown}, which is not a "
                    "usable file name"
                ) from None
            if outside:
                raise ExternalDataError(
                    f"{label}: weight {tensor.name!r} points to {shown}, outside the "
                    "model's folder; refusing to follow it"
                )
            if missing:
                raise ExternalDataError(
                    f"{label}: weight {tensor.name!r} points to missing file {shown}"
                )
            # Weights are never needed: keep the reference checked, drop it.
            del tensor.external_data[:]
            tensor.data_location = onnx.TensorProto.DEFAULT


def serialize(model: onnx.ModelProto) -> bytes:
    """Serialise deterministically (same model → same bytes)."""
    return model.SerializeToString(deterministic=True)


@lru_cache(maxsize=64)  # a handful of element types, asked for once per tensor
def dtype_name(elem_type: int) -> tuple[str, int]:
    """ONNX element type → (numpy-style name, bytes per element); ("unknown", 0) if unset."""
    if elem_type == onnx.TensorProto.UNDEFINED:
        return "unknown", 0
    try:
        np_type = np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))
    except (KeyError, TypeError, ValueError):
        return onnx.TensorProto.DataType.Name(elem_type).lower(), 0
    if elem_type == onnx.TensorProto.STRING:
        return "string", 0
    return np_type.name, np_type.itemsize


def _value_info_spec(value: onnx.ValueInfoProto) -> TensorSpec:
    tensor_type = value.type.tensor_type
    dtype, itemsize = dtype_name(tensor_type.elem_type)
    if not tensor_type.HasField("shape"):
        return TensorSpec(value.name, dtype, None, itemsize)
    dims = tuple(d.dim_value if d.HasField("dim_value") else None for d in tensor_type.shape.dim)
    return TensorSpec(value.name, dtype, dims, itemsize)


def _initializer_spec(tensor: onnx.TensorProto) -> TensorSpec:
    dtype, itemsize = dtype_name(tensor.data_type)
    return TensorSpec(tensor.name, dtype, tuple(int(d) for d in tensor.dims), itemsize)


def attribute_value(attr: onnx.AttributeProto, outer: dict[str, TensorSpec]) -> AttrValue:
    """An attribute's value as the IR holds it (``outer``: tensor types a sub-graph sees)."""
    kind = attr.type
    if kind == onnx.AttributeProto.GRAPH:
        return graph_to_ir(attr.g, outer)
    if kind == onnx.AttributeProto.GRAPHS:
        return tuple(graph_to_ir(g, outer) for g in attr.graphs)
    if kind == onnx.AttributeProto.TENSOR:
        return TensorValue(dtype_name(attr.t.data_type)[0], tuple(int(d) for d in attr.t.dims))
    if kind == onnx.AttributeProto.SPARSE_TENSOR:
        values = attr.sparse_tensor.values
        return TensorValue(dtype_name(values.data_type)[0], tuple(attr.sparse_tensor.dims))
    if kind == onnx.AttributeProto.TENSORS:
        return tuple(
            TensorValue(dtype_name(t.data_type)[0], tuple(int(d) for d in t.dims))
            for t in attr.tensors
        )
    # The common kinds read directly: helper.get_attribute_value is a long if-chain.
    if kind == onnx.AttributeProto.INT:
        return attr.i
    if kind == onnx.AttributeProto.INTS:
        return tuple(attr.ints)
    if kind == onnx.AttributeProto.FLOAT:
        return attr.f
    value = helper.get_attribute_value(attr)
    if isinstance(value, list):
        return tuple(v.decode() if isinstance(v, bytes) else v for v in value)
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    if isinstance(value, onnx.TypeProto):
        return str(value)
    return value


def _implicit_inputs(node: onnx.NodeProto) -> tuple[str, ...]:
    """Names a node's sub-graphs read from enclosing scopes, in first-use order."""
    found: dict[str, None] = {}
    for attr in node.attribute:
        for sub in _attribute_graphs(attr):
            for inner in iter_graphs(sub):
                local = {i.name for i in inner.input} | {t.name for t in inner.initializer}
                local |= {o for n in inner.node for o in n.output}
                for n in inner.node:
                    found.update((i, None) for i in n.input if i and i not in local)
                found.update((o.name, None) for o in inner.output if o.name not in local)
    return tuple(found)


def graph_to_ir(
    graph: onnx.GraphProto,
    outer: dict[str, TensorSpec] | None = None,
    *,
    opsets: dict[str, int] | None = None,
    onnx_bytes: bytes = b"",
) -> Graph:
    """Convert a (normalised, topologically sorted) GraphProto to the IR.

    Args:
        graph: the graph; its nodes must already be in topological order.
        outer: tensor types visible from an enclosing graph (for sub-graphs).
        opsets: domain → version of the model.
        onnx_bytes: the storage form to attach (top-level graph only).
    """
    weights = {t.name: _initializer_spec(t) for t in graph.initializer}
    tensors: dict[str, TensorSpec] = dict(outer or {})
    tensors.update({v.name: _value_info_spec(v) for v in graph.value_info})
    inputs = tuple(_value_info_spec(v) for v in graph.input if v.name not in weights)
    outputs = tuple(_value_info_spec(v) for v in graph.output)
    tensors.update({s.name: s for s in inputs})
    tensors.update({s.name: s for s in outputs if s.shape is not None or s.name not in tensors})
    tensors.update(weights)
    nodes = tuple(
        Node(
            name=node.name,
            op_type=node.op_type,
            domain="" if node.domain == "ai.onnx" else node.domain,
            attributes=tuple(sorted((a.name, attribute_value(a, tensors)) for a in node.attribute)),
            inputs=tuple(node.input),
            outputs=tuple(node.output),
            implicit_inputs=_implicit_inputs(node),
        )
        for node in graph.node
    )
    return Graph(
        nodes=nodes,
        inputs=inputs,
        outputs=outputs,
        weights=weights,
        tensors=tensors,
        opsets=dict(opsets or {}),
        storage=onnx_bytes,
    )


def model_to_ir(model: onnx.ModelProto) -> Graph:
    """Convert a normalised ModelProto to a :class:`Graph` carrying its storage bytes."""
    opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    return graph_to_ir(model.graph, opsets=opsets, onnx_bytes=serialize(model))
