"""The one module that reads the TFLite flatbuffer: validate, then convert to ONNX terms.

A ``.tflite`` model becomes ONNX operators (:func:`read_converted`, plain records), then
the IR straight away (:mod:`nnlat.graph.tflite_ir`) or, for a model the normalisation
pipeline would rewrite beyond what that module repeats, an ONNX ModelProto
(:func:`converted_to_onnx`) that goes through the pipeline. Either way a TFLite model and
an ONNX model end up as the same kind of :class:`~nnlat.graph.ir.Graph` (same op types,
costs, hash, features).

Conversion is structural, like the rest of the IR (weights are never read):

* **Operators** map to their ONNX counterparts (``CONV_2D`` → ``Conv``,
  ``FULLY_CONNECTED`` → ``Gemm``, ``MEAN`` → ``ReduceMean``, ...). A fused activation
  becomes its own node after the operator, as in an ONNX export. Builtins with no ONNX
  counterpart of the same shape behaviour (``BATCH_MATMUL``, ``STRIDED_SLICE``,
  ``SQUARED_DIFFERENCE``, ...) keep their TFLite name in the ``tflite`` domain, with a
  cost family in :mod:`nnlat.graph.ops`; any other operator (custom ops, control flow)
  raises :class:`~nnlat.errors.UnsupportedOperatorError` naming it.
* **Layout.** TFLite is channels-last; ONNX operators are channels-first. Rank-4 tensors
  that reach an image operator (convolution, pooling, resize) — directly or through
  element-wise, concatenation, padding, reduction or softmax operators — are described
  NCHW, and axis arguments are remapped; filters become OIHW. Other tensors keep TFLite's
  layout (a Transpose is inserted in the rare case an opaque operator reads an NCHW one).
* **Types.** Tensors keep their element type (int8 activations stay int8, so ``bytes``
  costs follow), and their scale/zero point go to :attr:`TensorSpec.quant`.
* **Shapes** are TFLite's own (``shape``, not ``shape_signature``): the interpreter
  allocates with those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from nnlat.errors import ModelLoadError, ModelTooLargeError, UnsupportedOperatorError
from nnlat.graph.flat_table import FlatTable, scalar_at, string_at, table_at, values_at
from nnlat.graph.ir import Quantization

TFLITE_DOMAIN = "tflite"
"""The ONNX domain of TFLite builtins kept under their own name."""

ONNX_OPSET = 20  # Gelu needs 20; every mapped operator exists there
_FILE_IDENTIFIER = b"TFL3"
_NCHW = (0, 3, 1, 2)  # ONNX dim i is TFLite (NHWC) dim _NCHW[i]

# TensorType → ONNX element type.
_DTYPES: dict[int, int] = {
    0: TensorProto.FLOAT,
    1: TensorProto.FLOAT16,
    2: TensorProto.INT32,
    3: TensorProto.UINT8,
    4: TensorProto.INT64,
    5: TensorProto.STRING,
    6: TensorProto.BOOL,
    7: TensorProto.INT16,
    8: TensorProto.COMPLEX64,
    9: TensorProto.INT8,
    10: TensorProto.DOUBLE,
    11: TensorProto.COMPLEX128,
    12: TensorProto.UINT64,
    15: TensorProto.UINT32,
    16: TensorProto.UINT16,
    17: TensorProto.INT4,
    18: TensorProto.BFLOAT16,
}

# Operators whose first input and output are NHWC images.
_IMAGE_OPS = {
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "TRANSPOSE_CONV",
    "AVERAGE_POOL_2D",
    "MAX_POOL_2D",
    "L2_POOL_2D",
    "RESIZE_BILINEAR",
    "RESIZE_NEAREST_NEIGHBOR",
    "SPACE_TO_DEPTH",
    "DEPTH_TO_SPACE",
}
_UNARY = {
    "RELU": "Relu",
    "LOGISTIC": "Sigmoid",
    "TANH": "Tanh",
    "HARD_SWISH": "HardSwish",
    "GELU": "Gelu",
    "ELU": "Elu",
    "LEAKY_RELU": "LeakyRelu",
    "EXP": "Exp",
    "LOG": "Log",
    "SQRT": "Sqrt",
    "ABS": "Abs",
    "NEG": "Neg",
    "FLOOR": "Floor",
    "CEIL": "Ceil",
    "SIN": "Sin",
    "COS": "Cos",
    "SIGN": "Sign",
    "ROUND": "Round",
    "LOGICAL_NOT": "Not",
}
_BINARY = {
    "ADD": "Add",
    "SUB": "Sub",
    "MUL": "Mul",
    "DIV": "Div",
    "POW": "Pow",
    "MAXIMUM": "Max",
    "MINIMUM": "Min",
    "PRELU": "PRelu",
    "EQUAL": "Equal",
    "LESS": "Less",
    "LESS_EQUAL": "LessOrEqual",
    "GREATER": "Greater",
    "GREATER_EQUAL": "GreaterOrEqual",
    "LOGICAL_AND": "And",
    "LOGICAL_OR": "Or",
    "FLOOR_MOD": "Mod",
}
_REDUCE = {
    "MEAN": "ReduceMean",
    "SUM": "ReduceSum",
    "REDUCE_MAX": "ReduceMax",
    "REDUCE_MIN": "ReduceMin",
    "REDUCE_PROD": "ReduceProd",
}
_CLIPS = {"RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0), "RELU_0_TO_1": (0.0, 1.0)}
# Element-wise builtins ONNX lacks as one operator: kept by name (element-wise family).
_TFLITE_ELEMENTWISE = {"SQUARED_DIFFERENCE", "RSQRT", "SQUARE", "FLOOR_DIV", "ATAN2"}
# Builtins kept by name whose tensors are read in TFLite's own layout; families in ops.py.
_TFLITE_OPAQUE = {
    "BATCH_MATMUL",
    "STRIDED_SLICE",
    "SLICE",
    "GATHER",
    "GATHER_ND",
    "SPLIT",
    "SPLIT_V",
    "PACK",
    "UNPACK",
    "TILE",
    "BROADCAST_TO",
    "ARG_MAX",
    "ARG_MIN",
    "CUMSUM",
    "SELECT",
    "SELECT_V2",
    "ZEROS_LIKE",
    "ONES_LIKE",
    "FILL",
    "SHAPE",
    "RANGE",
    "L2_NORMALIZATION",
    "LOCAL_RESPONSE_NORMALIZATION",
    "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND",
    "REVERSE_V2",
    "EMBEDDING_LOOKUP",
    "TOPK_V2",
}
# Operators through which an NCHW description spreads (all their rank-4 tensors share it).
_LAYOUT_TRANSPARENT = (
    set(_UNARY)
    | set(_BINARY)
    | set(_REDUCE)
    | set(_CLIPS)
    | _TFLITE_ELEMENTWISE
    | {
        "QUANTIZE",
        "DEQUANTIZE",
        "CAST",
        "CONCATENATION",
        "PAD",
        "PADV2",
        "MIRROR_PAD",
        "SOFTMAX",
        "LOG_SOFTMAX",
    }
)
_FUSED_ACTIVATIONS = {1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH"}

# Field slots of the TFLite schema's tables (schema.fbs, in declaration order), read
# through FlatTable; the generated classes read the same slots, only more slowly.
_MODEL_OPERATOR_CODES, _MODEL_SUBGRAPHS, _MODEL_BUFFERS = 1, 2, 4
_SUBGRAPH_TENSORS, _SUBGRAPH_INPUTS, _SUBGRAPH_OUTPUTS, _SUBGRAPH_OPERATORS = 0, 1, 2, 3
_TENSOR_SHAPE, _TENSOR_TYPE, _TENSOR_BUFFER, _TENSOR_NAME, _TENSOR_QUANT = 0, 1, 2, 3, 4
_QUANT_SCALE, _QUANT_ZERO_POINT, _QUANT_DIMENSION = 2, 3, 6
_OP_OPCODE, _OP_INPUTS, _OP_OUTPUTS, _OP_OPTIONS = 0, 1, 2, 4
_CODE_DEPRECATED_BUILTIN, _CODE_CUSTOM, _CODE_BUILTIN = 0, 1, 3
_BUFFER_DATA, _BUFFER_OFFSET, _BUFFER_SIZE = 0, 1, 2

SUPPORTED_OPS: frozenset[str] = frozenset(
    _IMAGE_OPS
    | _LAYOUT_TRANSPARENT
    | _TFLITE_OPAQUE
    | {"FULLY_CONNECTED", "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE", "DENSIFY"}
)
"""TFLite builtins :func:`read_converted` converts."""


def is_tflite(data: bytes | bytearray | memoryview) -> bool:
    """True when ``data`` starts like a TFLite flatbuffer (file identifier ``TFL3``).

    Example:
        >>> is_tflite(b"\\x1c\\x00\\x00\\x00TFL3"), is_tflite(b"\\x08\\x01")
        (True, False)
    """
    return len(data) >= 8 and bytes(data[4:8]) == _FILE_IDENTIFIER


def read_tflite(source: str | Path | bytes | bytearray, *, max_bytes: int) -> bytes:
    """The bytes of a TFLite model from a path or bytes, checked to be a TFLite file.

    Raises:
        ModelLoadError: missing file or not a TFLite flatbuffer.
        ModelTooLargeError: over ``max_bytes``.
    """
    if isinstance(source, bytes | bytearray):
        data, label = bytes(source), "the given bytes"
        _check_size(len(data), max_bytes, label)
    else:
        path = Path(source)
        if not path.is_file():
            raise ModelLoadError(f"{path}: no such file")
        label = str(path)
        _check_size(path.stat().st_size, max_bytes, label)
        data = path.read_bytes()  # LiteRT and Vela need the whole file anyway
    if not is_tflite(data):
        raise ModelLoadError(f"{label} is not a TFLite model (no TFL3 file identifier)")
    return data


def _check_size(size: int, max_bytes: int, label: str) -> None:
    if size > max_bytes:
        raise ModelTooLargeError(
            f"{label} is {size:,} bytes, over the limit of {max_bytes:,} "
            "(raise it with NNLAT_MAX_MODEL_BYTES / max_model_bytes)"
        )


@dataclass(frozen=True)
class ConvertedNode:
    """One ONNX operator of a converted model; ``attributes`` as plain Python values."""

    name: str
    op_type: str
    domain: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attributes: dict[str, Any]


@dataclass(frozen=True)
class ConvertedTensor:
    """A tensor's ONNX element type and shape (``values`` only for small constants the
    conversion computed: axes, shapes, paddings, scales)."""

    name: str
    elem_type: int
    shape: tuple[int, ...]
    values: np.ndarray | None = None


@dataclass(frozen=True)
class Converted:
    """A TFLite model in ONNX terms, before it is written as protobuf or as the IR.

    Attributes:
        nodes: the operators, in the file's order.
        inputs, outputs: the graph's inputs and outputs.
        constants: the initializers by name (weights without values).
        value_info: every other tensor a node produces, TFLite's own shapes.
        quant: the quantisation of each quantised tensor by name, axes in ONNX layout.
    """

    nodes: list[ConvertedNode]
    inputs: list[ConvertedTensor]
    outputs: list[ConvertedTensor]
    constants: dict[str, ConvertedTensor]
    value_info: list[ConvertedTensor]
    quant: dict[str, Quantization]


def converted_to_onnx(converted: Converted) -> onnx.ModelProto:
    """The converted model as a (not yet normalised) weight-free ONNX model.

    Example:
        >>> from nnlat.testing.tflite_models import handmade_tflite
        >>> model = converted_to_onnx(read_converted(handmade_tflite("MUL", (1, 4))))
        >>> [n.op_type for n in model.graph.node], [d.domain for d in model.opset_import]
        (['Mul'], ['', 'tflite'])
    """

    def info(t: ConvertedTensor) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(t.name, t.elem_type, list(t.shape))

    def initializer(t: ConvertedTensor) -> onnx.TensorProto:
        if t.values is not None:
            return numpy_helper.from_array(t.values, t.name)
        return TensorProto(name=t.name, data_type=t.elem_type, dims=list(t.shape))

    graph = helper.make_graph(
        [
            helper.make_node(
                n.op_type, n.inputs, n.outputs, name=n.name, domain=n.domain, **n.attributes
            )
            for n in converted.nodes
        ],
        "tflite",
        [info(t) for t in converted.inputs],
        [info(t) for t in converted.outputs],
        initializer=[initializer(t) for t in converted.constants.values()],
        value_info=[info(t) for t in converted.value_info],
    )
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", ONNX_OPSET), helper.make_opsetid(TFLITE_DOMAIN, 1)],
        producer_name="nnlat.tflite_io",
    )


def read_converted(data: bytes, label: str = "the model") -> Converted:
    """Read a TFLite flatbuffer as ONNX operators and tensors (plain records).

    Raises:
        ModelLoadError: the flatbuffer is truncated or corrupt, or has no operators.
        UnsupportedOperatorError: an operator has no conversion.

    Example:
        >>> from nnlat.testing.tflite_models import handmade_tflite
        >>> [n.op_type for n in read_converted(handmade_tflite("MUL", (1, 4))).nodes]
        ['Mul']
    """
    try:  # operator names and builtin options are read with the schema's classes
        import tflite  # noqa: F401  (an [edge] extra)
    except ImportError:
        raise ModelLoadError(
            f"{label} is a TFLite model; reading it needs the tflite package: "
            "pip install 'nnlat[edge]'"
        ) from None
    try:
        model = FlatTable.root(data)
        subgraphs = model.tables(_MODEL_SUBGRAPHS)
        if not subgraphs or not subgraphs[0].tables(_SUBGRAPH_OPERATORS):
            raise ModelLoadError(f"{label} is a TFLite model without operators")
        return _Converter(model, data, label).convert()
    except (ModelLoadError, UnsupportedOperatorError):
        raise
    except Exception:  # flatbuffers reads past the end as struct/index/value errors
        raise ModelLoadError(f"{label} is not a TFLite model or is truncated/corrupt") from None


@dataclass
class _Op:
    """One operator: builtin name, tensor indices (-1 = omitted), its flatbuffer table."""

    name: str
    ins: list[int]
    outs: list[int]
    table: FlatTable


@dataclass
class _Tensor:
    name: str
    elem_type: int
    shape: tuple[int, ...]
    const: bool
    buffer: int
    quant: tuple[tuple[float, ...], tuple[int, ...], int] | None
    perm: tuple[int, ...] = ()  # ONNX dim i = TFLite dim perm[i]; () = as in TFLite

    @property
    def onnx_shape(self) -> tuple[int, ...]:
        return tuple(self.shape[p] for p in self.perm) if self.perm else self.shape

    def onnx_axis(self, axis: int) -> int:
        axis = axis % max(len(self.shape), 1)
        return self.perm.index(axis) if self.perm else axis


def _opt(op: _Op, name: str) -> Any:
    """The operator's builtin options table as the generated class ``name``."""
    import tflite  # the flatbuffer schema; an [edge] extra

    table = op.table.table(_OP_OPTIONS)
    options = getattr(tflite, name)()
    if table is None:  # absent options: every field at its schema default
        options.Init(*_EMPTY_TABLE)
    else:
        options.Init(table.buf, table.pos)
    return options


