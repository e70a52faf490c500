"""Data to run a model with: random inputs, user inputs from an ``.npz``, random weights.

Latency rarely depends on values, but a few things must hold for a run to be valid:

* **integer inputs** are token ids, positions, masks, counts or indices: their values
  come from how the graph uses them (:mod:`nnlat.measure.integer_inputs`), so an
  embedding never indexes out of range, a mask is 0/1 and a loop runs a few times;
* **floats** are standard normal, **bools** fair coin flips;
* **weights**: the storage form of a graph (:attr:`Graph.onnx_bytes`) keeps the shapes
  of its large initializers but not their values. :func:`materialize_weights` fills them
  with seeded values that keep activations at a sane magnitude through deep networks
  (no overflow to inf, no underflow into slow denormals): matrices ``N(0, 1/fan_in)``,
  vectors (biases, norm scales, variances) uniform in ``[0.5, 1)`` so divisions and
  square roots stay finite, indices in range, quantization scales small and zero points
  zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

from nnlat.errors import NnlatError
from nnlat.graph.ir import Graph, TensorSpec
from nnlat.graph.onnx_io import iter_graphs
from nnlat.graph.tensors import has_data
from nnlat.limits import DEFAULT_LIMITS, exceeded
from nnlat.measure.integer_inputs import INDEX_SLOTS, MAX_INT_INPUT, integer_values


class InputDataError(NnlatError):
    """User-supplied input arrays do not fit the model, or no inputs can be generated."""


def _static_shape(spec: TensorSpec) -> tuple[int, ...]:
    if not spec.is_static:
        raise InputDataError(
            f"input {spec.name!r} has no static shape ({spec.shape}); fix it with "
            f"input_shapes={{'{spec.name}': (...)}} / --input-shape {spec.name}=DIMS"
        )
    return tuple(int(d) for d in spec.shape)  # type: ignore[union-attr, arg-type]


def _numpy_dtype(name: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:  # bfloat16 and the float8 types live in ml_dtypes (an onnx dependency)
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))


def _check_bytes(sizes: list[tuple[str, int]], limit: str, max_bytes: int, what: str) -> None:
    """Refuse to allocate ``sizes`` (name, bytes) if together they exceed ``max_bytes``."""
    total = sum(size for _, size in sizes)
    if total > max_bytes:
        name, largest = max(sizes, key=lambda item: item[1])
        raise exceeded(
            limit,
            max_bytes,
            f"the {what} of this model need {total:,} bytes ({name!r}: {largest:,})",
        )


def random_inputs(
    graph: Graph, seed: int = 0, *, max_bytes: int = DEFAULT_LIMITS.max_input_bytes
) -> dict[str, np.ndarray]:
    """Seeded random arrays for every graph input, of the right dtype and shape.

    Args:
        graph: a graph whose inputs have static shapes (as :func:`nnlat.graph.load` makes).
        seed: the random seed.
        max_bytes: refuse inputs larger than this in all (``Limits.max_input_bytes``).

    Returns:
        Input name → array (never a NumPy scalar, even for 0-D inputs), in graph-input
        order.

    Raises:
        InputDataError: an input has no static shape or an unsupported dtype (string).
        LimitExceededError: the inputs would take more than ``max_bytes``.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> x = random_inputs(load(tiny_model()))["x"]
        >>> x.shape, x.dtype
        ((1, 3, 32, 32), dtype('float32'))
    """
    shapes = {spec.name: _static_shape(spec) for spec in graph.inputs}
    # Generation goes through float32 or float64 arrays: 8 bytes an element at most.
    _check_bytes(
        [(name, math.prod(shape) * 8) for name, shape in shapes.items()],
        "max_input_bytes",
        max_bytes,
        "inputs",
    )
    rng = np.random.default_rng(seed)
    arrays: dict[str, np.ndarray] = {}
    for spec in graph.inputs:
        shape = shapes[spec.name]
        if spec.dtype == "bool":
            values = rng.random(shape) < 0.5
        elif spec.dtype.startswith(("int", "uint")):
            values = integer_values(graph, spec.name, shape, spec.dtype, rng)
        elif spec.dtype.startswith(("float", "bfloat")):
            values = rng.standard_normal(shape, dtype=np.float32).astype(_numpy_dtype(spec.dtype))
        else:
            raise InputDataError(
                f"input {spec.name!r} has dtype {spec.dtype}, for which nnlat cannot make "
                "random data; supply the inputs as an .npz file"
            )
        # A 0-D draw is a NumPy scalar (numpy.bool, ...), which runtimes refuse as input.
        arrays[spec.name] = np.asarray(values)
    return arrays


def load_npz(path: str | Path, graph: Graph) -> dict[str, np.ndarray]:
    """Load user-supplied inputs from an ``.npz`` and check them against the graph.

    Args:
        path: an ``.npz`` holding one array per graph input, keyed by input name.
        graph: the graph the arrays are for.

    Returns:
        Input name → array, in graph-input order.

    Raises:
        InputDataError: the file is unreadable, or names, shapes or dtypes do not match;
            the message lists what the model expects.

    Example:
        >>> import tempfile, numpy as np
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> g = load(tiny_model())
        >>> f = tempfile.NamedTemporaryFile(suffix=".npz", delete=False)
        >>> np.savez(f, x=np.zeros((1, 3, 32, 32), np.float32)); f.close()
        >>> load_npz(f.name, g)["x"].shape
        (1, 3, 32, 32)
        >>> import os; os.unlink(f.name)
    """
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputDataError(f"cannot read inputs from {path}: {exc}") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise InputDataError(
            f"{path} holds a single array, not an .npz archive of named inputs; "
            "save one with numpy.savez(path, input_name=array, ...)"
        )
    with data:
        arrays = {key: data[key] for key in data.files}
    return check_inputs(arrays, graph, label=str(path))


def check_inputs(
    arrays: Mapping[str, np.ndarray], graph: Graph, label: str = "inputs"
) -> dict[str, np.ndarray]:
    """Check user arrays against the graph's inputs: names, shapes and dtypes.

    Args:
        arrays: input name → array.
        graph: the graph they are for.
        label: what to call the arrays in error messages (a file name).

    Returns:
        Input name → array, in graph-input order.

    Raises:
        InputDataError: a name is missing or unknown, or a shape or dtype differs.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> check_inputs({"x": np.zeros((1, 3, 32, 32), np.float32)}, load(tiny_model()))["x"].ndim
        4
    """
    expected = ", ".join(f"{s.name}: {s.dtype}{list(s.shape or [])}" for s in graph.inputs)
    names = [s.name for s in graph.inputs]
    missing = [n for n in names if n not in arrays]
    extra = sorted(set(arrays) - set(names))
    if missing or extra:
        raise InputDataError(
            f"{label}: missing inputs {missing or '-'}, unknown arrays {extra or '-'}; "
            f"the model expects {expected}"
        )
    for spec in graph.inputs:
        array = np.asarray(arrays[spec.name])
        shape = _static_shape(spec)
        if tuple(array.shape) != shape:
            raise InputDataError(
                f"{label}: input {spec.name!r} has shape {list(array.shape)}, the model "
                f"expects {list(shape)} (fix it with --input-shape/--batch-size or "
                f"reshape the array); expected: {expected}"
            )
        if array.dtype.name != spec.dtype:
            raise InputDataError(
                f"{label}: input {spec.name!r} has dtype {array.dtype.name}, the model "
                f"expects {spec.dtype} (save it with .astype('{spec.dtype}')); "
                f"expected: {expected}"
            )
    return {n: np.asarray(arrays[n]) for n in names}


# How a weight is used decides its values: (op, input slot) → kind.
_SLOT_KINDS = {
    ("MatMul", 1): "matmul_b",
    ("Gemm", 1): "gemm_b",
    ("DequantizeLinear", 0): "quantized",
    ("DequantizeLinear", 1): "scale",
    ("QuantizeLinear", 1): "scale",
    ("DequantizeLinear", 2): "zero",
    ("QuantizeLinear", 2): "zero",
    # com.microsoft's int8 LSTM: weights, their scales, and zero points that must be 0.
    ("DynamicQuantizeLSTM", 1): "quantized",
    ("DynamicQuantizeLSTM", 2): "quantized",
    ("DynamicQuantizeLSTM", 8): "scale",
    ("DynamicQuantizeLSTM", 9): "zero",
    ("DynamicQuantizeLSTM", 10): "scale",
    ("DynamicQuantizeLSTM", 11): "zero",
    **{key: "index" for key in INDEX_SLOTS},
}


def _weight_values(
    tensor: onnx.TensorProto,
    uses: list[tuple[onnx.NodeProto, int]],
    shapes: Mapping[str, tuple[int, ...]],
    rng: np.random.Generator,
) -> np.ndarray:
    dims = tuple(int(d) for d in tensor.dims)
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.data_type))
    kinds = {_SLOT_KINDS.get((node.op_type, slot), "") for node, slot in uses}
    if "zero" in kinds:
        return np.zeros(dims, dtype)
    if dtype == np.bool_:
        return np.asarray(rng.random(dims) < 0.5)
    if dtype.kind in "iu":
        if "quantized" in kinds:
            info = np.iinfo(dtype)
            return np.asarray(
                rng.integers(max(info.min, -127), min(info.max, 127), size=dims, dtype=dtype)
            )
        bound = 2  # masks, flags and the like: 0/1 is valid for them and as an index
        for node, slot in uses:
            if _SLOT_KINDS.get((node.op_type, slot)) != "index":
                continue
            axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
            table = shapes.get(node.input[0])
            if table and -len(table) <= axis < len(table) and table[axis] > 0:
                bound = min(max(bound, table[axis]), MAX_INT_INPUT)
        return np.asarray(rng.integers(0, bound, size=dims).astype(dtype))
    if "scale" in kinds:
        values = rng.uniform(0.005, 0.02, size=dims)
    elif len(dims) >= 2:
        if "matmul_b" in kinds:
            fan_in = dims[-2]
        elif "gemm_b" in kinds:
            node = next(n for n, s in uses if _SLOT_KINDS.get((n.op_type, s)) == "gemm_b")
            trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
            fan_in = dims[1] if trans_b else dims[0]
        else:
            fan_in = math.prod(dims[1:])  # Conv (out, in/groups, k...) and most others
        values = rng.standard_normal(dims) / math.sqrt(max(fan_in, 1))
    else:
        values = rng.uniform(0.5, 1.0, size=dims)
    return np.asarray(values.astype(dtype))


def materialize_weights(
    onnx_bytes: bytes, seed: int = 0, *, max_bytes: int = DEFAULT_LIMITS.max_weight_bytes
) -> onnx.ModelProto:
    """Fill every data-less initializer (and ``Constant``) of a weight-free model.

    Args:
        onnx_bytes: a weight-free ONNX model, e.g. :attr:`Graph.onnx_bytes`.
        seed: the random seed; the same seed gives the same weights.
        max_bytes: refuse weights larger than this in all (``Limits.max_weight_bytes``).

    Returns:
        A runnable ModelProto; tensors that kept their values are untouched.

    Raises:
        LimitExceededError: the weights would take more than ``max_bytes``.

    Example:
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> m = materialize_weights(load(tiny_model()).onnx_bytes)
        >>> numpy_helper.to_array(m.graph.initializer[0]).shape
        (8, 3, 3, 3)
    """
    model = onnx.load_from_string(onnx_bytes)
    # Drawn as float64 before the cast: 8 bytes an element at most.
    sizes = [
        (tensor.name, math.prod(tensor.dims) * 8)
        for graph in iter_graphs(model.graph)
        for tensor in [
            *graph.initializer,
            *(a.t for n in graph.node if n.op_type == "Constant" for a in n.attribute),
        ]
        if not has_data(tensor)
    ]
    if sizes:
        _check_bytes(sizes, "max_weight_bytes", max_bytes, "weights")
    rng = np.random.default_rng(seed)
    for graph in iter_graphs(model.graph):
        uses: dict[str, list[tuple[onnx.NodeProto, int]]] = {}
        for node in graph.node:
            for slot, name in enumerate(node.input):
                uses.setdefault(name, []).append((node, slot))
        shapes = {
            v.name: tuple(d.dim_value for d in v.type.tensor_type.shape.dim)
            for v in [*graph.input, *graph.value_info, *graph.output]
        }
        shapes.update({t.name: tuple(t.dims) for t in graph.initializer})
        for tensor in graph.initializer:
            if not has_data(tensor):
                values = _weight_values(tensor, uses.get(tensor.name, []), shapes, rng)
                tensor.CopyFrom(numpy_helper.from_array(values, tensor.name))
        for node in graph.node:
            if node.op_type != "Constant":
                continue
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.TENSOR and not has_data(attr.t):
                    out_uses = uses.get(node.output[0], [])
                    values = _weight_values(attr.t, out_uses, shapes, rng)
                    attr.t.CopyFrom(numpy_helper.from_array(values, attr.t.name))
    return model
