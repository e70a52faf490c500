"""Run ONNX shape inference, with data propagation so Shape→Gather chains resolve.

Two gaps of ONNX's own inference are filled here, because real models hit both and
everything downstream of the gap would otherwise stay shapeless (and uncosted):

* onnxruntime's contrib ops (domain ``com.microsoft``, emitted by dynamic int8
  quantization and ORT's graph optimisers) have no schema in ``onnx.defs``. Those whose
  output shapes follow a standard operator exactly are inferred *as* that operator
  (:data:`SHAPE_STAND_INS`) and then restored; the 4-bit matmuls (:data:`PACKED_MATMULS`)
  as a MatMul by a weight of the shape their attributes give.
* ``Loop`` drops the shapes of loop-carried values, since they may change between
  iterations. As onnxruntime's symbolic shape inference does, a carried value is assumed
  to keep its initial shape, except in the dimensions the body is seen to change.

Data propagation is where an untrusted model can ask for unbounded memory: ONNX holds
each propagated value as a protobuf message, one per element, so a ``Range(0, 2**40, 1)``
or any 1-D integer tensor of 2**40 elements feeding an ``Add`` allocates terabytes. Every
inference therefore runs first without data propagation (cheap, allocation-free), which
bounds every known tensor size by ``Limits.max_tensor_elements``; where a 0-D/1-D tensor
of unknown or large size is read by a node, data propagation could still grow without
bound, and then runs in a forked child capped at ``Limits.max_inference_bytes`` and
``Limits.max_inference_s`` (:func:`nnlat.capped.call_capped`).

onnxruntime's ``SymbolicShapeInference`` is not used as a fallback: it has no rule for
``DynamicQuantizeLSTM`` either, and using it only where onnxruntime happens to be
installed would make inferred shapes, and so graph hashes, depend on the environment.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import onnx
from onnx import defs, helper, shape_inference

from nnlat.capped import CapExceededError, call_capped
from nnlat.errors import InvalidInputShapeError
from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.passes.options import NormalizeOptions
from nnlat.graph.tensors import has_data
from nnlat.limits import Limits

SHAPE_STAND_INS: dict[tuple[str, str], tuple[str, int, int]] = {
    # (domain, op type) → (default-domain op with the same output shapes, leading inputs
    # and outputs it takes). Only ops whose outputs follow the stand-in exactly.
    ("com.microsoft", "DynamicQuantizeLSTM"): ("LSTM", 8, 3),  # + weight scales/zero points
    ("com.microsoft", "DynamicQuantizeMatMul"): ("MatMul", 2, 1),  # float A, int8 B
    ("com.microsoft", "FusedConv"): ("Conv", 3, 1),  # + a fused activation
    ("com.microsoft", "FusedGemm"): ("Gemm", 3, 1),  # + a fused activation
    ("com.microsoft", "Gelu"): ("Relu", 1, 1),  # element-wise: shaped like input 0
    ("com.microsoft", "FastGelu"): ("Relu", 1, 1),
    ("com.microsoft", "BiasGelu"): ("Relu", 1, 1),
    ("com.microsoft", "QuickGelu"): ("Relu", 1, 1),
}

# Contrib matmuls whose weight is packed (4-bit blocks): inferred as a MatMul of input 0 by
# a stand-in weight of shape (K, N), read off their attributes and declared as a graph
# input for the inference only (a graph input costs no memory; an initializer would).
PACKED_MATMULS = frozenset({("com.microsoft", "MatMulNBits"), ("com.microsoft", "MatMulBnb4")})
_STAND_IN_WEIGHT = "nnlat_stand_in_weight_"

# Ops whose data propagation copies or combines the values of their inputs (ONNX holds
# each value as one protobuf dimension): a huge 1-D input to one of them is the bomb.
# Shape and Size only read their input's shape, which is bounded by its rank.
_READ_SHAPE_ONLY = frozenset({"Shape", "Size"})


@functools.cache
def propagates_data(op_type: str) -> bool:
    """Whether any version of default-domain operator ``op_type`` propagates values.

    Looked up per operator type met (walking back through its versions) rather than
    over all ~700 schemas of every version at import, which cost ~15 ms of every
    command's start-up.

    Example:
        >>> propagates_data("Concat"), propagates_data("Conv"), propagates_data("Shape")
        (True, False, False)
    """
    if op_type in _READ_SHAPE_ONLY:
        return False
    try:
        schema = defs.get_schema(op_type, "")
        while not schema.has_data_propagation_function:
            if schema.since_version <= 1:
                return False
            schema = defs.get_schema(op_type, schema.since_version - 1, "")
    except defs.SchemaError:  # no such operator (at this version or before)
        return False
    return True


def infer_shapes(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Infer every tensor's type and shape in place.

    Operators without a known schema (custom domains) keep unknown output shapes; they are
    not an error.

    Raises:
        InvalidInputShapeError: the input shapes contradict the model.
        LimitExceededError: a tensor is over ``options.limits``, or inference needs more
            memory or time than they allow.
    """
    limits = options.limits
    _run_inference(model, limits)
    if next(_loops(model.graph, {}), None) is None:
        return  # no Loop: nothing below would change (and each walk costs ~0.3 ms)
    # Loop bodies: seed carried values with their initial shapes, then unpin the
    # dimensions the body changes, then give the Loop's outputs the invariant shapes.
    # Inference merges into the shapes already there and never loosens them, so shapes
    # derived from the previous seeding are forgotten first.
    if _seed_loop_states(model, relax=False):
        forget_inferred_shapes(model)
        _run_inference(model, limits)
    if _seed_loop_states(model, relax=True):
        forget_inferred_shapes(model)
        _run_inference(model, limits)
    if _type_loop_outputs(model):
        _run_inference(model, limits)


