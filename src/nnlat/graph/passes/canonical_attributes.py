"""Fill attribute defaults so two graphs that mean the same thing look the same.

Defaults come from the operator schema (``onnx.defs.get_schema``) — one generic path.
The only special case is the family of windowed operators (convolutions and pooling),
whose list-valued defaults depend on the spatial rank and so have no schema default:
``kernel_shape`` (from the weight), ``strides`` and ``dilations`` of ones, zero ``pads``.
Operators no schema knows (custom domains) are left as they are.
"""

from __future__ import annotations

import onnx
from onnx import defs, helper

from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.passes.options import NormalizeOptions

WINDOWED_OPS = frozenset(
    {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool"}
)


def _schema(node: onnx.NodeProto, opsets: dict[str, int]) -> defs.OpSchema | None:
    domain = "" if node.domain == "ai.onnx" else node.domain
    try:
        return defs.get_schema(node.op_type, opsets.get(domain, 1), domain)
    except defs.SchemaError:
        return None


def _window_defaults(
    node: onnx.NodeProto, schema: defs.OpSchema, weights: dict[str, list[int]]
) -> dict[str, list[int]]:
    present = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    kernel = present.get("kernel_shape")
    if kernel is None:
        weight_index = 3 if node.op_type == "QLinearConv" else 1
        if len(node.input) <= weight_index or node.input[weight_index] not in weights:
            return {}
        kernel = weights[node.input[weight_index]][2:]
    rank = len(kernel)
    wanted = {"kernel_shape": list(kernel), "strides": [1] * rank, "dilations": [1] * rank}
    if present.get("auto_pad", b"NOTSET") in (b"NOTSET", "NOTSET"):
        wanted["pads"] = [0] * (2 * rank)
    return {k: v for k, v in wanted.items() if k not in present and k in schema.attributes}


def canonical_attributes(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Add every missing attribute that has a default, in place."""
    opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    for graph in iter_graphs(model.graph):
        weights = {t.name: list(t.dims) for t in graph.initializer}
        for node in graph.node:
            schema = _schema(node, opsets)
            if schema is None:
                continue
            present = {a.name for a in node.attribute}
            for name, spec in schema.attributes.items():
                default = spec.default_value
                if name in present or default.type == onnx.AttributeProto.UNDEFINED:
                    continue
                attribute = onnx.AttributeProto()
                attribute.CopyFrom(default)
                attribute.name = name
                node.attribute.append(attribute)
            if node.op_type in WINDOWED_OPS and node.domain in ("", "ai.onnx"):
                for name, value in _window_defaults(node, schema, weights).items():
                    node.attribute.append(helper.make_attribute(name, value))
