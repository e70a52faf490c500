"""The direct implementation of :class:`~nnlat.zoo.edge.net.Net`: fully int8 TFLite, no TensorFlow.

:class:`Int8Net` records, for each call, the operators, tensors and quantisation that
TensorFlow 2.21's post-training quantisation emits for the matching Keras layers
(:class:`~nnlat.zoo.edge.keras_net.KerasNet`), checked model by model in
``scripts/edge_writer_equivalence.py``. :func:`write_int8` turns the record into a
``.tflite`` flatbuffer (:mod:`nnlat.zoo.edge.flatbuffer`).

What the converter does, and so what this writes:

- **Weights**: Keras' initial values are untrained random numbers; here they are drawn
  from the same distributions (Glorot-uniform kernels, normal(0, 0.05) embeddings, zero
  biases) by a seeded numpy generator — the values differ from TensorFlow's, their
  distribution and every shape, type and layout do not. Convolution, depthwise and dense
  weights are int8, symmetric per output channel (scale = max|w| / 127, zero point 0;
  depthwise on axis 3); biases int32 zeros with scale = input scale × weight scale; a
  dense layer's zero bias is dropped (input -1), as the converter does.
- **Activation ranges** are calibrated as the converter does: a float forward pass
  (:mod:`nnlat.zoo.edge.float_ops`) over the same seeded standard-normal inputs, min/max
  per tensor, asymmetric int8 (range widened to hold 0). Operators that move values
  without computing (RESHAPE, TRANSPOSE, PAD, STRIDED_SLICE, AVERAGE_POOL_2D) keep their
  input's quantisation; CONCATENATION gives its inputs its own; ADD takes its second
  activation operand's (what TensorFlow 2.21 emits); SOFTMAX outputs scale 1/256, zero
  point -128.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from nnlat.zoo.edge import float_ops
from nnlat.zoo.edge.flatbuffer import ModelDef, OpDef, TensorDef, write_model
from nnlat.zoo.edge.net import Activation, Net, Padding

C = TypeVar("C")

CALIBRATION_SAMPLES = 4  # as nnlat.zoo.edge.tflite_export: the same calibration inputs
WEIGHT_SEED = 0
EMBEDDING_STDDEV = 0.05  # Keras' "random_normal" initialiser
_PADDING = {"same": 0, "valid": 1}
_ACTIVATION = {None: 0, "relu": 1}


@dataclass
class Act:
    """An activation tensor of :class:`Int8Net`: its index and calibration values.

    Attributes:
        index: the tensor's index in the model.
        shape: the tensor's shape (batch 1).
        value: float values on the calibration batch (axis 0 holds the samples).
    """

    index: int
    shape: tuple[int, ...]
    value: np.ndarray = field(repr=False)


class Int8Net:
    """Records a fully int8 TFLite model; pass it to a space's ``network(config, nn)``.

    Example:
        >>> nn = Int8Net()
        >>> x = nn.input((1, 8, 8, 3))
        >>> y = nn.reshape(nn.average_pool(nn.conv2d(x, 4, (3, 3), 1, "same", "relu")), (1, 4))
        >>> nn.finish(y).tensors[y.index].shape
        (1, 4)
    """

    def __init__(
        self, *, seed: int = WEIGHT_SEED, calibration_samples: int = CALIBRATION_SAMPLES
    ) -> None:
        self._seed = seed
        self._samples = calibration_samples
        self._weights = np.random.default_rng([seed, 1])
        self._tensors: list[TensorDef] = []
        self._ops: list[OpDef] = []
        self._ranges: dict[int, tuple[float, float]] = {}
        self._same: dict[int, int] = {}  # tensor → the tensor whose quantisation it takes
        self._late: list[Callable[[], None]] = []  # constants quantised from activations
        self._input: int | None = None

    # --- the Net interface ----------------------------------------------------------------

    def input(self, shape: tuple[int, ...]) -> Act:
        # The converter's calibration inputs (tflite_export.export_int8), drawn identically.
        rng = np.random.default_rng(self._seed)
        samples = [rng.standard_normal(shape).astype(np.float32) for _ in range(self._samples)]
        x = self._activation("input", shape, np.concatenate(samples))
        self._input = x.index
        return x

    def conv2d(
        self,
        x: Act,
        filters: int,
        kernel: tuple[int, int],
        stride: int,
        padding: Padding,
        activation: Activation,
    ) -> Act:
        kh, kw = kernel
        fans = (kh * kw * x.shape[3], kh * kw * filters)
        w = self._glorot((filters, kh, kw, x.shape[3]), fans)
        value = _activate(float_ops.conv2d(x.value, w, stride, padding), activation)
        return self._conv("CONV_2D", x, w, 0, value, stride, padding, activation)

    def depthwise_conv2d(
        self, x: Act, kernel: tuple[int, int], stride: int, padding: Padding, activation: Activation
    ) -> Act:
        kh, kw = kernel
        w = self._glorot((1, kh, kw, x.shape[3]), (kh * kw * x.shape[3], kh * kw))
        value = _activate(float_ops.depthwise_conv2d(x.value, w, stride, padding), activation)
        return self._conv("DEPTHWISE_CONV_2D", x, w, 3, value, stride, padding, activation)

    def zero_pad(self, x: Act, amount: int) -> Act:
        pads = np.array([[0, 0], [amount, amount], [amount, amount], [0, 0]], np.int32)
        value = np.pad(x.value, [tuple(p) for p in pads])
        return self._unary("PAD", x, value, [self._int32(pads, "paddings")], same=True)

    def average_pool(self, x: Act) -> Act:
        h, w = x.shape[1:3]
        value = x.value.mean(axis=(1, 2), keepdims=True)
        options = {"Padding": 1, "StrideH": h, "StrideW": w, "FilterHeight": h, "FilterWidth": w}
        return self._unary("AVERAGE_POOL_2D", x, value, [], same=True, options=options)

    def add(self, x: Act, y: Act) -> Act:
        out = self._activation("add", x.shape, x.value + y.value, same=y.index)
        self._op("ADD", [x.index, y.index], out, {"PotScaleInt16": True})
        return out

    def reshape(self, x: Act, shape: tuple[int, ...]) -> Act:
        value = x.value.reshape((x.value.shape[0], *shape[1:]))
        shape_tensor = self._int32(np.array(shape, np.int32), "shape")
        return self._unary("RESHAPE", x, value, [shape_tensor], same=True, shape=shape)

    def transpose(self, x: Act, perm: tuple[int, ...]) -> Act:
        value = x.value.transpose(perm)
        shape = tuple(x.shape[p] for p in perm)
        perm_tensor = self._int32(np.array(perm, np.int32), "perm")
        return self._unary("TRANSPOSE", x, value, [perm_tensor], same=True, shape=shape)

    def dense(self, x: Act, units: int) -> Act:
        w = self._glorot((units, x.shape[-1]), (x.shape[-1], units))
        weights = self._per_channel(w, 0, "dense")
        out = self._activation("dense", (*x.shape[:-1], units), x.value @ w.T)
        options = {"KeepNumDims": len(x.shape) > 2}
        self._op("FULLY_CONNECTED", [x.index, weights, -1], out, options)
        return out

    def class_token_and_position(self, x: Act) -> Act:
        _, tokens, dim = x.shape
        token = self._weights.normal(0.0, EMBEDDING_STDDEV, (1, 1, dim)).astype(np.float32)
        position = self._weights.normal(0.0, EMBEDDING_STDDEV, (1, tokens + 1, dim))
        position = position.astype(np.float32)
        batch_token = np.broadcast_to(token, (x.value.shape[0], 1, dim))
        joined = self._activation(
            "concat", (1, tokens + 1, dim), np.concatenate([batch_token, x.value], axis=1)
        )
        token_index = self._constant_like(token, joined.index, "class_token")
        self._link(x.index, joined.index)
        self._op("CONCATENATION", [token_index, x.index], joined, {"Axis": 1})
        position_index = self._asymmetric_constant(position, "position")
        out = self._activation("add", joined.shape, joined.value + position, same=joined.index)
        self._op("ADD", [joined.index, position_index], out, {"PotScaleInt16": True})
        return out

    def slice_last(self, x: Act, start: int, stop: int) -> Act:
        rank = len(x.shape)
        begin, end = [0] * rank, [0] * rank
        begin[-1], end[-1] = start, stop
        mask = (1 << (rank - 1)) - 1  # every axis but the last is taken whole
        shape = (*x.shape[:-1], stop - start)
        return self._strided_slice(x, begin, end, mask, 0, x.value[..., start:stop], shape)

    def select(self, x: Act, axis: int, index: int) -> Act:
        rank = len(x.shape)
        begin, end = [0] * rank, [0] * rank
        begin[axis], end[axis] = index, index + 1
        mask = ((1 << rank) - 1) & ~(1 << axis)
        value = np.take(x.value, index, axis=axis)
        shape = x.shape[:axis] + x.shape[axis + 1 :]
        return self._strided_slice(x, begin, end, mask, 1 << axis, value, shape)

    def batch_matmul(self, x: Act, y: Act, *, transpose_y: bool = False) -> Act:
        other = y.value.swapaxes(-1, -2) if transpose_y else y.value
        shape = (*x.shape[:-1], y.shape[-2] if transpose_y else y.shape[-1])
        out = self._activation("batch_matmul", shape, x.value @ other)
        options = {"AdjX": False, "AdjY": transpose_y}
        self._op("BATCH_MATMUL", [x.index, y.index], out, options)
        return out

    def scale(self, x: Act, factor: float) -> Act:
        factor_index = self._asymmetric_constant(np.array(factor, np.float32), "factor")
        out = self._activation("mul", x.shape, x.value * np.float32(factor))
        self._op("MUL", [x.index, factor_index], out, {})
        return out

    def softmax(self, x: Act) -> Act:
        out = self._activation("softmax", x.shape, float_ops.softmax(x.value))
        self._ranges[out.index] = (0.0, 255 / 256)  # TFLite's fixed 1/256 output scale
        self._op("SOFTMAX", [x.index], out, {"Beta": 1.0})
        return out

    def gelu(self, x: Act) -> Act:
        out = self._activation("gelu", x.shape, float_ops.gelu_tanh(x.value))
        self._op("GELU", [x.index], out, {"Approximate": True})
        return out

    def concat(self, xs: Sequence[Act], axis: int) -> Act:
        value = np.concatenate([x.value for x in xs], axis=axis)
        out = self._activation("concat", (1, *value.shape[1:]), value)
        for x in xs:
            self._link(x.index, out.index)
        self._op("CONCATENATION", [x.index for x in xs], out, {"Axis": axis})
        return out

    # --- the model ------------------------------------------------------------------------

    def finish(self, output: Act) -> ModelDef:
        """Resolve every quantisation and return the model with ``output`` as its output."""
        for index in self._ranges:
            source = self._resolve(index)
            scale, zero_point = _asymmetric(*self._ranges[source])
            tensor = self._tensors[index]
            tensor.scale, tensor.zero_point = np.array([scale], np.float32), np.array([zero_point])
        for step in self._late:
            step()
        assert self._input is not None, "the network never called input()"
        return ModelDef(self._tensors, self._ops, [self._input], [output.index])

    # --- helpers --------------------------------------------------------------------------

    def _resolve(self, index: int) -> int:
        while index in self._same:
            index = self._same[index]
        return index

    def _link(self, index: int, to: int) -> None:
        if index in self._same:
            raise ValueError(f"tensor {index} already shares another tensor's quantisation")
        self._same[index] = to

    def _activation(
        self, name: str, shape: tuple[int, ...], value: np.ndarray, same: int | None = None
    ) -> Act:
        index = self._tensor(TensorDef(f"{name}_{len(self._tensors)}", tuple(shape), "int8"))
        value = value.astype(np.float32, copy=False)
        self._ranges[index] = (float(value.min()), float(value.max()))
        if same is not None:
            self._link(index, same)
        return Act(index, tuple(shape), value)

    def _tensor(self, tensor: TensorDef) -> int:
        self._tensors.append(tensor)
        return len(self._tensors) - 1

    def _op(self, op: str, inputs: list[int], out: Act, options: dict[str, Any]) -> None:
        self._ops.append(OpDef(op, tuple(inputs), (out.index,), options))

    def _unary(
        self,
        op: str,
        x: Act,
        value: np.ndarray,
        constants: list[int],
        *,
        same: bool,
        shape: tuple[int, ...] | None = None,
        options: dict[str, Any] | None = None,
    ) -> Act:
        shape = shape if shape is not None else (1, *value.shape[1:])
        out = self._activation(op.lower(), shape, value, same=x.index if same else None)
        self._op(op, [x.index, *constants], out, options or {})
        return out

    def _strided_slice(
        self,
        x: Act,
        begin: list[int],
        end: list[int],
        mask: int,
        shrink: int,
        value: np.ndarray,
        shape: tuple[int, ...],
    ) -> Act:
        rank = len(x.shape)
        constants = [
            self._int32(np.array(v, np.int32), name)
            for v, name in ((begin, "begin"), (end, "end"), ([1] * rank, "strides"))
        ]
        options = {"BeginMask": mask, "EndMask": mask, "ShrinkAxisMask": shrink}
        out = self._activation("strided_slice", shape, value, same=x.index)
        self._op("STRIDED_SLICE", [x.index, *constants], out, options)
        return out

    def _conv(
        self,
        op: str,
        x: Act,
        w: np.ndarray,
        axis: int,
        value: np.ndarray,
        stride: int,
        padding: Padding,
        activation: Activation,
    ) -> Act:
        weights = self._per_channel(w, axis, op.lower())
        channels = w.shape[axis]
        bias = self._tensor(TensorDef(f"bias_{len(self._tensors)}", (channels,), "int32"))
        self._tensors[bias].data = np.zeros(channels, np.int32)

        def bias_scale() -> None:
            in_scale = self._tensors[x.index].scale
            w_scale = self._tensors[weights].scale
            assert in_scale is not None and w_scale is not None
            self._tensors[bias].scale = (in_scale * w_scale).astype(np.float32)
            self._tensors[bias].zero_point = np.zeros(channels, np.int64)

        self._late.append(bias_scale)
        out = self._activation(op.lower(), (1, *value.shape[1:]), value)
        options: dict[str, Any] = {
            "Padding": _PADDING[padding],
            "StrideH": stride,
            "StrideW": stride,
            "FusedActivationFunction": _ACTIVATION[activation],
        }
        if op == "DEPTHWISE_CONV_2D":
            options["DepthMultiplier"] = 1
        self._op(op, [x.index, weights, bias], out, options)
        return out

    def _glorot(self, shape: tuple[int, ...], fans: tuple[int, int]) -> np.ndarray:
        limit = np.float32(math.sqrt(6.0 / (fans[0] + fans[1])))
        unit = self._weights.random(shape, dtype=np.float32)
        return (unit * 2 - 1) * limit

    def _per_channel(self, w: np.ndarray, axis: int, name: str) -> int:
        """Symmetric int8 weights with one scale per slice along ``axis``."""
        others = tuple(a for a in range(w.ndim) if a != axis)
        peak = np.abs(w).max(axis=others)
        scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        data = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        tensor = TensorDef(f"{name}_weights_{len(self._tensors)}", w.shape, "int8", data)
        tensor.scale, tensor.zero_point = scale, np.zeros(scale.size, np.int64)
        tensor.quantized_dimension = axis
        return self._tensor(tensor)

    def _asymmetric_constant(self, values: np.ndarray, name: str) -> int:
        """A float constant quantised per tensor over its own range (with 0)."""
        scale, zero_point = _asymmetric(float(values.min()), float(values.max()))
        data = _quantize(values, scale, zero_point)
        tensor = TensorDef(f"{name}_{len(self._tensors)}", values.shape, "int8", data)
        tensor.scale, tensor.zero_point = np.array([scale], np.float32), np.array([zero_point])
        return self._tensor(tensor)

    def _constant_like(self, values: np.ndarray, like: int, name: str) -> int:
        """A float constant quantised with activation ``like``'s (final) quantisation."""
        index = self._tensor(TensorDef(f"{name}_{len(self._tensors)}", values.shape, "int8"))

        def quantize() -> None:
            source = self._tensors[like]
            assert source.scale is not None and source.zero_point is not None
            tensor = self._tensors[index]
            tensor.scale, tensor.zero_point = source.scale, source.zero_point
            tensor.data = _quantize(values, float(source.scale[0]), int(source.zero_point[0]))

        self._late.append(quantize)
        return index

    def _int32(self, values: np.ndarray, name: str) -> int:
        return self._tensor(
            TensorDef(f"{name}_{len(self._tensors)}", values.shape, "int32", values.ravel())
        )


