"""``load(source) → Graph``: the single entry point from any model source to the IR."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import onnx

from nnlat.errors import InvalidInputShapeError, ModelLoadError
from nnlat.graph.ir import Graph, Quantization, TensorSpec
from nnlat.graph.normalize import NormalizeOptions, normalize
from nnlat.graph.onnx_io import DEFAULT_MAX_MODEL_BYTES, model_to_ir, read_model
from nnlat.graph.passes.infer_shapes import infer_shapes
from nnlat.graph.tflite_io import (
    Converted,
    converted_to_onnx,
    is_tflite,
    read_converted,
    read_tflite,
)
from nnlat.graph.tflite_ir import converted_to_ir
from nnlat.limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    import torch

ModelSource = str | Path | bytes | onnx.ModelProto | Graph
"""What ``load`` accepts (a ``torch.nn.Module`` too, with ``example_shapes``)."""


def load(
    source: ModelSource | torch.nn.Module,
    *,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    batch_size: int | None = None,
    example_shapes: Sequence[Sequence[int]] | None = None,
    max_model_bytes: int = DEFAULT_MAX_MODEL_BYTES,
    limits: Limits = DEFAULT_LIMITS,
) -> Graph:
    """Load a model as a normalised, weight-free :class:`Graph`.

    Args:
        source: a path to an ONNX or TFLite file, serialised ONNX or TFLite bytes, an
            ``onnx.ModelProto``, an existing ``Graph`` (re-normalised from its stored
            bytes), or a ``torch.nn.Module`` (then ``example_shapes`` is required). TFLite
            is recognised by its file identifier, whatever the file is called.
        input_shapes: input name → shape overrides; they fix dynamic dimensions.
        batch_size: sets dimension 0 of every input without an override.
        example_shapes: the module's input shapes, for a ``torch.nn.Module`` source.
        max_model_bytes: refuse files or bytes larger than this.
        limits: what the model may cost (elements, nodes, nesting, inference memory).

    Returns:
        The graph with inferred shapes, folded constants and canonical attributes.

    Raises:
        ModelLoadError: the source is not a loadable model.
        InvalidModelError: an ONNX source is not a valid model (checker, cycle, dtype, ...).
        LimitExceededError: the model is over ``limits``.
        InvalidInputShapeError: an override or the batch size does not fit the model.
        ExportError: a torch module could not be exported.

    Example:
        >>> from nnlat.testing import tiny_model
        >>> g = load(tiny_model(), batch_size=2)
        >>> g.inputs[0].shape
        (2, 3, 32, 32)
    """
    options = NormalizeOptions(
        batch_size=batch_size,
        input_shapes={k: tuple(int(d) for d in v) for k, v in (input_shapes or {}).items()},
        limits=limits,
    )
    tflite = _tflite_source(source, max_model_bytes)
    if tflite is not None:
        return _load_tflite(*tflite, options)
    model = to_model_proto(
        source, example_shapes=example_shapes, max_model_bytes=max_model_bytes, limits=limits
    )
    return model_to_ir(normalize(model, options, copy=False))  # the proto is ours


def _tflite_source(source: Any, max_bytes: int) -> tuple[bytes, str] | None:
    """(bytes, label) when ``source`` is a TFLite model, None for anything else."""
    if isinstance(source, Graph):
        return (
            (source.source_bytes, "the graph's source")
            if source.source_format == "tflite"
            else None
        )
    if isinstance(source, bytes | bytearray):
        return (
            (read_tflite(source, max_bytes=max_bytes), "the given bytes")
            if is_tflite(source)
            else None
        )
    if not isinstance(source, str | Path):
        return None
    path = Path(source)
    if path.suffix.lower() != ".tflite":
        if not path.is_file():
            return None  # read_model says the file is missing
        with path.open("rb") as file:
            if not is_tflite(file.read(8)):
                return None
    return read_tflite(path, max_bytes=max_bytes), str(path)


def _load_tflite(data: bytes, label: str, options: NormalizeOptions) -> Graph:
    """Read the file straight into the IR (:mod:`nnlat.graph.tflite_ir`), or, for a model
    normalisation would rewrite beyond what that module repeats, convert it to ONNX and
    normalise; either way with quantisation and the original bytes attached."""
    converted = read_converted(data, label)
    _check_fixed_shapes({t.name: t.shape for t in converted.inputs}, options, label)
    storage = functools.partial(_storage_form, data, label, options)
    graph = converted_to_ir(converted, options.limits, storage)
    if graph is None:
        return _normalized_tflite(converted, data, label, options)
    return dataclasses.replace(graph, source_format="tflite", source_bytes=data)


def _storage_form(data: bytes, label: str, options: NormalizeOptions) -> bytes:
    """The normalised weight-free ONNX of a TFLite model (made on first use)."""
    return _normalized_tflite(read_converted(data, label), data, label, options).onnx_bytes


def _normalized_tflite(
    converted: Converted, data: bytes, label: str, options: NormalizeOptions
) -> Graph:
    """The ONNX route: to ONNX, normalise, attach quantisation and the original bytes."""
    model, quant = converted_to_onnx(converted), converted.quant
    declared = {v.name: v for v in model.graph.value_info}
    try:
        model = normalize(model, options, copy=False)
        # Normalisation forgets declared shapes and ONNX cannot infer those of the
        # tflite-domain operators: declare TFLite's own again, then infer what follows.
        typed = {v.name for v in model.graph.value_info if v.type.tensor_type.HasField("shape")}
        missing = [
            declared[o]
            for node in model.graph.node
            for o in node.output
            if o in declared and o not in typed
        ]
        if missing:
            model.graph.value_info.extend(missing)
            infer_shapes(model, options)
        graph = model_to_ir(model)
    except InvalidInputShapeError as exc:  # the shapes are the file's: a converter fault
        raise ModelLoadError(f"{label}: converting the TFLite model failed ({exc})") from None
    return _with_quantization(graph, quant, data)


def _check_fixed_shapes(
    fixed: Mapping[str, tuple[int, ...]], options: NormalizeOptions, label: str
) -> None:
    """Refuse shape overrides: the interpreter runs a TFLite file with its own shapes."""
    unknown = sorted(set(options.input_shapes) - set(fixed))
    if unknown:
        raise InvalidInputShapeError(
            f"{label} has no input {unknown[0]!r}; its inputs are {', '.join(fixed)}"
        )
    for name, shape in fixed.items():
        wanted = options.input_shapes.get(name)
        if wanted is None and options.batch_size is not None and shape:
            wanted = (options.batch_size, *shape[1:])
        if wanted is not None and tuple(wanted) != shape:
            raise InvalidInputShapeError(
                f"{label}: a TFLite model's input shapes are fixed in the file ({name} is "
                f"{shape}, not {tuple(wanted)}); convert it again with the shapes you want"
            )


def _with_quantization(graph: Graph, quant: dict[str, Quantization], data: bytes) -> Graph:
    def spec(s: TensorSpec) -> TensorSpec:
        q = quant.get(s.name)
        return s if q is None else dataclasses.replace(s, quant=q)

    return dataclasses.replace(
        graph,
        inputs=tuple(map(spec, graph.inputs)),
        outputs=tuple(map(spec, graph.outputs)),
        weights={k: spec(v) for k, v in graph.weights.items()},
        tensors={k: spec(v) for k, v in graph.tensors.items()},
        source_format="tflite",
        source_bytes=data,
    )


def to_model_proto(
    source: Any,
    *,
    example_shapes: Sequence[Sequence[int]] | None = None,
    max_model_bytes: int = DEFAULT_MAX_MODEL_BYTES,
    limits: Limits = DEFAULT_LIMITS,
) -> onnx.ModelProto:
    """Turn any supported source into a validated (not yet normalised) ModelProto.

    The result is always a new object the caller may modify. ONNX sources (a path,
    bytes, a ModelProto) are checked by :func:`~nnlat.graph.validate.validate`.

    Raises:
        ModelLoadError: the source is not a loadable model or of an unsupported type.
        InvalidModelError: an ONNX source is not a valid model.
        LimitExceededError: an ONNX source is over ``limits``.
    """
    from nnlat.graph.onnx_io import check_model, parse_model
    from nnlat.graph.validate import validate

    if isinstance(source, Graph):
        return parse_model(source.onnx_bytes, "the graph's stored bytes")
    if isinstance(source, onnx.ModelProto):
        model = onnx.ModelProto()
        model.CopyFrom(source)  # the caller's proto is never modified
        check_model(model, "the given ModelProto")
        validate(model, limits, "the given ModelProto")
        return model
    if isinstance(source, str | Path | bytes | bytearray):
        model = read_model(source, max_bytes=max_model_bytes, limits=limits)
        label = "the given bytes" if isinstance(source, bytes | bytearray) else str(source)
        validate(model, limits, label)
        return model
    if _is_torch_module(source):
        from nnlat.graph.torch_export import export_module

        if not example_shapes:
            raise ModelLoadError(
                "a torch.nn.Module needs example input shapes, "
                "e.g. example_shapes=[(1, 3, 224, 224)]"
            )
        return export_module(source, example_shapes)
    raise ModelLoadError(
        f"cannot load a {type(source).__name__}: give a path, ONNX bytes, an onnx.ModelProto "
        "or a torch.nn.Module"
    )


def _is_torch_module(source: object) -> bool:
    # Checked by name so that loading an ONNX file never imports torch.
    return any(
        f"{c.__module__}.{c.__qualname__}" == "torch.nn.modules.module.Module"
        for c in type(source).__mro__
    )
