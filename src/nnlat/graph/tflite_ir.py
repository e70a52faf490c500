"""A TFLite model straight into the IR, without the ONNX round trip.

The ONNX route (:func:`~nnlat.graph.tflite_io.converted_to_onnx`, the normalisation
pipeline, :func:`~nnlat.graph.onnx_io.model_to_ir`) builds a protobuf graph, forgets the
shapes the file states, infers them again three times and converts the result. On a
converted TFLite model that pipeline does three things: it orders the nodes (Kahn's, as
:func:`~nnlat.graph.passes.toposort.topological_order` gives it), fills the attributes'
schema defaults, and folds a node that reads constants only (the ``Cast`` that widens
float16 weights) into a constant of its output's type, dropping the constants only it
read. :func:`converted_to_ir` does these three on the converter's records and keeps the
file's shapes. Anything else the pipeline would do, it does only to a model that holds

* an operator whose results nobody reads (pruned),
* a no-op (``Identity``), a non-positive dimension, a tensor without a declared shape,
* a 0-D/1-D tensor over the value-propagation limit, or any tensor over the size limit
  (the ONNX route names it in its error);

for such a model :func:`converted_to_ir` returns ``None`` and the caller takes the ONNX
route. The storage form (:attr:`Graph.onnx_bytes`) is made the ONNX way, on first use. A
test loads every TFLite model the suite can make both ways and compares the graphs field
by field (``tests/graph/test_tflite_ir.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from nnlat.graph.ir import AttrValue, Graph, Node, TensorSpec
from nnlat.graph.onnx_io import attribute_value, dtype_name
from nnlat.graph.passes.canonical_attributes import (
    WINDOWED_OPS,
    schema_defaults,
    window_defaults,
)
from nnlat.graph.passes.toposort import topological_order
from nnlat.graph.tflite_io import (
    ONNX_OPSET,
    TFLITE_DOMAIN,
    Converted,
    ConvertedNode,
    ConvertedTensor,
)
from nnlat.limits import Limits

# Operators the normalisation pipeline removes or evaluates whatever their inputs.
_REWRITTEN = frozenset({"Identity", "Dropout", "Shape", "Size", "Constant"})


def converted_to_ir(
    converted: Converted, limits: Limits, storage: Callable[[], bytes]
) -> Graph | None:
    """The normalised graph of a converted TFLite model, or None where only the ONNX
    route gives it (see the module docstring).

    Args:
        converted: the model read by :func:`~nnlat.graph.tflite_io.read_converted`.
        limits: the limits the ONNX route would check (a model over one returns None).
        storage: makes the storage form when :attr:`Graph.onnx_bytes` is first read.

    Example:
        >>> from nnlat.graph.tflite_io import read_converted
        >>> from nnlat.limits import DEFAULT_LIMITS
        >>> from nnlat.testing.tflite_models import handmade_tflite
        >>> converted = read_converted(handmade_tflite("MUL", (1, 4)))
        >>> graph = converted_to_ir(converted, DEFAULT_LIMITS, lambda: b"")
        >>> [n.op_type for n in graph.nodes], graph.outputs[0].shape
        (['Mul'], (1, 4))
    """
    specs = _specs(converted, limits)
    nodes = converted.nodes
    order = topological_order([n.inputs for n in nodes], [n.outputs for n in nodes])
    kept, folded = _fold(converted, order)
    if specs is None or not _kept_as_is(converted, kept, specs):
        return None
    # Pruning drops the constants only folded nodes read (float16 weights once widened).
    read = {name for i in kept for name in nodes[i].inputs} | {t.name for t in converted.outputs}
    weights = {name: specs[name] for name in (*converted.constants, *folded) if name in read}
    dropped = (set(converted.constants) | set(folded)) - set(weights)
    return Graph(
        nodes=tuple(
            Node(
                name=node.name,
                op_type=node.op_type,
                domain=node.domain,
                attributes=_attributes(node, weights),
                inputs=node.inputs,
                outputs=node.outputs,
            )
            for node in (nodes[i] for i in kept)
        ),
        inputs=tuple(specs[t.name] for t in converted.inputs),
        outputs=tuple(specs[t.name] for t in converted.outputs),
        weights=weights,
        tensors={name: spec for name, spec in specs.items() if name not in dropped},
        opsets={"": ONNX_OPSET, TFLITE_DOMAIN: 1},
        storage=storage,
    )


def _fold(converted: Converted, order: list[int]) -> tuple[list[int], list[str]]:
    """The nodes normalisation keeps, in order, and the tensors it turns into constants:
    the outputs of every node that reads constants only (the widening ``Cast`` of float16
    weights), in one pass in topological order, as ``fold_constants`` does."""
    constants = set(converted.constants)
    kept, folded = [], []
    for i in order:
        node = converted.nodes[i]
        reads = [name for name in node.inputs if name]
        outputs = [name for name in node.outputs if name]
        if outputs and all(name in constants for name in reads):
            constants.update(outputs)
            folded.extend(outputs)
        else:
            kept.append(i)
    return kept, folded


def _specs(converted: Converted, limits: Limits) -> dict[str, TensorSpec] | None:
    """Every tensor's type with its quantisation; None when a shape is not positive or a
    tensor is over ``limits`` (then the ONNX route refuses it with its own message)."""
    quant = converted.quant
    specs: dict[str, TensorSpec] = {}
    groups: Sequence[Sequence[ConvertedTensor]] = (
        converted.value_info,
        converted.inputs,
        converted.outputs,
        list(converted.constants.values()),
    )
    for group in groups:
        for t in group:
            shape = tuple(t.shape)
            elements = math.prod(shape)
            if any(d <= 0 for d in shape) or elements > limits.max_tensor_elements:
                return None
            if len(shape) <= 1 and elements > limits.max_value_elements:
                return None
            dtype, itemsize = dtype_name(t.elem_type)
            specs[t.name] = TensorSpec(t.name, dtype, shape, itemsize, quant.get(t.name))
    return specs


def _kept_as_is(converted: Converted, kept: list[int], specs: dict[str, TensorSpec]) -> bool:
    """Whether normalisation would keep every node of ``kept`` (the nodes left after
    folding, in topological order): no no-op to drop, no dead node to prune, and every
    tensor a node makes has a declared type."""
    nodes = converted.nodes
    for node in (nodes[i] for i in kept):
        if node.domain == "" and node.op_type in _REWRITTEN:
            return False
        if not all(out in specs for out in node.outputs if out):
            return False
    live = {t.name for t in converted.outputs}
    for node in (nodes[i] for i in reversed(kept)):
        if not any(out in live for out in node.outputs if out):
            return False  # dead: pruned
        live.update(node.inputs)
    return True


def _attributes(
    node: ConvertedNode, weights: dict[str, TensorSpec]
) -> tuple[tuple[str, AttrValue], ...]:
    """The node's attributes as the ONNX route leaves them: the converter's values as a
    protobuf would hold them, then the schema's defaults, sorted by name."""
    op_type, inputs = node.op_type, node.inputs
    values = {name: _as_stored(value) for name, value in node.attributes.items()}
    if node.domain == "":
        for name, value in _default_values(op_type):
            values.setdefault(name, value)
        if op_type in WINDOWED_OPS:
            weight = weights.get(inputs[1]) if len(inputs) > 1 else None
            shape = weight.shape if weight is not None else None
            for name, value in window_defaults(op_type, ONNX_OPSET, values, shape).items():
                values[name] = tuple(value)
    return tuple(sorted(values.items()))


@lru_cache(maxsize=256)
def _default_values(op_type: str) -> tuple[tuple[str, AttrValue], ...]:
    return tuple((a.name, attribute_value(a, {})) for a in schema_defaults(op_type, ONNX_OPSET, ""))


def _as_stored(value: Any) -> AttrValue:
    """A converter attribute value as it reads back from an ONNX attribute: floats
    through float32, lists as tuples, booleans as integers."""
    if isinstance(value, list | tuple):
        if any(isinstance(v, float | np.floating) for v in value):
            return tuple(float(np.float32(v)) for v in value)
        return tuple(int(v) for v in value)
    if isinstance(value, bool | int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(np.float32(value))
    return value
