"""The Keras implementation of :class:`~nnlat.zoo.edge.net.Net`: what TensorFlow converts.

Each method creates the Keras layer (or ``keras.ops`` expression) whose int8 conversion is
the TFLite operator :class:`~nnlat.zoo.edge.net.Net` names. Layers are created in call
order, so a seeded build draws the same initial weights whatever calls it. Keras is
imported inside the methods: importing this module costs nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from nnlat.zoo.edge.net import Activation, Net, Padding

if TYPE_CHECKING:
    import keras

C = TypeVar("C")


class KerasNet:
    """Builds a Keras functional model; pass it to a space's ``network(config, nn)``.

    Example:
        >>> nn = KerasNet()  # doctest: +SKIP
        >>> x = nn.input((1, 8, 8, 3))  # doctest: +SKIP
        >>> nn.model(nn.conv2d(x, 4, (3, 3), 1, "same", "relu"), "tiny")  # doctest: +SKIP
    """

    def __init__(self) -> None:
        self._input: keras.KerasTensor | None = None

    def model(self, output: keras.KerasTensor, name: str) -> keras.Model:
        """The Keras model from :meth:`input` to ``output``."""
        import keras

        return keras.Model(self._input, output, name=name)

    def input(self, shape: tuple[int, ...]) -> keras.KerasTensor:
        import keras

        self._input = keras.Input(shape[1:], batch_size=shape[0])
        return self._input

    def conv2d(
        self,
        x: keras.KerasTensor,
        filters: int,
        kernel: tuple[int, int],
        stride: int,
        padding: Padding,
        activation: Activation,
    ) -> keras.KerasTensor:
        import keras

        layer = keras.layers.Conv2D(filters, kernel, stride, padding=padding, activation=activation)
        return layer(x)

    def depthwise_conv2d(
        self,
        x: keras.KerasTensor,
        kernel: tuple[int, int],
        stride: int,
        padding: Padding,
        activation: Activation,
    ) -> keras.KerasTensor:
        import keras

        layer = keras.layers.DepthwiseConv2D(kernel, stride, padding=padding, activation=activation)
        return layer(x)

    def zero_pad(self, x: keras.KerasTensor, amount: int) -> keras.KerasTensor:
        import keras

        return keras.layers.ZeroPadding2D(amount)(x)

    def average_pool(self, x: keras.KerasTensor) -> keras.KerasTensor:
        import keras

        return keras.layers.AveragePooling2D(pool_size=tuple(x.shape[1:3]))(x)

    def add(self, x: keras.KerasTensor, y: keras.KerasTensor) -> keras.KerasTensor:
        import keras

        return keras.layers.Add()([x, y])

    def reshape(self, x: keras.KerasTensor, shape: tuple[int, ...]) -> keras.KerasTensor:
        import keras

        return keras.layers.Reshape(shape[1:])(x)

    def transpose(self, x: keras.KerasTensor, perm: tuple[int, ...]) -> keras.KerasTensor:
        import keras

        if perm[0] != 0:
            raise ValueError(f"transpose {perm} moves the batch axis; Keras' Permute cannot")
        return keras.layers.Permute(perm[1:])(x)

    def dense(self, x: keras.KerasTensor, units: int) -> keras.KerasTensor:
        import keras

        return keras.layers.Dense(units)(x)

    def class_token_and_position(self, x: keras.KerasTensor) -> keras.KerasTensor:
        return _embedding_layer()(x)

    def slice_last(self, x: keras.KerasTensor, start: int, stop: int) -> keras.KerasTensor:
        return x[:, :, start:stop]

    def select(self, x: keras.KerasTensor, axis: int, index: int) -> keras.KerasTensor:
        key: list[Any] = [slice(None)] * len(x.shape)
        key[axis] = index
        return x[tuple(key)]

    def batch_matmul(
        self, x: keras.KerasTensor, y: keras.KerasTensor, *, transpose_y: bool = False
    ) -> keras.KerasTensor:
        from keras import ops

        # The converter folds the transpose into BATCH_MATMUL's adj_y.
        return ops.matmul(x, ops.transpose(y, (0, 2, 1)) if transpose_y else y)

    def scale(self, x: keras.KerasTensor, factor: float) -> keras.KerasTensor:
        return x * factor

    def softmax(self, x: keras.KerasTensor) -> keras.KerasTensor:
        from keras import ops

        return ops.softmax(x, axis=-1)

    def gelu(self, x: keras.KerasTensor) -> keras.KerasTensor:
        from keras import ops

        # Written out as in the paper (POW, MUL, ADD, TANH); TensorFlow 2.21 fuses it.
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * ops.power(x, 3))
        return 0.5 * x * (1.0 + ops.tanh(inner))

    def concat(self, xs: Sequence[keras.KerasTensor], axis: int) -> keras.KerasTensor:
        from keras import ops

        return ops.concatenate(list(xs), axis=axis)


def keras_builder(network: Callable[[C, Net[Any]], Any], name: str) -> Callable[[C], keras.Model]:
    """The Keras ``build(config)`` of a space written as ``network(config, nn)``.

    Example:
        >>> from nnlat.zoo.edge import cnn_kws
        >>> build = keras_builder(cnn_kws.network, "cnn_kws")
    """

    def build(config: C) -> keras.Model:
        nn = KerasNet()
        return nn.model(network(config, nn), name)

    return build


def _embedding_layer() -> keras.layers.Layer:
    """A layer prepending a learned class token and adding a learned position embedding."""
    import keras
    from keras import ops

    # Defined here, not at module level: subclassing keras.layers.Layer imports TensorFlow.
    class Embedding(keras.layers.Layer):
        def build(self, input_shape: tuple[int, ...]) -> None:
            tokens, dim = input_shape[1], input_shape[2]
            self.class_token = self.add_weight(shape=(1, 1, dim), initializer="random_normal")
            self.position = self.add_weight(shape=(1, tokens + 1, dim), initializer="random_normal")

        def call(self, x: Any) -> Any:
            return ops.concatenate([self.class_token, x], axis=1) + self.position

    return Embedding()
