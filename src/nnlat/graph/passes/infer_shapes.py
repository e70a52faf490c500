"""Run ONNX shape inference, with data propagation so Shape→Gather chains resolve.

Two gaps of ONNX's own inference are filled here, because real models hit both and
everything downstream of the gap would otherwise stay shapeless (and uncosted):

* onnxruntime's contrib ops (domain ``com.microsoft``, emitted by dynamic int8
  quantization and ORT's graph optimisers) have no schema in ``onnx.defs``. Those whose
  output shapes follow a standard operator exactly are inferred *as* that operator
  (:data:`SHAPE_STAND_INS`) and then restored.
* ``Loop`` drops the shapes of loop-carried values, since they may change between
  iterations. As onnxruntime's symbolic shape inference does, a carried value is assumed
  to keep its initial shape, except in the dimensions the body is seen to change.

onnxruntime's ``SymbolicShapeInference`` is not used as a fallback: it has no rule for
``DynamicQuantizeLSTM`` either, and using it only where onnxruntime happens to be
installed would make inferred shapes, and so graph hashes, depend on the environment.
"""

from __future__ import annotations

from collections.abc import Iterator

import onnx
from onnx import defs, helper, shape_inference

from nnlat.errors import InvalidInputShapeError
from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.passes.options import NormalizeOptions

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


def infer_shapes(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Infer every tensor's type and shape in place.

    Operators without a known schema (custom domains) keep unknown output shapes; they are
    not an error.

    Raises:
        InvalidInputShapeError: the input shapes contradict the model.
    """
    _run_inference(model)
    if next(_loops(model.graph, {}), None) is None:
        return  # no Loop: nothing below would change (and each walk costs ~0.3 ms)
    # Loop bodies: seed carried values with their initial shapes, then unpin the
    # dimensions the body changes, then give the Loop's outputs the invariant shapes.
    # Inference merges into the shapes already there and never loosens them, so shapes
    # derived from the previous seeding are forgotten first.
    if _seed_loop_states(model, relax=False):
        forget_inferred_shapes(model)
        _run_inference(model)
    if _seed_loop_states(model, relax=True):
        forget_inferred_shapes(model)
        _run_inference(model)
    if _type_loop_outputs(model):
        _run_inference(model)


def _run_inference(model: onnx.ModelProto) -> None:
    swapped = _swap_in_stand_ins(model)
    try:
        inferred = shape_inference.infer_shapes(
            model, check_type=False, strict_mode=False, data_prop=True
        )
    except (shape_inference.InferenceError, RuntimeError) as exc:
        raise InvalidInputShapeError(
            f"shape inference failed; the input shapes do not fit this model: {exc}"
        ) from None
    finally:
        _restore(model, swapped)
    _restore(inferred, swapped)
    model.CopyFrom(inferred)


def _swap_in_stand_ins(model: onnx.ModelProto) -> list[tuple[int, int, onnx.NodeProto]]:
    """Replace contrib ops by their stand-ins; return (graph, node, original) to restore."""
    swapped: list[tuple[int, int, onnx.NodeProto]] = []
    for g, graph in enumerate(iter_graphs(model.graph)):
        for n, node in enumerate(graph.node):
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


def _restore(model: onnx.ModelProto, swapped: list[tuple[int, int, onnx.NodeProto]]) -> None:
    if not swapped:
        return
    graphs = list(iter_graphs(model.graph))
    for g, n, original in swapped:
        graphs[g].node[n].CopyFrom(original)


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
