"""Shared fixtures: paths to the onnx wheel's weight-free real CNNs."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

LIGHT_MODELS = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


@pytest.fixture
def light_resnet50() -> Path:
    """ResNet-50 (Caffe2 export, opset 9, weights as ConstantOfShape)."""
    return LIGHT_MODELS / "light_resnet50.onnx"