def _run_inference(model: onnx.ModelProto, limits: Limits) -> None:
    swapped = _swap_in_stand_ins(model)
    try:
        plain = shape_inference.infer_shapes(
            model, check_type=False, strict_mode=False, data_prop=False
        )
        propagation = _propagation(plain, limits)
        if propagation == "none":
            inferred = plain  # no node yields values: data propagation would add nothing
        elif propagation == "bounded":
            inferred = shape_inference.infer_shapes(
                model, check_type=False, strict_mode=False, data_prop=True
            )
        else:
            inferred = _infer_capped(model, limits)
    except (shape_inference.InferenceError, RuntimeError) as exc:
        raise InvalidInputShapeError(
            f"shape inference failed; the input shapes do not fit this model: {_first_line(exc)}"
        ) from None
    finally:
        _restore(model, swapped)
    _restore(inferred, swapped)
    model.CopyFrom(inferred)


def _first_line(exc: BaseException) -> str:
    """ONNX's inference errors run over several lines; the first says what failed."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _infer_capped(model: onnx.ModelProto, limits: Limits) -> onnx.ModelProto:
    """Inference with data propagation in a child process capped by ``limits``."""

    def infer() -> bytes:
        inferred = shape_inference.infer_shapes(
            model, check_type=False, strict_mode=False, data_prop=True
        )
        return inferred.SerializeToString()

    try:
        data = call_capped(
            infer, max_bytes=limits.max_inference_bytes, max_seconds=limits.max_inference_s
        )
    except CapExceededError as exc:
        if exc.cap == "memory":
            raise limits.error(
                "max_inference_bytes", "shape inference of this model needs more memory"
            ) from None
        raise limits.error(
            "max_inference_s", "shape inference of this model takes longer"
        ) from None
    inferred = onnx.ModelProto()
    inferred.ParseFromString(data)
    return inferred


def _propagation(model: onnx.ModelProto, limits: Limits) -> str:
    """Check the shapes inferred without data propagation against ``limits``, and say
    what data propagation would do.

    Returns:
        ``"none"`` when no node yields values (no ``Shape``/``Size``, no input-less
        ``Constant``-like node, no propagating node reading a value held in the file):
        propagation would find nothing, so the inference without it is the answer;
        ``"bounded"`` when it would, boundedly; ``"unbounded"`` when a node that
        propagates values reads a 0-D/1-D tensor of unknown size (or rank).

    Raises:
        LimitExceededError: a tensor has more than ``limits.max_tensor_elements``, or
            a node that propagates values reads a 0-D/1-D tensor of more than
            ``limits.max_value_elements`` (ONNX would hold each as a message).
    """
    bounded, yields = True, False

    def walk(graph: onnx.GraphProto, outer: dict[str, int | None], outer_valued: set[str]) -> None:
        nonlocal bounded, yields
        sizes = dict(outer)  # tensor → elements if it is 0-D/1-D (None: unknown), else -1
        valued = set(outer_valued)  # tensors whose values propagation may know
        for value in (*graph.input, *graph.value_info, *graph.output):
            sizes[value.name] = _size(value.name, value.type, limits)
        for tensor in graph.initializer:
            elements = math.prod(tensor.dims)
            limits.check(
                "max_tensor_elements",
                elements,
                lambda t=tensor, n=elements: (
                    f"weight {t.name!r} of shape {list(t.dims)} has {n:,} elements"
                ),
            )
            # Only values held in the file propagate (weights have none by now).
            held = has_data(tensor)
            sizes[tensor.name] = elements if len(tensor.dims) <= 1 and held else -1
            if held:
                valued.add(tensor.name)
        for node in graph.node:
            if node.domain in ("", "ai.onnx") and propagates_data(node.op_type):
                for name in node.input:
                    size = sizes.get(name) if name else -1
                    if size is None and name in valued:
                        bounded = False
                    elif size is not None and size > limits.max_value_elements:
                        raise limits.error(
                            "max_value_elements",
                            f"node {node.name or node.op_type!r} would propagate the "
                            f"{size:,} values of tensor {name!r}",
                        )
            if _may_hold_values(node, valued):
                valued.update(node.output)
                yields = yields or _yields_values(node, valued)
            for attr in node.attribute:
                subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
                for sub in subs:
                    walk(sub, sizes, valued)

    walk(model.graph, {}, set())
    if not bounded:
        return "unbounded"
    return "bounded" if yields else "none"


def _yields_values(node: onnx.NodeProto, valued: set[str]) -> bool:
    """Whether data propagation may give ``node``'s outputs values (given that
    :func:`_may_hold_values` holds): ``Shape``/``Size``, an input-less node, a control-flow
    node, or a propagating node reading a value. A node of any other operator whose every
    input is held in the file (a ``Reshape`` of a constant shape) yields nothing: without
    data propagation ONNX reads the held inputs as well."""
    if node.op_type in _READ_SHAPE_ONLY or not any(node.input) or _holds_graphs(node):
        return True
    return propagates_data(node.op_type) and any(name in valued for name in node.input if name)


def _may_hold_values(node: onnx.NodeProto, valued: set[str]) -> bool:
    """Whether data propagation may know ``node``'s output values (an over-estimate).

    Values start at the constants the file holds, ``Constant``-like nodes without inputs
    and ``Shape`` / ``Size``, and flow on through default-domain nodes: a propagating
    one with any input known, any other with every input known. An activation (a
    convolution's output, a custom operator's) never holds values, so a tensor of unknown
    size there cannot grow propagation and needs no capped child process: for a TFLite
    model, whose converted custom operators leave many shapes unknown, that spares two
    forks per load.
    """
    if node.domain not in ("", "ai.onnx"):
        return False
    inputs = [name for name in node.input if name]
    if not inputs or node.op_type in _READ_SHAPE_ONLY:
        return True
    if _holds_graphs(node):
        return True  # If / Loop / Scan: what their bodies yield is not followed here
    if propagates_data(node.op_type):
        return any(name in valued for name in inputs)
    return all(name in valued for name in inputs)


def _holds_graphs(node: onnx.NodeProto) -> bool:
    """Whether ``node`` carries sub-graphs (If, Loop, Scan)."""
    return any(
        a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute
    )


def _size(name: str, type_proto: onnx.TypeProto, limits: Limits) -> int | None:
    """Elements of a 0-D/1-D tensor (None: unknown), -1 for any other known rank."""
    if not type_proto.HasField("tensor_type"):
        return -1  # a sequence or map: no data propagation through it
    tensor_type = type_proto.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    dims = tensor_type.shape.dim
    if all(d.HasField("dim_value") for d in dims):
        elements = math.prod(d.dim_value for d in dims)
        limits.check(
            "max_tensor_elements",
            elements,
            lambda: (
                f"tensor {name!r} of shape {[d.dim_value for d in dims]} has {elements:,} elements"
            ),
        )
    else:
        elements = None
    return elements if len(dims) <= 1 else -1


def _swap_in_stand_ins(model: onnx.ModelProto) -> list[tuple[int, int, onnx.NodeProto]]:
    """Replace contrib ops by their stand-ins; return (graph, node, original) to restore."""
    swapped: list[tuple[int, int, onnx.NodeProto]] = []
    for g, graph in enumerate(iter_graphs(model.graph)):
        for n, node in enumerate(graph.node):
            if (node.domain, node.op_type) in PACKED_MATMULS:
                swapped.append((g, n, _swap_packed_matmul(model, node, f"{g}_{n}")))
                continue
            stand_in = SHAPE_STAND_INS.get((node.domain, node.op_type))
            if stand_in is None:
                continue
            op_type, n_inputs, n_outputs = stand_in
            original = onnx.NodeProto()
            original.CopyFrom(node)
            known = defs.get_schema(op_type).attributes
            attributes = [a for a in node.attribute if a.name in known]
            node.op_type, node.domain = op_type, ""
            del node.input[n_inputs:]
            del node.output[n_outputs:]
            node.ClearField("attribute")
            node.attribute.extend(attributes)
            swapped.append((g, n, original))
    return swapped


def _swap_packed_matmul(model: onnx.ModelProto, node: onnx.NodeProto, key: str) -> onnx.NodeProto:
    """Make ``node`` a MatMul by a declared (K, N) weight; return the original node."""
    original = onnx.NodeProto()
    original.CopyFrom(node)
    sizes = {a.name: a.i for a in node.attribute if a.name in ("K", "N")}
    weight = _STAND_IN_WEIGHT + key
    model.graph.input.append(
        helper.make_tensor_value_info(
            weight, onnx.TensorProto.FLOAT, [sizes.get("K"), sizes.get("N")]
        )
    )
    node.op_type, node.domain = "MatMul", ""
    del node.input[1:]
    node.input.append(weight)
    del node.output[1:]
    node.ClearField("attribute")
    return original


def _restore(model: onnx.ModelProto, swapped: list[tuple[int, int, onnx.NodeProto]]) -> None:
    if not swapped:
        return
    graphs = list(iter_graphs(model.graph))
    for g, n, original in swapped:
        graphs[g].node[n].CopyFrom(original)
    kept = [i for i in model.graph.input if not i.name.startswith(_STAND_IN_WEIGHT)]
    if len(kept) < len(model.graph.input):
        del model.graph.input[:]
        model.graph.input.extend(kept)


def forget_inferred_shapes(model: onnx.ModelProto) -> None:
    """Drop every inferred intermediate and output shape (graph inputs are kept)."""
    for graph in iter_graphs(model.graph):
        graph.ClearField("value_info")
        for output in graph.output:
            if output.type.HasField("tensor_type"):
                output.type.tensor_type.ClearField("shape")


def _visible_types(graph: onnx.GraphProto) -> dict[str, onnx.TypeProto]:
    types = {v.name: v.type for v in (*graph.input, *graph.value_info, *graph.output)}
    for tensor in graph.initializer:
        types[tensor.name] = helper.make_tensor_type_proto(tensor.data_type, list(tensor.dims))
    return types


def _loops(
    graph: onnx.GraphProto, scope: dict[str, onnx.TypeProto]
) -> Iterator[tuple[onnx.GraphProto, onnx.NodeProto, onnx.GraphProto, dict[str, onnx.TypeProto]]]:
    """Every Loop as (enclosing graph, node, body, types visible to the node), nested too."""
    types: dict[str, onnx.TypeProto] | None = None  # built on the first sub-graph: most have none
    for node in graph.node:
        for attr in node.attribute:
            subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
            if not subs:
                continue
            if types is None:
                types = {**scope, **_visible_types(graph)}
            for sub in subs:
                is_loop = node.op_type == "Loop" and node.domain in ("", "ai.onnx")
                if is_loop and attr.name == "body":
                    yield graph, node, sub, types
                yield from _loops(sub, types)


def _dims(type_proto: onnx.TypeProto | None) -> list[int | None] | None:
    """A tensor type's dimensions (None where unknown), or None for no tensor shape."""
    if type_proto is None or not type_proto.HasField("tensor_type"):
        return None
    tensor_type = type_proto.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in tensor_type.shape.dim]


