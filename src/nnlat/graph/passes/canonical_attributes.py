"""Fill attribute defaults so two graphs that mean the same thing look the same.

Defaults come from the operator schema (``onnx.defs.get_schema``) — one generic path.
The only special case is the family of windowed operators (convolutions and pooling),
whose list-valued defaults depend on the spatial rank and so have no schema default:
``kernel_shape`` (from the weight), ``strides`` and ``dilations`` of ones, zero ``pads``.
Operators no schema knows (custom domains) are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

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
def schema_defaults(op_type: str, version: int, domain: str) -> tuple[onnx.AttributeProto, ...]:
    """The schema's attributes that have a default, each named, ready to append.

    Cached: reading a schema's default builds a new proto each time, and a model asks
    for the same few operators again and again.

    Example:
        >>> sorted(a.name for a in schema_defaults("Gemm", 20, ""))
        ['alpha', 'beta', 'transA', 'transB']
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


def window_defaults(
    op_type: str,
    version: int,
    present: Mapping[str, Any],
    weight_shape: Sequence[int] | None,
) -> dict[str, list[int]]:
    """The list-valued defaults a windowed operator (:data:`WINDOWED_OPS`) lacks.

    Args:
        op_type, version: the operator and the model's default-domain opset.
        present: the node's attributes by name (``auto_pad`` as str or bytes).
        weight_shape: the shape of its weight input, when that is a known initializer.

    Example:
        >>> window_defaults("MaxPool", 20, {"kernel_shape": [3, 3], "auto_pad": "VALID"}, None)
        {'strides': [1, 1], 'dilations': [1, 1]}
    """
    schema = _schema(op_type, version, "")
    kernel = present.get("kernel_shape")
    if kernel is None:
        if weight_shape is None:
            return {}
        kernel = list(weight_shape)[2:]
    rank = len(kernel)
    wanted = {"kernel_shape": list(kernel), "strides": [1] * rank, "dilations": [1] * rank}
    if present.get("auto_pad", b"NOTSET") in (b"NOTSET", "NOTSET"):
        wanted["pads"] = [0] * (2 * rank)
    known = schema.attributes if schema is not None else {}
    return {k: v for k, v in wanted.items() if k not in present and k in known}


def canonical_attributes(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Add every missing attribute that has a default, in place."""
    opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    for graph in iter_graphs(model.graph):
        weights = {t.name: list(t.dims) for t in graph.initializer}
        for node in graph.node:
            domain = "" if node.domain == "ai.onnx" else node.domain
            key = (node.op_type, opsets.get(domain, 1), domain)
            if _schema(*key) is None:
                continue
            present = {a.name for a in node.attribute}
            node.attribute.extend(a for a in schema_defaults(*key) if a.name not in present)
            if node.op_type in WINDOWED_OPS and domain == "":
                values = {a.name: helper.get_attribute_value(a) for a in node.attribute}
                weight = 3 if node.op_type == "QLinearConv" else 1
                shape = weights.get(node.input[weight]) if len(node.input) > weight else None
                for name, value in window_defaults(node.op_type, key[1], values, shape).items():
                    node.attribute.append(helper.make_attribute(name, value))
