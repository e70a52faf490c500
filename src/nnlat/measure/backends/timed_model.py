"""What an ONNX runtime times: the user's own model where nnlat has it, else the normal form.

``nnlat.graph.load`` turns a model into a weight-free normal form (:attr:`Graph.onnx_bytes`)
that is hashed, costed and featurised. Timing that form would time nnlat's rewrite, not
the user's model: a rewrite can fail where the runtime would not (shape inference of an
LSTM inside an ``If`` branch) or change what the runtime fuses. So when the user gave an
ONNX model with its weights (a path, bytes or a ModelProto, kept by
:func:`~nnlat.measure.backends.base.graph_for` in :attr:`Graph.source_bytes`), onnxruntime
and OpenVINO run **that model**:

* ``original`` — the user's file as given, fed inputs of the shapes the query asked for
  (its dynamic dimensions take them);
* ``original+generated-weights`` — the same, with seeded weights
  (:func:`~nnlat.measure.inputs.materialize_weights`) only where the file has none
  (external data that was not read, or weights stripped by hand);
* ``original, inputs re-declared`` — a dimension the file fixes differs from the one
  asked for (``-b 8`` on a batch-1 export). The only edit is to the graph inputs' declared
  shapes (and the dropped ``value_info`` that repeated the old ones); nodes and weights
  stay the user's. A re-batching that the model's nodes do not allow (a ``Reshape`` to
  ``[1, -1]``) is refused by ``load`` before this point. The first run's output shapes
  are checked against those the normal form infers, so a re-declared model that silently
  computes something else fails the measurement instead of being timed. This is chosen
  over timing the normal form after an output comparison because that comparison needs
  the same weights in both forms, and the normal form has folded and renamed some of them;
* ``normal-form`` — zoo models, graphs from the store and weight-free files: there is no
  user's file with weights, so the normal form with seeded weights is timed, as before.

The form timed is recorded in the measurement's ``environment["timed"]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import onnx

from nnlat.graph.ir import Graph, TensorSpec
from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.tensors import KEEP_VALUE_NUMEL, has_data, numel
from nnlat.measure.inputs import materialize_weights

ORIGINAL = "original"
ORIGINAL_GENERATED_WEIGHTS = "original+generated-weights"
REDECLARED = "original, inputs re-declared"
NORMAL_FORM = "normal-form"


class OutputShapeMismatchError(RuntimeError):
    """The re-declared original computes outputs of other shapes than the normal form."""


@dataclass(frozen=True)
class TimedModel:
    """The model a runtime should time, and which form it is.

    Attributes:
        proto: a runnable ModelProto (weights present).
        form: ``"original"``, ``"original+generated-weights"``, ``"original, inputs
            re-declared"`` (possibly with ``+generated-weights``) or ``"normal-form"``.
        expected_output_shapes: output name → static shape the first run must produce
            (only for a re-declared original; empty otherwise).
    """

    proto: onnx.ModelProto
    form: str
    expected_output_shapes: Mapping[str, tuple[int, ...]]

    def check_outputs(self, names: Sequence[str], outputs: Sequence[np.ndarray]) -> None:
        """Raise when a re-declared model's outputs differ in shape from the normal form's.

        Raises:
            OutputShapeMismatchError: an output's shape differs.
        """
        for name, value in zip(names, outputs, strict=False):
            wanted = self.expected_output_shapes.get(name)
            if wanted is not None and tuple(np.shape(value)) != wanted:
                raise OutputShapeMismatchError(
                    f"with its inputs re-declared to the shapes asked for, the model's output "
                    f"{name!r} has shape {list(np.shape(value))}, not {list(wanted)}: export "
                    "the model with a dynamic axis for the dimension you change"
                )


def _weightless(model: onnx.ModelProto) -> tuple[int, int]:
    """(large tensors without values, large tensors) over every (sub-)graph."""
    missing = total = 0
    for graph in iter_graphs(model.graph):
        tensors = [
            *graph.initializer,
            *(a.t for n in graph.node if n.op_type == "Constant" for a in n.attribute),
        ]
        for tensor in tensors:
            if numel(tensor) > KEEP_VALUE_NUMEL:
                total += 1
                missing += not has_data(tensor)
    return missing, total


def _declared(value: onnx.ValueInfoProto) -> tuple[int | None, ...] | None:
    if not value.type.tensor_type.HasField("shape"):
        return None
    return tuple(
        d.dim_value if d.HasField("dim_value") else None for d in value.type.tensor_type.shape.dim
    )


def _accepts(declared: tuple[int | None, ...] | None, asked: tuple[int, ...]) -> bool:
    if declared is None:
        return True
    return len(declared) == len(asked) and all(
        d in (None, a) for d, a in zip(declared, asked, strict=True)
    )


def _redeclare(model: onnx.ModelProto, inputs: Sequence[TensorSpec]) -> None:
    asked = {s.name: tuple(int(d) for d in s.shape or ()) for s in inputs}
    for value in model.graph.input:
        if value.name in asked:
            shape = value.type.tensor_type.shape
            shape.ClearField("dim")
            for dim in asked[value.name]:
                shape.dim.add().dim_value = dim
    # Recorded shapes of intermediates and outputs were for the old inputs: the runtime
    # infers them again.
    model.graph.ClearField("value_info")
    for value in model.graph.output:
        if value.type.HasField("tensor_type"):  # not a sequence or map (ZipMap's output)
            value.type.tensor_type.ClearField("shape")


def timed_model(graph: Graph, seed: int) -> TimedModel:
    """The model to time for ``graph`` (see the module docstring for the rule).

    Args:
        graph: the graph as :func:`~nnlat.measure.backends.base.graph_for` made it, with
            the input shapes to time.
        seed: the seed of generated weights.

    Returns:
        The :class:`TimedModel`.

    Example:
        >>> from nnlat.measure.backends.base import graph_for
        >>> from nnlat.measure.types import MeasureSpec
        >>> from nnlat.testing import tiny_model
        >>> timed_model(graph_for(tiny_model(), MeasureSpec()), 0).form
        'original'
        >>> from nnlat.graph import load
        >>> timed_model(load(tiny_model()), 0).form
        'normal-form'
    """
    if graph.source_format != "onnx" or not graph.source_bytes:
        return TimedModel(materialize_weights(graph.onnx_bytes, seed), NORMAL_FORM, {})
    original = onnx.load_from_string(graph.source_bytes)
    missing, total = _weightless(original)
    if total and missing == total:  # a weight-free file: nothing of the user's to keep
        return TimedModel(materialize_weights(graph.onnx_bytes, seed), NORMAL_FORM, {})
    form = ORIGINAL
    if missing:
        original = materialize_weights(original.SerializeToString(), seed)
        form = ORIGINAL_GENERATED_WEIGHTS
    declared = {v.name: _declared(v) for v in original.graph.input}
    asked = {s.name: tuple(int(d) for d in s.shape or ()) for s in graph.inputs}
    if all(_accepts(declared.get(name), shape) for name, shape in asked.items()):
        return TimedModel(original, form, {})
    _redeclare(original, graph.inputs)
    expected = {
        s.name: tuple(int(d) for d in s.shape)  # type: ignore[union-attr, arg-type]
        for s in graph.outputs
        if s.is_static
    }
    return TimedModel(original, form.replace(ORIGINAL, REDECLARED, 1), expected)
