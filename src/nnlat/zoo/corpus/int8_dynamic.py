"""``int8-dynamic``: corpus models after ``onnxruntime.quantization.quantize_dynamic``.

``DynamicQuantizeLinear`` + ``MatMulInteger``, ``ConvInteger``, ``DynamicQuantizeLSTM``,
int8 embedding tables; see :mod:`nnlat.zoo.corpus.int8` (sizes are the base family's).
"""

from __future__ import annotations

from nnlat.zoo.corpus.export import no_module
from nnlat.zoo.corpus.int8 import input_shape, quantize, sample_dynamic
from nnlat.zoo.family import Family

FAMILY = Family(
    name="int8-dynamic",
    summary="corpus models after quantize_dynamic: MatMulInteger, ConvInteger, DynamicQuantizeLSTM",
    sample=sample_dynamic,
    build=no_module,
    input_shape=input_shape,
    export_onnx=lambda c: quantize(c, dynamic=True),
)