def _empty_table() -> tuple[bytes, int]:
    import flatbuffers

    builder = flatbuffers.Builder(16)
    builder.StartObject(0)
    builder.Finish(builder.EndObject())
    data = bytes(builder.Output())
    return data, flatbuffers.encode.Get(flatbuffers.packer.uoffset, data, 0)


_EMPTY_TABLE = _empty_table()


@dataclass
class _Converter:
    model: FlatTable
    data: bytes
    label: str
    tensors: list[_Tensor] = field(default_factory=list)
    nodes: list[ConvertedNode] = field(default_factory=list)
    initializers: dict[str, ConvertedTensor] = field(default_factory=dict)
    extra_info: list[ConvertedTensor] = field(default_factory=list)
    quant: dict[str, Quantization] = field(default_factory=dict)
    buffers: list[FlatTable] = field(default_factory=list)
    _opcode_names: dict[int, str] = field(default_factory=dict)

    def convert(self) -> Converted:
        sub = self.model.tables(_MODEL_SUBGRAPHS)[0]
        ops = [
            _Op(
                self._op_name(table.scalar(_OP_OPCODE, "<I", 0)),
                list(table.values(_OP_INPUTS, "i")),
                list(table.values(_OP_OUTPUTS, "i")),
                table,
            )
            for table in sub.tables(_SUBGRAPH_OPERATORS)
        ]
        unsupported = sorted({op.name for op in ops if op.name not in SUPPORTED_OPS})
        if unsupported:
            raise UnsupportedOperatorError(
                f"{self.label}: TFLite operator(s) {', '.join(unsupported)} not supported; "
                f"nnlat reads {len(SUPPORTED_OPS)} builtins (see nnlat.graph.tflite_io)"
            )
        self.buffers = self.model.tables(_MODEL_BUFFERS)
        for buffer in self.buffers:  # a cut file loses weights first
            end = buffer.vector_end(_BUFFER_DATA, 1) or (
                buffer.scalar(_BUFFER_OFFSET, "<Q", 0) + buffer.scalar(_BUFFER_SIZE, "<Q", 0)
            )
            if end > len(self.data):
                raise ValueError("buffer past the end")
        # DENSIFY expands a sparse constant into the dense weight an operator reads; the
        # interpreter does it once when preparing, so its output is a weight like any other.
        ops = [op for op in ops if op.name != "DENSIFY"]
        produced = {t for op in ops for t in op.outs if t >= 0}
        inputs = sub.array(_SUBGRAPH_INPUTS, "<i4").tolist()
        self._read_tensors(sub, produced | set(inputs))
        self._lay_out(ops)
        for k, op in enumerate(ops):
            self._convert_op(k, op.name, op, op.ins, op.outs)
        activations = [t for t in self.tensors if not t.const]
        for t in self.tensors:
            if t.quant is not None:
                scale, zero_point, axis = t.quant
                self.quant[t.name] = Quantization(scale, zero_point, t.onnx_axis(axis))
        outputs = sub.array(_SUBGRAPH_OUTPUTS, "<i4").tolist()
        io_names = {self.tensors[i].name for i in (*inputs, *outputs)}
        return Converted(
            self.nodes,
            [self._value_info(self.tensors[i]) for i in inputs],
            [self._value_info(self.tensors[i]) for i in outputs],
            self.initializers,
            [self._value_info(t) for t in activations if t.name not in io_names] + self.extra_info,
            self.quant,
        )

    def _op_name(self, index: int) -> str:
        if index not in self._opcode_names:  # a model has few opcodes and many operators
            from tflite.utils import BUILTIN_OPCODE2NAME

            code = self.model.tables(_MODEL_OPERATOR_CODES)[index]
            builtin = max(
                code.scalar(_CODE_BUILTIN, "<i", 0),
                code.scalar(_CODE_DEPRECATED_BUILTIN, "<b", 0),
            )
            if builtin == 32:  # CUSTOM
                name = f"CUSTOM:{(code.string(_CODE_CUSTOM) or b'?').decode(errors='replace')}"
            else:
                name = BUILTIN_OPCODE2NAME.get(builtin, f"BUILTIN_{builtin}")
            self._opcode_names[index] = name
        return self._opcode_names[index]

    def _read_tensors(self, sub: FlatTable, live: set[int]) -> None:
        buf, seen = self.data, set()
        for i, t in enumerate(sub.tables(_SUBGRAPH_TENSORS)):
            at = t.fields(_TENSOR_QUANT + 1)  # every field's position, read once
            name = string_at(buf, at[_TENSOR_NAME]).decode(errors="replace") or f"tensor_{i}"
            if name in seen:
                name = f"{name}#{i}"
            seen.add(name)
            quant = None
            q = table_at(buf, at[_TENSOR_QUANT])
            if q is not None:
                at_q = q.fields(_QUANT_DIMENSION + 1)
                scale = values_at(buf, at_q[_QUANT_SCALE], "f")
                if scale:
                    zero = values_at(buf, at_q[_QUANT_ZERO_POINT], "q") or (0,) * len(scale)
                    quant = (scale, zero, scalar_at(buf, at_q[_QUANT_DIMENSION], "<i", 0))
            self.tensors.append(
                _Tensor(
                    name,
                    _DTYPES.get(scalar_at(buf, at[_TENSOR_TYPE], "<b", 0), TensorProto.UNDEFINED),
                    values_at(buf, at[_TENSOR_SHAPE], "i"),
                    i not in live,
                    scalar_at(buf, at[_TENSOR_BUFFER], "<I", 0),
                    quant,
                )
            )

    def _lay_out(self, ops: list[_Op]) -> None:
        """Mark the rank-4 activations to describe NCHW (see the module docstring)."""
        parent = list(range(len(self.tensors)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        image: set[int] = set()
        for op in ops:
            name = op.name
            ins = [t for t in op.ins if t >= 0]
            outs = [t for t in op.outs if t >= 0]
            if name in _IMAGE_OPS:
                image.add(ins[-1] if name == "TRANSPOSE_CONV" else ins[0])
                image.add(outs[0])
            elif name in _LAYOUT_TRANSPARENT:
                four = [
                    t
                    for t in ins + outs
                    if not self.tensors[t].const and len(self.tensors[t].shape) == 4
                ]
                for t in four[1:]:
                    parent[find(t)] = find(four[0])
        roots = {find(i) for i in image}
        for i, t in enumerate(self.tensors):
            if not t.const and len(t.shape) == 4 and find(i) in roots:
                t.perm = _NCHW

    # -- emitting ------------------------------------------------------------------

    def _value_info(self, t: _Tensor) -> ConvertedTensor:
        return ConvertedTensor(t.name, t.elem_type, t.onnx_shape)

    def _weight(self, index: int, perm: tuple[int, ...] = ()) -> str:
        """Name of constant tensor ``index`` as a data-less initializer, dims permuted."""
        t = self.tensors[index]
        if t.name not in self.initializers:
            if perm and len(perm) == len(t.shape):
                t.perm = perm
            self.initializers[t.name] = ConvertedTensor(t.name, t.elem_type, t.onnx_shape)
        return t.name

    def _values(self, index: int) -> np.ndarray:
        """The values of a small constant tensor (axes, paddings, permutations)."""
        t = self.tensors[index]
        buffer = self.buffers[t.buffer]
        raw = buffer.array(_BUFFER_DATA, "u1").tobytes()
        if not raw:  # models over 2 GB keep buffers after the flatbuffer
            offset = buffer.scalar(_BUFFER_OFFSET, "<Q", 0)
            raw = self.data[offset : offset + buffer.scalar(_BUFFER_SIZE, "<Q", 0)]
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        return np.frombuffer(raw, dtype=dtype).reshape(t.shape)

    def _const(self, name: str, values: Any, dtype: Any = np.int64) -> str:
        if name not in self.initializers:
            array = np.asarray(values, dtype)
            elem_type = helper.np_dtype_to_tensor_dtype(array.dtype)
            self.initializers[name] = ConvertedTensor(name, elem_type, array.shape, array)
        return name

    def _input(self, index: int, like: _Tensor | None = None) -> str:
        """Name to feed tensor ``index`` to a node whose tensors are laid out like ``like``.

        Constants are reshaped to broadcast in that layout; activations of lower rank are
        reshaped by a node.
        """
        t = self.tensors[index]
        if t.const:
            if (
                like is not None
                and like.perm
                and len(t.shape) <= 4
                and t.name not in self.initializers
            ):
                pad = 4 - len(t.shape)  # broadcast as TFLite does: leading ones
                t.shape = (1,) * pad + t.shape
                t.perm = like.perm
                if t.quant is not None:
                    t.quant = (t.quant[0], t.quant[1], t.quant[2] + pad)
            return self._weight(index)
        if like is not None and like.perm and len(t.shape) < 4:
            shape = (1,) * (4 - len(t.shape)) + t.shape
            shape = tuple(shape[p] for p in like.perm)
            out = f"{t.name}/as_rank4"
            self._node("Reshape", [t.name, self._const(f"{out}/shape", shape)], [out])
            self._info(out, t.elem_type, shape)
            return out
        return t.name

    def _node(self, op_type: str, inputs: list[str], outputs: list[str], **attrs: Any) -> None:
        domain = TFLITE_DOMAIN if op_type.isupper() else ""
        name = f"{op_type}_{len(self.nodes)}"
        self.nodes.append(
            ConvertedNode(name, op_type, domain, tuple(inputs), tuple(outputs), attrs)
        )

    def _info(self, name: str, elem_type: int, shape: tuple[int, ...]) -> None:
        self.extra_info.append(ConvertedTensor(name, elem_type, tuple(shape)))

    def _with_activation(self, out: int, activation: int) -> str:
        """Output name for the main node; emits the fused activation after it."""
        t = self.tensors[out]
        kind = _FUSED_ACTIVATIONS.get(activation)
        if kind is None:
            if activation:
                raise UnsupportedOperatorError(
                    f"{self.label}: fused activation {activation} is not supported"
                )
            return t.name
        pre = f"{t.name}/pre_activation"
        self._info(pre, t.elem_type, t.onnx_shape)
        self._activation(kind, pre, t)
        return pre

    def _activation(self, kind: str, src: str, out: _Tensor) -> None:
        if kind in _CLIPS:
            low, high = _CLIPS[kind]
            dtype = helper.tensor_dtype_to_np_dtype(out.elem_type)
            if out.quant is not None:  # the bounds as stored integers
                scale, zero, _ = out.quant
                low, high = (round(v / scale[0]) + zero[0] for v in (low, high))
                info = np.iinfo(dtype)
                low, high = max(low, info.min), min(high, info.max)
            bounds = [
                self._const(f"{out.name}/{b}", v, dtype) for b, v in (("min", low), ("max", high))
            ]
            self._node("Clip", [src, *bounds], [out.name])
        else:
            self._node(_UNARY[kind], [src], [out.name])

    def _convert_op(self, k: int, name: str, op: Any, ins: list[int], outs: list[int]) -> None:
        out = self.tensors[outs[0]]
        x = self.tensors[ins[0]]
        if name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            depthwise = name == "DEPTHWISE_CONV_2D"
            o = _opt(op, "DepthwiseConv2DOptions" if depthwise else "Conv2DOptions")
            w = self.tensors[ins[1]]
            weight = self._weight(ins[1], (3, 0, 1, 2) if depthwise else _NCHW)
            args = [x.name, weight]
            if len(ins) > 2 and ins[2] >= 0:
                args.append(self._weight(ins[2]))
            kernel = list(w.shape[1:3])
            group = x.shape[3] if depthwise else x.shape[3] // max(w.shape[3], 1)
            self._node(
                "Conv",
                args,
                [self._with_activation(outs[0], o.FusedActivationFunction())],
                kernel_shape=kernel,
                strides=[o.StrideH(), o.StrideW()],
                dilations=[o.DilationHFactor(), o.DilationWFactor()],
                group=group,
                auto_pad=_padding(o.Padding()),
            )
        elif name == "TRANSPOSE_CONV":
            o = _opt(op, "TransposeConvOptions")
            x = self.tensors[ins[2]]
            w = self.tensors[ins[1]]
            args = [x.name, self._weight(ins[1], (3, 0, 1, 2))]
            if len(ins) > 3 and ins[3] >= 0:
                args.append(self._weight(ins[3]))
            self._node(
                "ConvTranspose",
                args,
                [self._with_activation(outs[0], o.FusedActivationFunction())],
                kernel_shape=list(w.shape[1:3]),
                strides=[o.StrideH(), o.StrideW()],
                output_shape=list(out.shape[1:3]),
                auto_pad=_padding(o.Padding()),
            )
        elif name in ("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"):
            o = _opt(op, "Pool2DOptions")
            attrs: dict[str, Any] = {
                "kernel_shape": [o.FilterHeight(), o.FilterWidth()],
                "strides": [o.StrideH(), o.StrideW()],
                "auto_pad": _padding(o.Padding()),
            }
            if name == "L2_POOL_2D":
                attrs["p"] = 2
            op_type = {"AVERAGE_POOL_2D": "AveragePool", "MAX_POOL_2D": "MaxPool"}.get(
                name, "LpPool"
            )
            self._node(
                op_type,
                [x.name],
                [self._with_activation(outs[0], o.FusedActivationFunction())],
                **attrs,
            )
        elif name in ("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"):
            sizes = self._const(f"{out.name}/sizes", out.onnx_shape)
            mode = "linear" if name == "RESIZE_BILINEAR" else "nearest"
            self._node("Resize", [x.name, "", "", sizes], [out.name], mode=mode)
        elif name in ("SPACE_TO_DEPTH", "DEPTH_TO_SPACE"):
            o = _opt(
                op, "SpaceToDepthOptions" if name == "SPACE_TO_DEPTH" else "DepthToSpaceOptions"
            )
            op_type = "SpaceToDepth" if name == "SPACE_TO_DEPTH" else "DepthToSpace"
            self._node(op_type, [x.name], [out.name], blocksize=o.BlockSize())
        elif name == "FULLY_CONNECTED":
            self._fully_connected(op, ins, outs)
        elif name in _UNARY:
            attrs = {}
            if name == "LEAKY_RELU":
                attrs["alpha"] = float(_opt(op, "LeakyReluOptions").Alpha())
            if name == "GELU" and _opt(op, "GeluOptions").Approximate():
                attrs["approximate"] = "tanh"
            self._node(_UNARY[name], [self._input(ins[0], out)], [out.name], **attrs)
        elif name in _CLIPS:
            self._activation(name, self._input(ins[0], out), out)
        elif name in _BINARY or name in _TFLITE_ELEMENTWISE:
            args = [self._input(i, out) for i in ins]
            activation = 0
            options = {
                "ADD": "AddOptions",
                "SUB": "SubOptions",
                "MUL": "MulOptions",
                "DIV": "DivOptions",
            }
            if name in options:
                activation = _opt(op, options[name]).FusedActivationFunction()
            self._node(_BINARY.get(name, name), args, [self._with_activation(outs[0], activation)])
        elif name == "CONCATENATION":
            o = _opt(op, "ConcatenationOptions")
            self._node(
                "Concat",
                [self._input(i, out) for i in ins],
                [self._with_activation(outs[0], o.FusedActivationFunction())],
                axis=out.onnx_axis(o.Axis()),
            )
        elif name in ("PAD", "PADV2", "MIRROR_PAD"):
            pads = self._values(ins[1]).reshape(-1, 2)
            order = x.perm or tuple(range(len(x.shape)))
            onnx_pads = [int(pads[p, 0]) for p in order] + [int(pads[p, 1]) for p in order]
            args = [x.name, self._const(f"{out.name}/pads", onnx_pads)]
            attrs = {}
            if name == "PADV2" and len(ins) > 2:
                args.append(self._weight(ins[2]))
            if name == "MIRROR_PAD":
                attrs["mode"] = "reflect"
            self._node("Pad", args, [out.name], **attrs)
        elif name in _REDUCE:
            axes = sorted({x.onnx_axis(int(a)) for a in np.ravel(self._values(ins[1]))})
            keep = int(bool(_opt(op, "ReducerOptions").KeepDims()))
            axes_name = self._const(f"{out.name}/axes", axes)
            self._node(_REDUCE[name], [x.name, axes_name], [out.name], keepdims=keep)
        elif name in ("SOFTMAX", "LOG_SOFTMAX"):
            op_type = "Softmax" if name == "SOFTMAX" else "LogSoftmax"
            self._node(op_type, [x.name], [out.name], axis=x.onnx_axis(-1))
        elif name in ("RESHAPE", "SQUEEZE", "EXPAND_DIMS"):
            shape = self._const(f"{out.name}/shape", out.onnx_shape)
            self._node("Reshape", [x.name, shape], [out.name])
        elif name == "TRANSPOSE":
            perm = [int(p) for p in self._values(ins[1])]
            p_in, p_out = x.perm or tuple(range(len(perm))), out.perm or tuple(range(len(perm)))
            onnx_perm = [p_in.index(perm[p_out[j]]) for j in range(len(perm))]
            self._node("Transpose", [x.name], [out.name], perm=onnx_perm)
        elif name == "QUANTIZE":
            scale, zero = self._scale_zero(out)
            self._node("QuantizeLinear", [x.name, scale, zero], [out.name], **self._axis(out))
        elif name == "DEQUANTIZE":
            if x.elem_type in (TensorProto.FLOAT16, TensorProto.BFLOAT16):
                self._node("Cast", [self._input(ins[0])], [out.name], to=out.elem_type)
            else:
                scale, zero = self._scale_zero(x)
                self._node(
                    "DequantizeLinear",
                    [self._input(ins[0]), scale, zero],
                    [out.name],
                    **self._axis(x),
                )
        elif name == "CAST":
            self._node("Cast", [x.name], [out.name], to=out.elem_type)
        else:  # _TFLITE_OPAQUE: kept by name, tensors in TFLite's layout
            self._opaque(name, ins, outs)

    def _fully_connected(self, op: Any, ins: list[int], outs: list[int]) -> None:
        o = _opt(op, "FullyConnectedOptions")
        x, w, out = self.tensors[ins[0]], self.tensors[ins[1]], self.tensors[outs[0]]
        result = self._with_activation(outs[0], o.FusedActivationFunction())
        bias = (
            self._weight(ins[2])
            if len(ins) > 2 and ins[2] >= 0 and self.tensors[ins[2]].const
            else None
        )
        if len(out.shape) == 2:
            src = x.name
            if len(x.onnx_shape) != 2:  # TFLite flattens the leading dimensions
                rows = math.prod(x.shape) // max(w.shape[1], 1)
                src = f"{x.name}/as_matrix"
                self._node(
                    "Reshape", [x.name, self._const(f"{src}/shape", (rows, w.shape[1]))], [src]
                )
                self._info(src, x.elem_type, (rows, w.shape[1]))
            args = [src, self._weight(ins[1])] + ([bias] if bias else [])
            self._node("Gemm", args, [result], transB=1)
            return
        weight = self._weight(ins[1], (1, 0))  # [out, in] → MatMul's [in, out]
        product = f"{out.name}/matmul" if bias else result
        self._node("MatMul", [self._input(ins[0]), weight], [product])
        if bias:
            self._info(product, out.elem_type, out.onnx_shape)
            self._node("Add", [product, bias], [result])

    def _scale_zero(self, t: _Tensor) -> tuple[str, str]:
        scale, zero, _ = t.quant or ((1.0,), (0,), 0)
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        one = len(scale) == 1
        return (
            self._const(f"{t.name}/scale", scale[0] if one else scale, np.float32),
            self._const(f"{t.name}/zero_point", zero[0] if one else zero, dtype),
        )

    def _axis(self, t: _Tensor) -> dict[str, int]:
        if t.quant is None or len(t.quant[0]) == 1:
            return {}
        return {"axis": t.onnx_axis(t.quant[2])}

    def _opaque(self, name: str, ins: list[int], outs: list[int]) -> None:
        """A builtin kept by name; NCHW tensors are transposed back to TFLite's layout."""
        args = []
        for i in ins:
            if i < 0:
                args.append("")
                continue
            t = self.tensors[i]
            if t.const:
                args.append(self._weight(i))
            elif t.perm:
                back = f"{t.name}/nhwc"
                self._node("Transpose", [t.name], [back], perm=[0, 2, 3, 1])
                self._info(back, t.elem_type, t.shape)
                args.append(back)
            else:
                args.append(t.name)
        results = []
        for o in outs:
            t = self.tensors[o]
            if t.perm:
                results.append(f"{t.name}/nhwc")
                self._info(results[-1], t.elem_type, t.shape)
            else:
                results.append(t.name)
        self._node(name, args, results)
        for o, result in zip(outs, results, strict=True):
            if result != self.tensors[o].name:
                self._node("Transpose", [result], [self.tensors[o].name], perm=list(_NCHW))


def _padding(code: int) -> str:
    return "SAME_UPPER" if code == 0 else "VALID"
