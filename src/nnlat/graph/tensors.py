"""Small facts about TensorProto initializers, shared by the wire reader and the passes."""

from __future__ import annotations

import math

import onnx

# Constant tensors up to this many elements keep their values: shape targets, axes,
# scales and pads are needed by shape inference; anything larger is a weight.
KEEP_VALUE_NUMEL = 64

_DATA_FIELDS = (
    "raw_data",
    "float_data",
    "int32_data",
    "int64_data",
    "double_data",
    "uint64_data",
    "string_data",
)


def numel(tensor: onnx.TensorProto) -> int:
    """Number of elements of an initializer, from its dims."""
    return math.prod(tensor.dims)


def has_data(tensor: onnx.TensorProto) -> bool:
    """True when the initializer carries its values (an empty tensor always does)."""
    # ListFields names only the fields that are set: one C call instead of eight getattrs.
    return numel(tensor) == 0 or any(
        f.name in _DATA_FIELDS and len(value) > 0 for f, value in tensor.ListFields()
    )


def drop_data(tensor: onnx.TensorProto) -> None:
    """Remove the values of an initializer, keeping name, dtype and dims."""
    for name in _DATA_FIELDS:
        tensor.ClearField(name)
    tensor.ClearField("external_data")
    tensor.data_location = onnx.TensorProto.DEFAULT