def _activate(value: np.ndarray, activation: Activation) -> np.ndarray:
    return np.maximum(value, 0.0, out=value) if activation == "relu" else value


def _asymmetric(low: float, high: float) -> tuple[float, int]:
    """TFLite's int8 (scale, zero point) for the range [low, high], widened to hold 0."""
    low, high = min(low, 0.0), max(high, 0.0)
    if high == low:
        high = low + 1e-6  # a constant tensor: any positive scale
    scale = (high - low) / 255.0
    zero_point = int(np.clip(round(-128 - low / scale), -128, 127))
    return scale, zero_point


def _quantize(values: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    return np.clip(np.rint(values / scale) + zero_point, -128, 127).astype(np.int8)


def write_int8(network: Callable[[C, Net[Any]], Act], config: C, **kwargs: Any) -> bytes:
    """The fully int8 ``.tflite`` of a space's network, written without TensorFlow.

    Args:
        network: the space's ``network(config, nn)``.
        config: its configuration.
        **kwargs: passed to :class:`Int8Net` (``seed``, ``calibration_samples``).

    Example:
        >>> from nnlat.zoo.edge import cnn_kws
        >>> import random
        >>> write_int8(cnn_kws.network, cnn_kws.sample(random.Random(0)))[4:8]
        b'TFL3'
    """
    nn = Int8Net(**kwargs)
    return write_model(nn.finish(network(config, nn)))
