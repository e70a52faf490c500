"""How corpus models are exported: seeded weights, the TorchScript exporter, opsets 9–18.

Real deployed ONNX files were mostly made with ``torch.onnx.export(..., dynamo=False)``
at whatever opset the author picked; the corpus does the same, with real (seeded) weights
so that constant folding, quantization and calibration see the values a trained model
would have in kind, and so that the file runs as given.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import onnx
import torch
from torch import nn

from nnlat.errors import ExportError, NnlatError
from nnlat.zoo.family import Config

# The opsets the corpus draws from: the TorchScript exporter's range that onnxruntime
# 1.18+ runs, 9 (old Caffe2-era exports) to 18 (the exporter's newest common one).
OPSETS = (9, 10, 11, 12, 13, 14, 15, 16, 17, 18)


@contextmanager
def seeded(seed: int = 0) -> Iterator[None]:
    """Seed torch's RNG for weight init without disturbing the caller's RNG state."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


class _KeywordCall(nn.Module):
    """Calls ``module(**{name: arg})`` and returns its first output: the exporter passes
    positional arguments, and many library models take their inputs by keyword only."""

    def __init__(self, module: nn.Module, names: Sequence[str]) -> None:
        super().__init__()
        self.module = module
        self.names = list(names)

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        out = self.module(**dict(zip(self.names, args, strict=True)))
        if isinstance(out, torch.Tensor):
            return out
        return out[0]  # a ModelOutput or a tuple: the main output comes first


def export_torchscript(
    module: nn.Module,
    inputs: dict[str, torch.Tensor],
    opset: int,
    *,
    by_keyword: bool = False,
) -> onnx.ModelProto:
    """Export ``module`` (eval mode, weights kept) at ``opset`` with the TorchScript exporter.

    Args:
        module: the network, with the weights it should ship with.
        inputs: input name → example tensor (its dtype and shape become the graph input's).
        opset: 9 to 18.
        by_keyword: call ``module(**inputs)`` instead of ``module(*inputs.values())``.

    Raises:
        ExportError: the exporter failed; the message carries torch's last line.

    Example:
        >>> m = export_torchscript(nn.Conv2d(3, 4, 3), {"x": torch.zeros(1, 3, 8, 8)}, 11)
        >>> m.opset_import[0].version, [n.op_type for n in m.graph.node]
        (11, ['Conv'])
    """
    if opset not in OPSETS:
        raise NnlatError(f"opset {opset} is outside the corpus range {OPSETS[0]}-{OPSETS[-1]}")
    names = list(inputs)
    wrapped = _KeywordCall(module, names) if by_keyword else module
    buffer = io.BytesIO()
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                wrapped.eval(),
                tuple(inputs.values()),
                buffer,
                opset_version=opset,
                dynamo=False,
                do_constant_folding=True,
                input_names=names,
                output_names=["output"],
            )
    except Exception as exc:  # the exporter raises many unrelated types
        last = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
        raise ExportError(f"could not export {type(module).__name__}: {last}") from exc
    return onnx.load_from_string(buffer.getvalue())


def no_module(config: Config) -> nn.Module:
    """``Family.build`` of a family that makes its ONNX directly: there is no module."""
    raise NnlatError("this corpus family makes its ONNX directly; use ZooModel.to_onnx()")
