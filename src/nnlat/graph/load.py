"""``load(source) → Graph``: the single entry point from any model source to the IR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import onnx

from nnlat.graph.ir import Graph
from nnlat.graph.normalize import NormalizeOptions, normalize
from nnlat.graph.onnx_io import DEFAULT_MAX_MODEL_BYTES, model_to_ir, read_model
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
        source: a path to an ONNX file, serialised ONNX bytes, an ``onnx.ModelProto``,
            an existing ``Graph`` (re-normalised from its stored bytes), or a
            ``torch.nn.Module`` (then ``example_shapes`` is required).
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
    model = to_model_proto(
        source, example_shapes=example_shapes, max_model_bytes=max_model_bytes, limits=limits
    )
    options = NormalizeOptions(
        batch_size=batch_size,
        input_shapes={k: tuple(int(d) for d in v) for k, v in (input_shapes or {}).items()},
        limits=limits,
    )
    return model_to_ir(normalize(model, options, copy=False))  # the proto is ours


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
    from nnlat.errors import ModelLoadError
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
