"""A dynamic-int8 MobileNet-like classifier (``quantize_dynamic`` of Conv and MatMul).

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import onnx
import torch
from torch import nn

from nnlat.zoo.realworld.export import export_torchscript, quantize_int8, seeded


class _MobileNetLike(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1),
            nn.ReLU6(),
            nn.Conv2d(16, 16, 3, 1, 1, groups=16),  # depthwise
            nn.ReLU6(),
            nn.Conv2d(16, 32, 1),  # pointwise
            nn.ReLU6(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.fc = nn.Linear(32, classes)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(image))


def cnn_int8() -> onnx.ModelProto:
    """A dynamic-int8 MobileNet-like classifier (``quantize_dynamic`` of Conv and MatMul).

    ``image`` (N, 3, 64, 64), dynamic batch → ``DynamicQuantizeLinear`` + ``ConvInteger``
    (regular, depthwise and pointwise) + ``Cast``/``Mul``/``Add`` rescaling + ``Clip``
    (ReLU6) → ``GlobalAveragePool`` → ``MatMulInteger`` classifier.
    """
    with seeded():
        module = _MobileNetLike()
    model = export_torchscript(
        module,
        (torch.zeros(1, 3, 64, 64),),
        opset=13,
        input_names=["image"],
        output_names=["logits"],
        dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
    )
    return quantize_int8(
        model, {"ConvInteger", "MatMulInteger"}, op_types_to_quantize=["Conv", "MatMul"]
    )
