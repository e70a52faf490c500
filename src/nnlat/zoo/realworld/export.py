"""How the real-world imitations made with torch are exported and quantized.

Seeded weights, the TorchScript exporter most deployed ONNX files were made with, and
onnxruntime's dynamic int8 quantization (imported lazily: it is the ``dev`` extra).
"""

from __future__ import annotations

import io
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import onnx
import torch
from torch import nn


@contextmanager
def seeded(seed: int = 0) -> Iterator[None]:
    """Seed torch's RNG for weight init without disturbing the caller's RNG state."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def export_torchscript(
    module: nn.Module,
    args: tuple[torch.Tensor | int, ...],
    *,
    opset: int,
    input_names: list[str],
    output_names: list[str],
    dynamic_axes: dict[str, dict[int, str]],
) -> onnx.ModelProto:
    """Export with the TorchScript exporter, as most deployed ONNX files were made."""
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module.eval(),
            args,
            buffer,
            dynamo=False,
            opset_version=opset,
            do_constant_folding=True,
            input_names=input_names,
            output_names=output_names,
            dynamic_axes=dynamic_axes,
        )
    return onnx.load_from_string(buffer.getvalue())


def quantize_int8(
    model: onnx.ModelProto, required_ops: set[str], **kwargs: object
) -> onnx.ModelProto:
    """Dynamic int8 quantization with onnxruntime, as deployment pipelines apply it.

    Raises:
        RuntimeError: the quantized model lacks one of ``required_ops`` (the builder would
            then no longer test what its docstring promises).
    """
    from onnxruntime.quantization import quantize_dynamic

    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "float.onnx", Path(folder) / "int8.onnx"
        onnx.save(model, source)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(source, target, **kwargs)  # type: ignore[arg-type]
        quantized = onnx.load(target)
    present = {n.op_type for n in quantized.graph.node}
    missing = required_ops - present
    if missing:
        raise RuntimeError(
            f"quantize_dynamic produced no {sorted(missing)} (got {sorted(present)})"
        )
    return quantized
