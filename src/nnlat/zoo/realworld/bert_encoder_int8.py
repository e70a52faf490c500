"""``bert_encoder()`` after ``onnxruntime.quantization.quantize_dynamic`` (int8).

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import onnx

from nnlat.zoo.realworld.bert_encoder import bert_encoder
from nnlat.zoo.realworld.export import quantize_int8


def bert_encoder_int8() -> onnx.ModelProto:
    """:func:`bert_encoder` after ``onnxruntime.quantization.quantize_dynamic`` (int8).

    What a CPU-serving pipeline ships: every weight ``MatMul`` becomes
    ``DynamicQuantizeLinear`` + ``MatMulInteger`` + ``Cast``/``Mul`` rescaling, and the
    embedding tables become int8 ``Gather`` + ``DequantizeLinear``.
    """
    return quantize_int8(bert_encoder(), {"MatMulInteger", "DynamicQuantizeLinear"})
