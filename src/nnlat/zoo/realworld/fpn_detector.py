"""A single-stage detector head (RetinaNet / YOLO / SSD-FPN style), opset 13.

One builder of the held-out real-world set (:mod:`nnlat.zoo.realworld`).
"""

from __future__ import annotations

import onnx
import torch
import torch.nn.functional as F  # noqa: N812 (the conventional name)
from torch import nn

from nnlat.zoo.realworld.export import export_torchscript, seeded


class _FpnDetector(nn.Module):
    """Three-stage backbone, FPN top-down path, shared heads on three levels."""

    def __init__(self, classes: int = 8, anchors: int = 3, width: int = 32) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.c3 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU())
        self.lat1, self.lat2, self.lat3 = (
            nn.Conv2d(16, width, 1),
            nn.Conv2d(32, width, 1),
            nn.Conv2d(64, width, 1),
        )
        self.up = nn.ConvTranspose2d(width, width, 2, stride=2)
        self.cls = nn.Conv2d(width, anchors * classes, 3, padding=1)
        self.box = nn.Conv2d(width, anchors * 4, 3, padding=1)
        self.classes = classes

    def _head(self, level: torch.Tensor, conv: nn.Module, size: int) -> torch.Tensor:
        out = conv(level).permute(0, 2, 3, 1)
        return out.reshape(out.shape[0], -1, size)

    def forward(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        c1 = self.stem(image)
        c2 = self.c2(c1)
        c3 = self.c3(c2)
        p3 = self.lat3(c3)
        p2 = self.lat2(c2) + F.interpolate(p3, scale_factor=2.0, mode="nearest")
        p1 = self.lat1(c1) + self.up(p2)
        levels = (p1, p2, p3)
        scores = torch.cat([self._head(p, self.cls, self.classes) for p in levels], 1)
        boxes = torch.cat([self._head(p, self.box, 4) for p in levels], 1)
        return scores.sigmoid(), boxes


def fpn_detector() -> onnx.ModelProto:
    """A single-stage detector head (RetinaNet / YOLO / SSD-FPN style), opset 13.

    ``image`` (N, 3, H, W), all three dynamic → strided Conv/Relu backbone → FPN lateral
    1x1 ``Conv`` + top-down ``Resize`` (nearest ×2) + ``ConvTranspose`` upsampling →
    class/box ``Conv`` heads on three levels, each ``Transpose`` + ``Reshape`` (target
    built from ``Shape`` of the dynamic batch) → ``Concat`` → ``Sigmoid``.
    """
    with seeded():
        module = _FpnDetector()
    return export_torchscript(
        module,
        (torch.zeros(1, 3, 64, 96),),
        opset=13,
        input_names=["image"],
        output_names=["scores", "boxes"],
        dynamic_axes={
            "image": {0: "batch", 2: "height", 3: "width"},
            "scores": {0: "batch", 1: "anchors"},
            "boxes": {0: "batch", 1: "anchors"},
        },
    )
