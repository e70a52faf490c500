"""Small torch building blocks shared by the corpus's own generators."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from torch import nn

if TYPE_CHECKING:
    import onnx

    from nnlat.zoo.family import Config

ACTIVATIONS: dict[str, type[nn.Module]] = {
    "relu": nn.ReLU,
    "silu": nn.SiLU,
    "leaky_relu": nn.LeakyReLU,
    "hardswish": nn.Hardswish,
    "relu6": nn.ReLU6,
}


def conv_bn_act(
    cin: int, cout: int, kernel: int, stride: int, act: str | nn.Module, groups: int = 1
) -> nn.Sequential:
    """Conv2d + BatchNorm + activation (the exporter folds the norm into the conv); ``act``
    names one of :data:`ACTIVATIONS` or is the module itself (a ``PReLU`` of ``cout``)."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        act if isinstance(act, nn.Module) else ACTIVATIONS[act](),
    )


class ChannelsLast(nn.Module):
    """Wraps a channels-first network behind an NHWC input, as TF/Keras exports and
    many mobile pipelines feed images: a ``Transpose`` first, then the network."""

    def __init__(self, body: nn.Module) -> None:
        super().__init__()
        self.body = body

    def forward(self, x):  # type: ignore[no-untyped-def]
        return self.body(x.permute(0, 3, 1, 2))


def export_image_model(
    build: Callable[[Config], nn.Module], config: Config, input_name: str, shape: tuple[int, ...]
) -> onnx.ModelProto:
    """``build(config)`` with seeded weights, NHWC-wrapped when the configuration says so,
    exported at the configuration's opset with one image input ``input_name`` of ``shape``.

    The detection and OCR families share this: one image in, layout and opset from the
    configuration.
    """
    import torch

    from nnlat.zoo.corpus.export import export_torchscript, seeded

    with seeded(config["seed"]):
        model: nn.Module = build(config)
    if config["layout"] == "nhwc":
        model = ChannelsLast(model)
    return export_torchscript(model, {input_name: torch.rand(*shape)}, config["opset"])
