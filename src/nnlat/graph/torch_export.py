"""torch.nn.Module → weight-free ONNX ModelProto.

Exports with the TorchScript exporter (``dynamo=False``): it is fast (milliseconds for a
small CNN, which matters when a campaign exports thousands of variants) and folds
BatchNorm into the preceding convolution, as deployment runtimes do. Parameters are not
serialised (``export_params=False``); they appear as extra graph inputs, which are turned
back into weight-free initializers here, so a VGG-16 exports to a few kilobytes.

torch is imported lazily so that ``import nnlat.graph`` stays light.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import onnx

from nnlat.errors import ExportError

if TYPE_CHECKING:
    import torch

DEFAULT_OPSET = 17


def export_module(
    module: torch.nn.Module,
    input_shapes: Sequence[Sequence[int]],
    *,
    opset: int = DEFAULT_OPSET,
    input_names: Sequence[str] | None = None,
) -> onnx.ModelProto:
    """Export ``module`` in eval mode to a weight-free ONNX model.

    Args:
        module: the network; it is put in eval mode (its weights are never read).
        input_shapes: one static shape per positional input, float32 inputs.
        opset: ONNX opset version (≥ 17).
        input_names: names of the graph inputs (default ``input``, ``input_1``, ...).

    Returns:
        A ModelProto whose parameters are initializers with shapes but no data.

    Raises:
        ExportError: the exporter failed; the message carries torch's reason.

    Example:
        >>> import torch
        >>> m = export_module(torch.nn.Conv2d(3, 8, 3), [(1, 3, 32, 32)])
        >>> [n.op_type for n in m.graph.node]
        ['Conv']
    """
    import torch

    if opset < 17:
        raise ExportError(f"opset {opset} is too old: nnlat exports with opset >= 17")
    module = module.eval()
    args = tuple(torch.zeros(*shape) for shape in input_shapes)
    names = list(input_names or [f"input_{i}" if i else "input" for i in range(len(args))])
    buffer = io.BytesIO()
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module,
                args,
                buffer,
                opset_version=opset,
                dynamo=False,
                export_params=False,
                do_constant_folding=True,
                # Without this the exporter merges parameters whose (uninitialised)
                # values happen to be equal into Identity nodes: the same module would
                # export to different graphs from run to run.
                keep_initializers_as_inputs=True,
                input_names=names,
                output_names=["output"],
            )
    except Exception as exc:  # the exporter raises many unrelated types
        raise ExportError(f"could not export {type(module).__name__} to ONNX: {exc}") from exc
    model = onnx.load_from_string(buffer.getvalue())
    _parameters_to_initializers(model, keep=set(names))
    return model


def _parameters_to_initializers(model: onnx.ModelProto, keep: set[str]) -> None:
    """Turn the parameter inputs left by ``export_params=False`` into data-less initializers."""
    graph = model.graph
    real_inputs = [i for i in graph.input if i.name in keep]
    for value in graph.input:
        if value.name in keep:
            continue
        tensor_type = value.type.tensor_type
        weight = onnx.TensorProto(name=value.name, data_type=tensor_type.elem_type)
        weight.dims.extend(d.dim_value for d in tensor_type.shape.dim)
        graph.initializer.append(weight)
    del graph.input[:]
    graph.input.extend(real_inputs)
