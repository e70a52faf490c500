"""A small TFLite regression corpus, converted offline from tiny Keras models.

Each model is built in a few lines of Keras and converted by TensorFlow's own converter
in one of three flavours that cover what users hand in:

* ``float``: float32 throughout;
* ``dynamic``: float activations with int8 weights (dynamic-range quantisation);
* ``float16``: float16 weights dequantised to float32 by ``DEQUANTIZE`` operators;
* ``int8``: fully integer, int8 inputs and outputs, calibrated on seeded random data.

TensorFlow is imported only when a model is built; nothing is downloaded.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

QUANTIZATIONS = ("float", "dynamic", "float16", "int8", "sparse")
"""Conversions of a corpus model: float32, dynamic-range int8 weights, float16 weights,
full int8, and ``sparse`` (float32 with 90 % of every kernel zeroed and stored sparse,
which the converter densifies with ``DENSIFY`` operators)."""


def _cnn(keras: Any) -> Any:
    x = keras.Input((16, 16, 3), batch_size=1)
    y = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    y = keras.layers.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6")(y)
    y = keras.layers.Conv2D(8, 1)(y)
    z = keras.layers.MaxPooling2D(2, padding="same")(x)
    z = keras.layers.Conv2D(8, (3, 1), padding="same")(z)
    y = keras.layers.Add()([y, z])
    y = keras.layers.Concatenate()([y, z])
    y = keras.layers.AveragePooling2D(2)(y)
    y = keras.layers.Reshape((-1,))(y)
    y = keras.layers.Dense(10)(y)
    return keras.Model(x, keras.layers.Softmax()(y))


def _kws(keras: Any) -> Any:
    x = keras.Input((49, 10, 1), batch_size=1)
    y = keras.layers.Conv2D(16, (10, 4), strides=(2, 2), padding="same", activation="relu")(x)
    y = keras.layers.DepthwiseConv2D((3, 3), padding="same", activation="relu")(y)
    y = keras.layers.Conv2D(16, 1, activation="relu")(y)
    y = keras.layers.GlobalAveragePooling2D()(y)
    return keras.Model(x, keras.layers.Dense(12)(y))


def _mlp(keras: Any) -> Any:
    x = keras.Input((8, 16), batch_size=1)  # a token sequence: rank-3 activations
    y = keras.layers.Dense(32, activation="gelu")(x)
    y = keras.layers.Dense(16)(y)
    y = keras.layers.Add()([x, y])
    y = keras.layers.LayerNormalization()(y)
    y = keras.layers.Flatten()(y)
    return keras.Model(x, keras.layers.Dense(4, activation="sigmoid")(y))


def _vit(keras: Any) -> Any:
    x = keras.Input((8, 8, 3), batch_size=1)
    y = keras.layers.Conv2D(16, 2, strides=2)(x)  # patch embedding
    y = keras.layers.Reshape((16, 16))(y)
    z = keras.layers.LayerNormalization()(y)
    z = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(z, z)
    y = keras.layers.Add()([y, z])
    z = keras.layers.Dense(32, activation="gelu")(keras.layers.LayerNormalization()(y))
    y = keras.layers.Add()([y, keras.layers.Dense(16)(z)])
    y = keras.layers.GlobalAveragePooling1D()(y)
    return keras.Model(x, keras.layers.Dense(10)(y))


def _image_ops(keras: Any) -> Any:
    x = keras.Input((12, 12, 3), batch_size=1)
    y = keras.layers.Rescaling(1 / 127.5, offset=-1)(x)  # per-tensor constants
    y = keras.layers.ZeroPadding2D(1)(y)
    y = keras.layers.Conv2D(8, 3, use_bias=False)(y)
    y = keras.layers.BatchNormalization()(y)
    y = keras.layers.Activation("swish")(y)
    s = keras.layers.GlobalAveragePooling2D(keepdims=True)(y)  # squeeze-and-excite
    s = keras.layers.Conv2D(8, 1, activation="sigmoid")(s)
    y = keras.layers.Multiply()([y, s])
    y = keras.layers.Conv2DTranspose(4, 3, strides=2, padding="same")(y)
    y = keras.layers.UpSampling2D(2)(keras.layers.MaxPooling2D(2)(y))
    y = keras.layers.Conv2D(4, 3, padding="same", activation="hard_swish")(y)
    return keras.Model(x, keras.layers.Flatten()(y))


MODELS: dict[str, Callable[[Any], Any]] = {
    "cnn": _cnn,
    "kws": _kws,
    "mlp": _mlp,
    "vit": _vit,
    "image_ops": _image_ops,
}
"""Corpus model name → Keras builder (given the ``keras`` module)."""


@functools.cache  # a conversion takes seconds; tests ask for the same models repeatedly
def tflite_model(name: str, quantization: str = "float", seed: int = 0) -> bytes:
    """Build corpus model ``name`` and convert it to TFLite.

    Args:
        name: a key of :data:`MODELS`.
        quantization: one of :data:`QUANTIZATIONS`.
        seed: seeds the weights and the calibration data.

    Returns:
        The ``.tflite`` flatbuffer.
    """
    import numpy as np
    import tensorflow as tf

    tf.keras.utils.set_random_seed(seed)
    model = MODELS[name](tf.keras)
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if quantization not in QUANTIZATIONS:
        raise ValueError(f"unknown quantization {quantization!r}; one of {QUANTIZATIONS}")
    if quantization == "sparse":
        rng = np.random.default_rng(seed)
        for layer in model.layers:
            weights = layer.get_weights()
            if weights:  # the kernel first, then the bias
                kernel = np.where(rng.random(weights[0].shape) < 0.9, 0.0, weights[0])
                layer.set_weights([kernel.astype(weights[0].dtype), *weights[1:]])
        converter.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
    elif quantization != "float":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if quantization == "float16":
        converter.target_spec.supported_types = [tf.float16]
    if quantization == "int8":
        rng = np.random.default_rng(seed)
        shape = tuple(model.inputs[0].shape)

        def calibration() -> Iterator[list[np.ndarray]]:
            for _ in range(8):
                yield [rng.standard_normal(shape).astype(np.float32)]

        converter.representative_dataset = calibration
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    return bytes(converter.convert())


def handmade_tflite(
    op: str = "ADD", shape: tuple[int, ...] = (1, 4), dtype: str = "float32"
) -> bytes:
    """A two-input, one-operator TFLite model written with flatbuffers directly.

    Builds in milliseconds without TensorFlow, for tests of reading, of errors
    (``op="CUSTOM"`` makes a custom operator nnlat cannot convert) and of backends: with
    the default ``ADD`` it runs on LiteRT, and as ``int8`` (scale 1/16, zero point 0)
    compiles for an Ethos-U NPU. Builtin options are left at their defaults.

    Example:
        >>> handmade_tflite()[4:8]
        b'TFL3'
    """
    import importlib

    import flatbuffers
    from tflite.utils import BUILTIN_OPCODE2NAME

    def module(name: str) -> Any:
        return importlib.import_module(f"tflite.{name}")

    codes = {v: k for k, v in BUILTIN_OPCODE2NAME.items()}
    m_model, m_sub, m_tensor = module("Model"), module("SubGraph"), module("Tensor")
    m_op, m_code, m_buffer = module("Operator"), module("OperatorCode"), module("Buffer")
    b = flatbuffers.Builder(1024)

    def int_vector(start: Any, values: list[int]) -> int:
        start(b, len(values))
        for v in reversed(values):
            b.PrependInt32(v)
        return b.EndVector()

    def table_vector(start: Any, offsets: list[int]) -> int:
        start(b, len(offsets))
        for o in reversed(offsets):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    m_quant = module("QuantizationParameters")
    int8 = dtype == "int8"
    if dtype not in ("float32", "int8"):
        raise ValueError(f"dtype must be float32 or int8, not {dtype!r}")
    tensors = []
    for name in ("a", "b", "out"):
        name_offset = b.CreateString(name)
        shape_offset = int_vector(m_tensor.StartShapeVector, list(shape))
        quant = None
        if int8:
            m_quant.StartScaleVector(b, 1)
            b.PrependFloat32(1 / 16)
            scale = b.EndVector()
            m_quant.StartZeroPointVector(b, 1)
            b.PrependInt64(0)
            zero_point = b.EndVector()
            m_quant.Start(b)
            m_quant.AddScale(b, scale)
            m_quant.AddZeroPoint(b, zero_point)
            quant = m_quant.End(b)
        m_tensor.Start(b)
        m_tensor.AddShape(b, shape_offset)
        m_tensor.AddType(b, 9 if int8 else 0)  # INT8 / FLOAT32
        m_tensor.AddBuffer(b, 0)
        m_tensor.AddName(b, name_offset)
        if quant is not None:
            m_tensor.AddQuantization(b, quant)
        tensors.append(m_tensor.End(b))
    op_inputs = int_vector(m_op.StartInputsVector, [0, 1])
    op_outputs = int_vector(m_op.StartOutputsVector, [2])
    m_op.Start(b)
    m_op.AddOpcodeIndex(b, 0)
    m_op.AddInputs(b, op_inputs)
    m_op.AddOutputs(b, op_outputs)
    operator = m_op.End(b)
    tensor_vector = table_vector(m_sub.StartTensorsVector, tensors)
    inputs = int_vector(m_sub.StartInputsVector, [0, 1])
    outputs = int_vector(m_sub.StartOutputsVector, [2])
    operators = table_vector(m_sub.StartOperatorsVector, [operator])
    m_sub.Start(b)
    m_sub.AddTensors(b, tensor_vector)
    m_sub.AddInputs(b, inputs)
    m_sub.AddOutputs(b, outputs)
    m_sub.AddOperators(b, operators)
    subgraph = m_sub.End(b)
    custom = b.CreateString("MyCustomOp") if op == "CUSTOM" else None
    m_code.Start(b)
    builtin = codes[op]
    m_code.AddDeprecatedBuiltinCode(b, min(builtin, 127))
    m_code.AddBuiltinCode(b, builtin)
    if custom is not None:
        m_code.AddCustomCode(b, custom)
    code = m_code.End(b)
    m_buffer.Start(b)
    empty_buffer = m_buffer.End(b)
    subgraph_vector = table_vector(m_model.StartSubgraphsVector, [subgraph])
    code_vector = table_vector(m_model.StartOperatorCodesVector, [code])
    buffer_vector = table_vector(m_model.StartBuffersVector, [empty_buffer])
    m_model.Start(b)
    m_model.AddVersion(b, 3)
    m_model.AddOperatorCodes(b, code_vector)
    m_model.AddSubgraphs(b, subgraph_vector)
    m_model.AddBuffers(b, buffer_vector)
    b.Finish(m_model.End(b), file_identifier=b"TFL3")
    return bytes(b.Output())
