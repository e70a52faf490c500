"""Fold constant sub-graphs into initializers, so only run-time compute remains as nodes.

A node is constant when every input is an initializer (or it reads only the static
shape of a tensor: ``Shape``, ``Size``). Its outputs become initializers:

- with values, when all inputs have values and the outputs are small (≤
  ``KEEP_VALUE_NUMEL`` elements): these are Reshape targets, Shape→Gather→Concat chains,
  slice bounds. Values are computed by the ONNX reference evaluator — one generic path
  for every operator, no per-operator folding code;
- without values (shape and dtype only), otherwise: weights built by
  ``ConstantOfShape``, transposed or dequantised weights, ``Constant`` weight tensors.

Deployment runtimes fold the same sub-graphs at load time, so these nodes are not compute
on any platform. Only the top-level graph is folded; sub-graph bodies are kept as they are.
"""

from __future__ import annotations

import math

import numpy as np
import onnx
from onnx import helper, numpy_helper

from nnlat.graph.passes.options import NormalizeOptions
from nnlat.graph.tensors import KEEP_VALUE_NUMEL, has_data


def _known_types(graph: onnx.GraphProto) -> dict[str, onnx.TypeProto]:
    types = {v.name: v.type for v in (*graph.input, *graph.value_info, *graph.output)}
    for tensor in graph.initializer:
        types[tensor.name] = helper.make_tensor_type_proto(tensor.data_type, list(tensor.dims))
    return types


def _static_shape(type_proto: onnx.TypeProto | None) -> list[int] | None:
    if type_proto is None or not type_proto.HasField("tensor_type"):
        return None
    tensor_type = type_proto.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    dims = tensor_type.shape.dim
    if not all(d.HasField("dim_value") for d in dims):
        return None
    return [d.dim_value for d in dims]


def _has_subgraph(node: onnx.NodeProto) -> bool:
    return any(
        a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute
    )


def _shape_op_value(node: onnx.NodeProto, shape: list[int]) -> np.ndarray:
    """The value of a ``Shape`` or ``Size`` node whose input shape is static."""
    if node.op_type == "Size":
        return np.array(math.prod(shape), dtype=np.int64)
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    rank = len(shape)
    start = attrs.get("start", 0)
    end = attrs.get("end", rank)
    return np.array(shape[slice(start, end)], dtype=np.int64)


def _evaluate(
    node: onnx.NodeProto, values: dict[str, np.ndarray], model: onnx.ModelProto
) -> list[np.ndarray] | None:
    """Run one node with the reference evaluator; None when it cannot."""
    identity = node.op_type == "Identity" and node.domain in ("", "ai.onnx")
    if identity and len(node.input) == 1 and node.input[0] in values:
        # Exporters put an Identity on shared weights and constants (47 in a torch
        # ResNet-50): its value is its input's. Skipping the evaluator spares its import
        # and operator registry, about 40 ms of CPU in `nnlat inspect`.
        return [values[node.input[0]]]
    # Imported on first use: most models fold no node by evaluation.
    from onnx.reference import ReferenceEvaluator

    inputs = [
        helper.make_tensor_value_info(
            name, helper.np_dtype_to_tensor_dtype(values[name].dtype), values[name].shape
        )
        for name in dict.fromkeys(i for i in node.input if i)
    ]
    outputs = [helper.make_empty_tensor_value_info(o) for o in node.output if o]
    graph = helper.make_graph([node], "fold", inputs, outputs)
    single = helper.make_model(graph, opset_imports=model.opset_import, ir_version=model.ir_version)
    try:
        results = ReferenceEvaluator(single).run(None, {i.name: values[i.name] for i in inputs})
    except Exception:  # the reference evaluator raises many types; keep the node then
        return None
    return [np.asarray(r) for r in results]


def fold_constants(model: onnx.ModelProto, options: NormalizeOptions) -> bool:
    """Fold constant nodes of the top-level graph in place.

    Returns:
        True when at least one node was folded (shapes should then be re-inferred).
    """
    graph = model.graph
    types = _known_types(graph)
    constants = {t.name for t in graph.initializer}
    # Converted to arrays only when a node is evaluated: most are never read by one.
    stored = {t.name: t for t in graph.initializer}
    values: dict[str, np.ndarray] = {}
    kept: list[onnx.NodeProto] = []
    folded: list[onnx.TensorProto] = []
    for node in graph.node:
        outputs = [o for o in node.output if o]
        reads = [i for i in node.input if i]
        shape_op = node.op_type in ("Shape", "Size") and node.domain in ("", "ai.onnx")
        if not shape_op and not (outputs and all(r in constants for r in reads)):
            kept.append(node)  # reads a run-time value: most nodes, so checked first
            continue
        shapes = [_static_shape(types.get(o)) for o in outputs]
        result: list[np.ndarray] | None = None
        if shape_op:
            shape = _static_shape(types.get(node.input[0]))
            if shape is not None:
                result = [_shape_op_value(node, shape)]
        elif _has_subgraph(node):  # (its reads are all constant: checked above)
            result = None
        elif all(r in values or (r in stored and has_data(stored[r])) for r in reads) and all(
            s is not None and math.prod(s) <= KEEP_VALUE_NUMEL for s in shapes
        ):
            for name in reads:
                if name not in values:
                    values[name] = numpy_helper.to_array(stored[name])
            result = _evaluate(node, values, model)
        if result is not None:
            for name, value in zip(outputs, result, strict=False):
                folded.append(numpy_helper.from_array(value, name))
                values[name] = value
                constants.add(name)
            continue
        placeholder = (
            not _has_subgraph(node)
            and outputs
            and all(r in constants for r in reads)
            and all(s is not None for s in shapes)
        )
        if placeholder:
            for name, shape in zip(outputs, shapes, strict=True):
                elem_type = types[name].tensor_type.elem_type  # type: ignore[union-attr]
                weight = onnx.TensorProto(name=name, data_type=elem_type)
                weight.dims.extend(shape)
                folded.append(weight)
                constants.add(name)
            continue
        kept.append(node)
    if not folded:
        return False
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(folded)
    produced = {t.name for t in folded}
    kept_info = [v for v in graph.value_info if v.name not in produced]
    del graph.value_info[:]
    graph.value_info.extend(kept_info)
    return True
