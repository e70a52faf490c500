"""Fill attribute defaults so two graphs that mean the same thing look the same.

Defaults come from the operator schema (``onnx.defs.get_schema``) — one generic path.
The only special case is the family of windowed operators (convolutions and pooling),
whose list-valued defaults depend on the spatial rank and so have no schema default:
``kernel_shape`` (from the weight), ``strides`` and ``dilations`` of ones, zero ``pads``.
Operators no schema knows (custom domains) are left as they are.
"""

from __future__ import annotations

from functools import lru_cache

import onnx
from onnx import defs, helper

from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.passes.options import NormalizeOptions

WINDOWED_OPS = frozenset(
    {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool"}
)


@lru_cache(maxsize=1024)
def _schema(op_type: str, version: int, domain: str) -> defs.OpSchema | None:
    try:
        return defs.get_schema(op_type, version, domain)
    except defs.SchemaError:
        return None


@lru_cache(maxsize=1024)
def _defaults(op_type: str, version: int, domain: str) -> tuple[onnx.AttributeProto, ...]:
    """The schema's attributes that have a default, each named, ready to append.

    Cached: reading a schema's default builds a new proto each time, and a model asks
    for the same few operators again and again.
    """
    schema = _schema(op_type, version, domain)
    if schema is None:
        return ()
    found = []
    for name, spec in schema.attributes.items():
        default = spec.default_value
        if default.type == onnx.AttributeProto.UNDEFINED:
            continue
        attribute = onnx.AttributeProto()
        attribute.CopyFrom(default)
        attribute.name = name
        found.append(attribute)
    return tuple(found)


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
            domain = "" if node.domain == "ai.onnx" else node.domain
            key = (node.op_type, opsets.get(domain, 1), domain)
            schema = _schema(*key)
            if schema is None:
                continue
            present = {a.name for a in node.attribute}
            node.attribute.extend(a for a in _defaults(*key) if a.name not in present)
            if node.op_type in WINDOWED_OPS and node.domain in ("", "ai.onnx"):
                for name, value in _window_defaults(node, schema, weights).items():
                    node.attribute.append(helper.make_attribute(name, value))
