"""Valid values for integer model inputs, derived from how the graph uses them.

An integer input is a token id, a position, a mask, a count or an index, and a random
value of the wrong kind makes the model fail (an index out of its table) or run a
different amount of work (a loop of 10⁹ iterations). :func:`integer_range` follows the
input forward through value-preserving views (``Cast``, ``Reshape``, ``Unsqueeze``, …)
and ``Add``/``Sub`` of a constant (which shifts the range), and reads its use:

* **index** into a table — ``Gather``/``GatherElements``/``ScatterElements`` (the
  ``axis`` dimension of the data) and ``GatherND`` (the indices' last dimension indexes
  the data's dimensions after ``batch_dims``: every one of them bounds the values):
  values in ``[0, rows)``, shifted back by the constant added on the way;
* **mask** — an input named like ``*mask*``, or one that reaches ``Where``'s condition,
  ``Not``/``And``/``Or``/``Xor`` or a ``Cast`` to bool: 0/1, the first position of the
  last axis always 1 so that no row is masked out entirely (a softmax over nothing);
* **count** — a ``Range`` start, limit or delta, or a ``Loop`` trip count: ``[1,
  MAX_COUNT]``, so a loop runs a few times and a range is never empty or endless;
* anything else: ``[0, bound)`` with ``bound = min(MAX_INT_INPUT, the smallest
  non-batch dimension of any graph input)``, so a length never exceeds a sequence.

An index range is capped at ``MAX_INT_INPUT`` only: the smallest input dimension is no
bound for it (a GatherND's index depth of 2 is not the size of the table it indexes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper

from nnlat.graph.ir import Graph, Node
from nnlat.graph.tensors import has_data

MAX_INT_INPUT = 100  # upper bound (exclusive) of random integer inputs of no known use
MAX_COUNT = 8  # the largest Range bound or Loop trip count generated
# Ops an integer input passes through unchanged in value on its way to an index.
VIEW_OPS = frozenset(
    {"Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity", "Expand", "Transpose"}
)
# (op, input slot) that use a tensor as indices into input 0, along attribute "axis".
INDEX_SLOTS = frozenset({("Gather", 1), ("GatherElements", 1), ("ScatterElements", 1)})
_BOOLEAN_OPS = frozenset({"Not", "And", "Or", "Xor"})
_BOOL = onnx.TensorProto.BOOL


@dataclass(frozen=True)
class IntegerRange:
    """The values to draw for one integer input: ``[low, high)``.

    Attributes:
        low: smallest value (inclusive).
        high: bound (exclusive); always above ``low``.
        kind: ``"index"``, ``"mask"``, ``"count"`` or ``"default"``.
    """

    low: int
    high: int
    kind: str


def _constants(graph: Graph) -> dict[str, np.ndarray]:
    """Values of the small constants the storage form keeps (offsets added to ids)."""
    if not graph.onnx_bytes:
        return {}
    body = onnx.load_from_string(graph.onnx_bytes).graph
    found = {t.name: numpy_helper.to_array(t) for t in body.initializer if has_data(t)}
    for node in body.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value" and has_data(attr.t):
                    found[node.output[0]] = numpy_helper.to_array(attr.t)
    return found


def _default_bound(graph: Graph) -> int:
    bound = MAX_INT_INPUT
    for spec in graph.inputs:
        dims = [d for d in (spec.shape or ())[1:] if d is not None and d > 1]
        if dims:
            bound = min(bound, *dims)
    return bound


def _rows(graph: Graph, node: Node, slot: int) -> int | None:
    """How many values an index in input ``slot`` of ``node`` may take, if it is an index."""
    table = graph.spec(node.inputs[0])
    if table is None or not table.shape:
        return None
    if (node.op_type, slot) in INDEX_SLOTS:
        axis = int(node.attr("axis", 0))  # type: ignore[arg-type]
        return table.shape[axis] if -len(table.shape) <= axis < len(table.shape) else None
    if (node.op_type, slot) == ("GatherND", 1):
        indices = graph.spec(node.inputs[1])
        depth = indices.shape[-1] if indices is not None and indices.shape else None
        batch_dims = int(node.attr("batch_dims", 0))  # type: ignore[arg-type]
        if depth is None:
            return None
        dims = table.shape[batch_dims : batch_dims + depth]
        return None if None in dims or not dims else min(dims)  # type: ignore[type-var]
    return None


def integer_range(graph: Graph, name: str) -> IntegerRange:
    """The range of valid random values for integer input ``name`` (module docstring).

    Args:
        graph: the graph the input belongs to.
        name: the input's name.

    Returns:
        The :class:`IntegerRange` to draw from.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.zoo.realworld import bert_encoder
        >>> g = load(bert_encoder(), input_shapes={"input_ids": (1, 64), "attention_mask": (1, 64)})
        >>> integer_range(g, "input_ids"), integer_range(g, "attention_mask").kind
        (IntegerRange(low=0, high=100, kind='index'), 'mask')
    """
    constants: dict[str, np.ndarray] | None = None
    low, high, kind = 0, MAX_INT_INPUT, "mask" if "mask" in name.lower() else "default"
    # (tensor, smallest and largest constant added to the input on the way)
    frontier, seen = [(name, 0, 0)], {name}
    while frontier:
        tensor, shift_lo, shift_hi = frontier.pop()
        for index in graph.consumers.get(tensor, ()):
            node = graph.nodes[index]
            follow: tuple[int, int] | None = None
            if node.op_type in VIEW_OPS and node.inputs[0] == tensor:
                if node.op_type == "Cast" and node.attr("to") == _BOOL:
                    kind = "mask"
                follow = (shift_lo, shift_hi)
            elif node.op_type in {"Add", "Sub"} and len(node.inputs) == 2:
                constants = _constants(graph) if constants is None else constants
                other = node.inputs[1] if node.inputs[0] == tensor else node.inputs[0]
                value = constants.get(other)
                if value is not None and value.size and value.dtype.kind in "iu":
                    sign = -1 if node.op_type == "Sub" and other == node.inputs[1] else 1
                    lo, hi = sorted((sign * int(value.min()), sign * int(value.max())))
                    follow = (shift_lo + lo, shift_hi + hi)
            if follow is not None:
                for out in node.outputs:
                    if out and out not in seen:
                        seen.add(out)
                        frontier.append((out, *follow))
            for slot, used in enumerate(node.inputs):
                if used != tensor:
                    continue
                if (node.op_type == "Where" and slot == 0) or node.op_type in _BOOLEAN_OPS:
                    kind = "mask"
                elif node.op_type == "Range" or (node.op_type, slot) == ("Loop", 0):
                    kind = "count"
                rows = _rows(graph, node, slot)
                if rows is not None:
                    # index + shift must lie in [0, rows) for every shift added on the way
                    low, high = max(low, -shift_lo), min(high, rows - shift_hi)
                    kind = "index" if kind == "default" else kind
    if kind == "mask":
        return IntegerRange(0, 2, "mask")
    if kind == "count":
        return IntegerRange(1, MAX_COUNT + 1, "count")
    if kind == "default":
        return IntegerRange(0, _default_bound(graph), kind)
    return IntegerRange(low, max(high, low + 1), kind)


def integer_values(
    graph: Graph, name: str, shape: tuple[int, ...], dtype: str, rng: np.random.Generator
) -> np.ndarray:
    """Seeded random values for integer input ``name``, valid for its use in ``graph``.

    Args:
        graph: the graph the input belongs to.
        name: the input's name.
        shape: the array's shape.
        dtype: its numpy dtype name (``"int64"``).
        rng: the random generator.

    Returns:
        An array (never a NumPy scalar) of ``shape`` and ``dtype``.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.zoo.realworld import bert_encoder
        >>> g = load(bert_encoder(), input_shapes={"input_ids": (1, 8), "attention_mask": (1, 8)})
        >>> integer_values(g, "attention_mask", (1, 8), "int64", np.random.default_rng(0))[0, 0]
        np.int64(1)
    """
    valid = integer_range(graph, name)
    values = np.asarray(rng.integers(valid.low, valid.high, size=shape)).astype(dtype)
    if valid.kind == "mask" and values.ndim:
        values[..., 0] = 1
    return values
