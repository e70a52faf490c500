"""Run ONNX shape inference, with data propagation so Shape→Gather chains resolve."""

from __future__ import annotations

import onnx
from onnx import shape_inference

from nnlat.errors import InvalidInputShapeError
from nnlat.graph.passes.options import NormalizeOptions


def infer_shapes(model: onnx.ModelProto, options: NormalizeOptions) -> None:
    """Infer every tensor's type and shape in place.

    Operators without a known schema (custom domains) keep unknown output shapes; they are
    not an error.

    Raises:
        InvalidInputShapeError: the input shapes contradict the model.
    """
    try:
        inferred = shape_inference.infer_shapes(
            model, check_type=False, strict_mode=False, data_prop=True
        )
    except (shape_inference.InferenceError, RuntimeError) as exc:
        raise InvalidInputShapeError(
            f"shape inference failed; the input shapes do not fit this model: {exc}"
        ) from None
    model.CopyFrom(inferred)