def _set_dims(type_proto: onnx.TypeProto, dims: list[int | None]) -> bool:
    """Give a tensor type these dimensions (None: unknown); True when that changed it."""
    shape = onnx.TensorShapeProto()
    for size in dims:
        dim = shape.dim.add()
        if size is not None:
            dim.dim_value = size
    tensor_type = type_proto.tensor_type
    if tensor_type.HasField("shape") and tensor_type.shape == shape:
        return False
    tensor_type.shape.CopyFrom(shape)
    return True


def _seed_loop_states(model: onnx.ModelProto, relax: bool) -> bool:
    """Set the body input of each carried value to the value's initial (static) shape.

    With ``relax``, instead unpin each dimension where the body's output for that value
    (inferred from the seeded input) differs from its input: the value grows or shrinks
    from one iteration to the next (a decoder appending tokens, say).

    Returns:
        True when a body input changed (shapes should then be re-inferred).
    """
    changed = False
    for _, node, body, types in list(_loops(model.graph, {})):
        for k, name in enumerate(node.input[2:]):
            if 2 + k >= len(body.input) or 1 + k >= len(body.output):
                break
            initial = _dims(types.get(name))
            state = body.input[2 + k]
            if initial is None or None in initial or not state.type.HasField("tensor_type"):
                continue  # unknown initial shape, or a sequence-typed state
            target: list[int | None] = list(initial)
            if relax:
                current = _dims(state.type)
                after = _dims(body.output[1 + k].type)
                if current is None or after is None or len(after) != len(current):
                    continue
                target = [c if c == a else None for c, a in zip(current, after, strict=True)]
            changed |= _set_dims(state.type, target)
    return changed


def _type_loop_outputs(model: onnx.ModelProto) -> bool:
    """Give a Loop's carried outputs the shape their body keeps invariant.

    Dimensions the body changes (unpinned by :func:`_seed_loop_states`) stay unknown.

    Returns:
        True when an output type changed (shapes should then be re-inferred).
    """
    changed = False
    for graph, node, body, _ in list(_loops(model.graph, {})):
        declared = {v.name: v for v in (*graph.value_info, *graph.output)}
        for k, name in enumerate(node.output):
            if not name or 2 + k >= len(body.input) or 1 + k >= len(body.output):
                break
            before, after = _dims(body.input[2 + k].type), _dims(body.output[1 + k].type)
            if before is None or before != after:
                continue
            value = declared.get(name)
            if value is None:
                elem_type = body.output[1 + k].type.tensor_type.elem_type
                value = helper.make_tensor_value_info(name, elem_type, before)
                graph.value_info.append(value)
                changed = True
            elif value.type.HasField("tensor_type"):
                changed |= _set_dims(value.type, list(before))
    return changed
