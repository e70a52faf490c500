"""The op-level interface every EdgeDLPerf space writes its network against, once.

A space module defines ``network(config, nn)``: it calls the methods below on ``nn`` and
returns the output tensor. Two classes implement them:

- :class:`~nnlat.zoo.edge.keras_net.KerasNet` builds Keras layers, which TensorFlow's
  post-training quantisation turns into int8 TFLite (``converter="tensorflow"``: the
  reference, and the cross-check of the other);
- :class:`~nnlat.zoo.edge.int8_net.Int8Net` writes the fully int8 TFLite operators the
  converter would emit, directly (``converter="direct"``, the default: no TensorFlow).

So each method names one TFLite operator (or the operator the converter fuses a Keras
pattern into) and takes exactly what decides the operator's attributes and shapes.
Shapes include the batch dimension (always 1); images are NHWC.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, TypeVar

T = TypeVar("T")
Padding = Literal["same", "valid"]
Activation = Literal["relu"] | None


class Net(Protocol[T]):
    """What a design space's ``network(config, nn)`` may call; ``T`` is the tensor type.

    Example:
        >>> def tiny(nn: Net[T]) -> T:
        ...     x = nn.input((1, 8, 8, 3))
        ...     x = nn.conv2d(x, 4, (3, 3), 1, "same", "relu")
        ...     return nn.reshape(nn.average_pool(x), (1, 4))
    """

    def input(self, shape: tuple[int, ...]) -> T:
        """The model's (only) input, float in Keras, int8 in TFLite."""
        ...

    def conv2d(
        self,
        x: T,
        filters: int,
        kernel: tuple[int, int],
        stride: int,
        padding: Padding,
        activation: Activation,
    ) -> T:
        """CONV_2D with a bias (zero-initialised) and an optional fused ReLU."""
        ...

    def depthwise_conv2d(
        self, x: T, kernel: tuple[int, int], stride: int, padding: Padding, activation: Activation
    ) -> T:
        """DEPTHWISE_CONV_2D, depth multiplier 1, with a bias and an optional fused ReLU."""
        ...

    def zero_pad(self, x: T, amount: int) -> T:
        """PAD by ``amount`` on every side of both spatial dimensions."""
        ...

    def average_pool(self, x: T) -> T:
        """AVERAGE_POOL_2D over the whole spatial map (window = stride = the map)."""
        ...

    def add(self, x: T, y: T) -> T:
        """Element-wise ADD of two activations of one shape."""
        ...

    def reshape(self, x: T, shape: tuple[int, ...]) -> T:
        """RESHAPE to ``shape`` (batch included)."""
        ...

    def transpose(self, x: T, perm: tuple[int, ...]) -> T:
        """TRANSPOSE by ``perm`` (batch included; ``perm[0]`` must be 0)."""
        ...

    def dense(self, x: T, units: int) -> T:
        """FULLY_CONNECTED over the last axis (zero bias, which the converter drops)."""
        ...

    def class_token_and_position(self, x: T) -> T:
        """Prepend a learned token along axis 1 (CONCATENATION), add a learned position
        embedding (ADD): ``(1, n, d)`` → ``(1, n + 1, d)``."""
        ...

    def slice_last(self, x: T, start: int, stop: int) -> T:
        """STRIDED_SLICE ``x[..., start:stop]`` of a rank-3 tensor."""
        ...

    def select(self, x: T, axis: int, index: int) -> T:
        """STRIDED_SLICE taking ``index`` on ``axis`` and dropping that axis."""
        ...

    def batch_matmul(self, x: T, y: T, *, transpose_y: bool = False) -> T:
        """BATCH_MATMUL of rank-3 activations, ``y`` transposed on its last two axes."""
        ...

    def scale(self, x: T, factor: float) -> T:
        """MUL by a scalar constant."""
        ...

    def softmax(self, x: T) -> T:
        """SOFTMAX over the last axis."""
        ...

    def gelu(self, x: T) -> T:
        """GELU, tanh approximation (written out in Keras; the converter fuses it)."""
        ...

    def concat(self, xs: Sequence[T], axis: int) -> T:
        """CONCATENATION of activations along ``axis``."""
        ...
