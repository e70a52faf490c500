"""A recorded int8 model (tensors, operators) → ``.tflite`` bytes, with the ``tflite``
package's generated flatbuffer builders.

The layout follows what TensorFlow's converter writes: schema version 3, one subgraph
``main``, buffer 0 empty, one buffer per tensor (empty for activations), weight data
16-byte aligned, operator codes in order of first use with both the deprecated (≤ 127)
and the full builtin code, and each builtin at the version TensorFlow 2.21 gives it for
these models (:data:`OPERATORS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# builtin → (options table, BuiltinOptions type, version TensorFlow 2.21 writes)
OPERATORS: dict[str, tuple[str | None, int]] = {
    "ADD": ("AddOptions", 2),
    "AVERAGE_POOL_2D": ("Pool2DOptions", 2),
    "BATCH_MATMUL": ("BatchMatMulOptions", 2),
    "CONCATENATION": ("ConcatenationOptions", 2),
    "CONV_2D": ("Conv2DOptions", 3),
    "DEPTHWISE_CONV_2D": ("DepthwiseConv2DOptions", 3),
    "FULLY_CONNECTED": ("FullyConnectedOptions", 5),
    "GELU": ("GeluOptions", 2),
    "MUL": ("MulOptions", 2),
    "PAD": ("PadOptions", 2),
    "RESHAPE": (None, 1),
    "SOFTMAX": ("SoftmaxOptions", 2),
    "STRIDED_SLICE": ("StridedSliceOptions", 2),
    "TRANSPOSE": (None, 4),
}
_TYPES = {"int8": 9, "int32": 2}  # tflite.TensorType
_ALIGNMENT = 16


@dataclass
class TensorDef:
    """One tensor: shape, element type, constant data (None for an activation), quantisation."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    data: np.ndarray | None = None
    scale: np.ndarray | None = None
    zero_point: np.ndarray | None = None
    quantized_dimension: int = 0


@dataclass
class OpDef:
    """One operator: builtin name, tensor indices (-1 = omitted input), option fields."""

    op: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class ModelDef:
    """A one-subgraph model."""

    tensors: list[TensorDef]
    ops: list[OpDef]
    inputs: list[int]
    outputs: list[int]


def write_model(model: ModelDef, description: str = "nnlat.zoo.edge direct int8 writer") -> bytes:
    """Serialise ``model`` as a TFLite flatbuffer.

    Example:
        >>> t = [TensorDef("x", (1, 4), "int8", scale=np.ones(1, np.float32),
        ...                zero_point=np.zeros(1, np.int64)),
        ...      TensorDef("shape", (2,), "int32", np.array([2, 2], np.int32)),
        ...      TensorDef("y", (2, 2), "int8", scale=np.ones(1, np.float32),
        ...                zero_point=np.zeros(1, np.int64))]
        >>> data = write_model(ModelDef(t, [OpDef("RESHAPE", (0, 1), (2,))], [0], [2]))
        >>> data[4:8]
        b'TFL3'
    """
    import flatbuffers
    import tflite

    b = flatbuffers.Builder(1024 + sum(t.data.nbytes for t in model.tensors if t.data is not None))
    codes = list(dict.fromkeys(op.op for op in model.ops))
    # Buffers: 0 is the empty sentinel; tensor i owns buffer i + 1.
    buffers = [_buffer(b, None)] + [_buffer(b, t.data) for t in model.tensors]
    tensors = [_tensor(b, t, i + 1) for i, t in enumerate(model.tensors)]
    ops = [_operator(b, op, codes.index(op.op)) for op in model.ops]
    name = b.CreateString("main")
    sub_inputs = _int32s(b, model.inputs)
    sub_outputs = _int32s(b, model.outputs)
    tensor_vector = _offsets(b, tflite.SubGraphStartTensorsVector, tensors)
    op_vector = _offsets(b, tflite.SubGraphStartOperatorsVector, ops)
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensor_vector)
    tflite.SubGraphAddInputs(b, sub_inputs)
    tflite.SubGraphAddOutputs(b, sub_outputs)
    tflite.SubGraphAddOperators(b, op_vector)
    tflite.SubGraphAddName(b, name)
    subgraph = tflite.SubGraphEnd(b)

    opcodes = []
    for op in codes:
        code = getattr(tflite.BuiltinOperator, op)
        tflite.OperatorCodeStart(b)
        tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))
        tflite.OperatorCodeAddVersion(b, OPERATORS[op][1])
        tflite.OperatorCodeAddBuiltinCode(b, code)
        opcodes.append(tflite.OperatorCodeEnd(b))
    opcode_vector = _offsets(b, tflite.ModelStartOperatorCodesVector, opcodes)
    subgraph_vector = _offsets(b, tflite.ModelStartSubgraphsVector, [subgraph])
    buffer_vector = _offsets(b, tflite.ModelStartBuffersVector, buffers)
    text = b.CreateString(description)
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, opcode_vector)
    tflite.ModelAddSubgraphs(b, subgraph_vector)
    tflite.ModelAddDescription(b, text)
    tflite.ModelAddBuffers(b, buffer_vector)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def _buffer(b: Any, data: np.ndarray | None) -> int:
    import tflite

    vector = None
    if data is not None:
        payload = np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<")).tobytes()
        b.StartVector(1, len(payload), _ALIGNMENT)
        b.head -= len(payload)
        b.Bytes[b.head : b.head + len(payload)] = payload
        vector = b.EndVector()
    tflite.BufferStart(b)
    if vector is not None:
        tflite.BufferAddData(b, vector)
    return tflite.BufferEnd(b)


