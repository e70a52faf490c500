"""ONNX initializers and models written with ``onnx.helper``, as the builders need them."""

from __future__ import annotations

import math

import numpy as np
import onnx
from onnx import helper, numpy_helper


def helper_model(graph: onnx.GraphProto, opsets: dict[str, int]) -> onnx.ModelProto:
    """A model with the lowest IR version its opsets allow, as the exporters of its era wrote."""
    opset_imports = [helper.make_opsetid(domain, version) for domain, version in opsets.items()]
    ir_version = helper.find_min_ir_version_for(opset_imports, ignore_unknown=True)
    return helper.make_model(graph, opset_imports=opset_imports, ir_version=ir_version)


def random_weight(rng: np.random.Generator, name: str, *shape: int) -> onnx.TensorProto:
    """Seeded normal weights scaled by fan-in, as float32."""
    scale = 1.0 / math.sqrt(max(1, math.prod(shape[1:])))
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def int64_tensor(name: str, values: list[int]) -> onnx.TensorProto:
    """An int64 initializer (shapes, axes, pads)."""
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def float_tensor(name: str, values: list[float]) -> onnx.TensorProto:
    """A float32 initializer."""
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def float_scalar(name: str, value: float) -> onnx.TensorProto:
    """A float32 scalar initializer."""
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)
