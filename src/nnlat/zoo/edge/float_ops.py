"""Float reference kernels (numpy, NHWC) for calibrating the direct int8 writer.

TensorFlow's converter calibrates activation ranges by running the float model on random
inputs; :class:`~nnlat.zoo.edge.int8_net.Int8Net` does the same with these kernels, on
the same inputs. They follow TensorFlow's semantics where it matters for the ranges
("same" padding puts the extra row/column at the end; GELU is the tanh approximation).
Arrays carry the calibration batch on axis 0.
"""

from __future__ import annotations

import math

import numpy as np


def conv_padding(size: int, kernel: int, stride: int, padding: str) -> tuple[int, int, int]:
    """TensorFlow's (output size, pad before, pad after) along one spatial axis.

    Example:
        >>> conv_padding(32, 3, 2, "same"), conv_padding(34, 3, 2, "valid")
        ((16, 0, 1), (16, 0, 0))
    """
    if padding == "valid":
        return (size - kernel) // stride + 1, 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return out, total // 2, total - total // 2


def conv2d(x: np.ndarray, w: np.ndarray, stride: int, padding: str) -> np.ndarray:
    """``x`` (N, H, W, I) convolved with ``w`` (O, kh, kw, I), TFLite's filter layout.

    Example:
        >>> conv2d(np.ones((1, 4, 4, 2), np.float32), np.ones((3, 3, 3, 2), np.float32),
        ...        1, "same")[0, 1, 1]
        array([18., 18., 18.], dtype=float32)
    """
    return _torch_conv(x, w.transpose(0, 3, 1, 2), stride, padding, groups=1)


def depthwise_conv2d(x: np.ndarray, w: np.ndarray, stride: int, padding: str) -> np.ndarray:
    """``x`` (N, H, W, C) convolved channel by channel with ``w`` (1, kh, kw, C)."""
    return _torch_conv(x, w.transpose(3, 0, 1, 2), stride, padding, groups=x.shape[3])


def _torch_conv(
    x: np.ndarray, w_oihw: np.ndarray, stride: int, padding: str, groups: int
) -> np.ndarray:
    """PyTorch's convolution on NHWC arrays, padded as TensorFlow pads.

    Channels-last views cost no copy, and oneDNN convolves them ~10× faster than a numpy
    im2col; torch is already a dependency of every zoo family.
    """
    import torch
    from torch.nn import functional

    kh, kw = w_oihw.shape[2:]
    (_, top, bottom), (_, left, right) = (
        conv_padding(x.shape[1 + a], (kh, kw)[a], stride, padding) for a in (0, 1)
    )
    image = torch.from_numpy(np.ascontiguousarray(x)).permute(0, 3, 1, 2)
    if top or bottom or left or right:
        image = functional.pad(image, (left, right, top, bottom))
    weight = torch.from_numpy(np.ascontiguousarray(w_oihw))
    with torch.no_grad():
        out = functional.conv2d(image, weight, stride=stride, groups=groups)
    return out.permute(0, 2, 3, 1).numpy()


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (what TFLite's ``GELU(approximate=True)`` computes)."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
