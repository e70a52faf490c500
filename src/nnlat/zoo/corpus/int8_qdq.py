"""``int8-qdq``: corpus models after ``onnxruntime.quantization.quantize_static``.

Random seeded calibration; QDQ (``QuantizeLinear``/``DequantizeLinear`` pairs) or operator
format (``QLinearConv``, ``QLinearMatMul``...); see :mod:`nnlat.zoo.corpus.int8` (sizes
are the base family's).
"""

from __future__ import annotations

from nnlat.zoo.corpus.export import no_module
from nnlat.zoo.corpus.int8 import input_shape, quantize, sample_static
from nnlat.zoo.family import Family

FAMILY = Family(
    name="int8-qdq",
    summary="corpus models after quantize_static (random calibration): QDQ or QLinear ops",
    sample=sample_static,
    build=no_module,
    input_shape=input_shape,
    export_onnx=lambda c: quantize(c, dynamic=False),
)