def _tensor(b: Any, t: TensorDef, buffer: int) -> int:
    import tflite

    name = b.CreateString(t.name)
    shape = _int32s(b, t.shape)
    quant = None
    if t.scale is not None:
        scale = b.CreateNumpyVector(np.asarray(t.scale, np.float32))
        zero = b.CreateNumpyVector(np.asarray(t.zero_point, np.int64))
        tflite.QuantizationParametersStart(b)
        tflite.QuantizationParametersAddScale(b, scale)
        tflite.QuantizationParametersAddZeroPoint(b, zero)
        tflite.QuantizationParametersAddQuantizedDimension(b, t.quantized_dimension)
        quant = tflite.QuantizationParametersEnd(b)
    tflite.TensorStart(b)
    tflite.TensorAddShape(b, shape)
    tflite.TensorAddType(b, _TYPES[t.dtype])
    tflite.TensorAddBuffer(b, buffer)
    tflite.TensorAddName(b, name)
    if quant is not None:
        tflite.TensorAddQuantization(b, quant)
    return tflite.TensorEnd(b)


def _operator(b: Any, op: OpDef, opcode: int) -> int:
    import tflite

    table_name = OPERATORS[op.op][0]
    options = None
    if table_name is not None:
        getattr(tflite, f"{table_name}Start")(b)
        for key, value in op.options.items():
            getattr(tflite, f"{table_name}Add{key}")(b, value)
        options = getattr(tflite, f"{table_name}End")(b)
    inputs = _int32s(b, op.inputs)
    outputs = _int32s(b, op.outputs)
    tflite.OperatorStart(b)
    tflite.OperatorAddOpcodeIndex(b, opcode)
    tflite.OperatorAddInputs(b, inputs)
    tflite.OperatorAddOutputs(b, outputs)
    if options is not None:
        tflite.OperatorAddBuiltinOptionsType(b, getattr(tflite.BuiltinOptions, table_name))
        tflite.OperatorAddBuiltinOptions(b, options)
    return tflite.OperatorEnd(b)


def _int32s(b: Any, values: Any) -> int:
    return b.CreateNumpyVector(np.asarray(values, np.int32).ravel())


def _offsets(b: Any, start: Any, offsets: list[int]) -> int:
    start(b, len(offsets))
    for offset in reversed(offsets):
        b.PrependUOffsetTRelative(offset)
    return b.EndVector()
