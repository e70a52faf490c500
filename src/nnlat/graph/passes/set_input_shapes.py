"""Fix the graph inputs' shapes: overrides, batch size, defaults for dynamic dimensions.

After this pass every graph input has a static shape, and all inferred intermediate
shapes are cleared so that shape inference recomputes them for the new inputs.

A batch size that differs from an input's *fixed* batch re-batches the model only where
its graph allows: a ``Reshape`` or ``Expand`` fed by that input whose constant target
starts with the old batch (``x.view(1, -1)`` traced with a static batch) would keep it,
so the model could not run at the new batch. Such a model is refused, naming the nodes.
"""

from __future__ import annotations

import warnings

import onnx
from onnx import numpy_helper

from nnlat.errors import InvalidInputShapeError, NnlatWarning
from nnlat.graph.passes.infer_shapes import forget_inferred_shapes
from nnlat.graph.passes.options import (
    DEFAULT_BATCH,
    DEFAULT_DYNAMIC_DIM,
    DEFAULT_IMAGE_SIDE,
    NormalizeOptions,
)
from nnlat.graph.tensors import has_data


def _default_dim(axis: int, rank: int) -> int:
    if axis == 0:
        return DEFAULT_BATCH
    # A dynamic non-batch dim of an image is spatial in NCHW and NHWC (tf2onnx) inputs
    # alike: real models fix their channel count.
    if rank == 4:
        return DEFAULT_IMAGE_SIDE
    return DEFAULT_DYNAMIC_DIM


def set_input_shapes(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Make every graph input static and clear stale inferred shapes.

    Raises:
        InvalidInputShapeError: an override names no input, has the wrong rank or a
            non-positive dimension, or the batch size is not positive.
    """
    graph = model.graph
    weights = {t.name for t in graph.initializer}
    inputs = [v for v in graph.input if v.name not in weights]
    names = [v.name for v in inputs]
    if options.batch_size is not None and options.batch_size <= 0:
        raise InvalidInputShapeError(f"batch size must be positive, got {options.batch_size}")
    unknown = sorted(set(options.input_shapes) - set(names))
    if unknown:
        raise InvalidInputShapeError(
            f"--input-shape names {', '.join(unknown)}, but the model's inputs are: "
            f"{', '.join(names) or '(none)'}"
        )
    defaulted: list[str] = []
    model_batch = _model_batch(inputs)
    for value in inputs:
        tensor_type = value.type.tensor_type
        if not value.type.HasField("tensor_type"):
            continue  # sequence/map inputs keep their declared type
        dims = tensor_type.shape.dim
        override = options.input_shapes.get(value.name)
        if override is not None:
            if any(d <= 0 for d in override):
                raise InvalidInputShapeError(
                    f"input {value.name!r}: dimensions must be positive, got {override}"
                )
            if tensor_type.HasField("shape") and len(dims) != len(override):
                raise InvalidInputShapeError(
                    f"input {value.name!r} has rank {len(dims)}, but the override "
                    f"{'x'.join(map(str, override))} has rank {len(override)}"
                )
            new = list(override)
        elif not tensor_type.HasField("shape"):
            raise InvalidInputShapeError(
                f"input {value.name!r} has no declared shape; give one with "
                f"--input-shape {value.name}=DIMS"
            )
        else:
            new = []
            for axis, dim in enumerate(dims):
                if axis == 0 and _is_state(dim, model_batch, len(dims)):
                    new.append(dim.dim_value)
                elif axis == 0 and options.batch_size is not None:
                    if dim.HasField("dim_value") and dim.dim_value not in (0, options.batch_size):
                        _check_rebatchable(graph, value.name, dim.dim_value, options.batch_size)
                    new.append(options.batch_size)
                elif dim.HasField("dim_value") and dim.dim_value > 0:
                    new.append(dim.dim_value)
                else:
                    new.append(_default_dim(axis, len(dims)))
                    if axis > 0 or options.batch_size is None:
                        label = dim.dim_param or "?"
                        defaulted.append(f"{value.name}[{axis}] ({label}) = {new[-1]}")
        tensor_type.shape.ClearField("dim")
        for size in new:
            tensor_type.shape.dim.add().dim_value = size
    if defaulted:
        warnings.warn(
            "dynamic dimensions set to defaults: "
            + "; ".join(defaulted)
            + " (fix them with --input-shape NAME=DIMS / input_shapes=)",
            NnlatWarning,
            stacklevel=2,
        )
    # Stale inferred shapes (e.g. of the old batch size) would conflict with the new ones.
    forget_inferred_shapes(model)


def _model_batch(inputs: list[onnx.ValueInfoProto]) -> int | None:
    """The first input's fixed dimension 0: the batch the model was exported with (None
    when it is dynamic, or the first input is a scalar, a fixed vector or untyped)."""
    for value in inputs[:1]:
        dims = value.type.tensor_type.shape.dim
        if len(dims) > 1 and dims[0].HasField("dim_value") and dims[0].dim_value > 0:
            return dims[0].dim_value
    return None


def _is_state(dim: onnx.TensorShapeProto.Dimension, model_batch: int | None, rank: int) -> bool:
    """Whether a fixed dimension 0 is not the batch: it differs from the first input's
    batch (or that one is dynamic), like an RNN state ``[layers × directions, batch,
    hidden]`` beside an ``[batch, samples]`` input, or it is the only dimension of a
    fixed vector (a streaming model's ``[512]`` audio frame: a sample, not a batch of
    scalars); it keeps its size whatever the batch."""
    fixed = dim.HasField("dim_value") and dim.dim_value > 0
    return fixed and dim.dim_value != 1 and (rank == 1 or dim.dim_value != model_batch)


# Ops whose second input is a target shape; a constant one can hard-code the batch.
_SHAPE_TARGET_OPS = ("Reshape", "Expand")


def _check_rebatchable(graph: onnx.GraphProto, name: str, fixed: int, batch: int) -> None:
    """Refuse to re-batch input ``name`` from ``fixed`` to ``batch`` if a node hard-codes it.

    Raises:
        InvalidInputShapeError: a Reshape/Expand fed by the input has a constant target
            shape that starts with the fixed batch.
    """
    constants = {t.name: t for t in graph.initializer if has_data(t)}
    for node in graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            constants[node.output[0]] = node.attribute[0].t
    reached = {name}
    blocking: list[str] = []
    for node in graph.node:  # topological order (the toposort pass ran before)
        if not reached.intersection(node.input):
            continue
        reached.update(node.output)
        if node.op_type in _SHAPE_TARGET_OPS and node.input[0] in reached:
            target = constants.get(node.input[1]) if len(node.input) > 1 else None
            values = [] if target is None else numpy_helper.to_array(target).reshape(-1).tolist()
            if values[:1] == [fixed]:
                blocking.append(f"{node.op_type} {node.name or node.output[0]} {values}")
    if blocking:
        more = f" and {len(blocking) - 1} more" if len(blocking) > 1 else ""
        raise InvalidInputShapeError(
            f"input {name!r} has a fixed batch of {fixed}, hard-coded by {blocking[0]}{more}: "
            f"it cannot run at batch {batch}; export the model with a dynamic batch axis"
        )
