"""CNN-RealBlocks: random networks built from the blocks of deployed image classifiers.

PerfSAGE's four spaces (:mod:`~nnlat.zoo.edge.cnn_imagenet` and the others) each repeat one
skeleton: a predictor trained on them has never seen a concatenation, a squeeze-and-
excitation gate, a max pooling, a hard-swish or a network much wider than theirs, and on
real architectures it was off by 107 % (``reports/perfsage/real_architectures.md``). This
space draws networks from the building blocks those architectures are made of, mixed at
random, so that an NPU predictor can learn what they cost without training on any
published architecture itself:

- ``conv``: k×k convolution, batch norm, activation (VGG, stems);
- ``basic`` / ``bottleneck``: ResNet's two 3×3 or 1×1–3×3–1×1 residual units, a 1×1
  projection shortcut when the shape changes;
- ``mbconv``: MobileNetV2/V3 and EfficientNet's inverted residual (1×1 expansion, k×k
  depthwise, optional squeeze-and-excitation, linear 1×1 projection, residual when the
  shape allows);
- ``separable``: MobileNetV1 / Xception's depthwise then pointwise convolution;
- ``dense``: DenseNet's layers, each concatenated to its input, with a 1×1 transition;
- ``inception``: four concatenated branches (1×1; 1×1→3×3; 1×1→3×3→3×3; pool→1×1);
- ``fire``: SqueezeNet's 1×1 squeeze and concatenated 1×1 / 3×3 expand.

A network has a stem (3×3 stride 2, or ResNet's 7×7 stride 2 and a max pooling), 3–5
stages (one dominant block type, others mixed in), downsampling by a strided layer or a
pooling, and a head (optional 1×1 convolution, global average pooling, a dense
classifier, optional softmax); one activation (ReLU, ReLU6, hard-swish or swish)
throughout. Inputs are 32–160 px so that Vela estimates a network in seconds.

The blocks use Keras layers that the direct int8 writer (:mod:`~nnlat.zoo.edge.int8_net`)
does not cover, so this family always converts with TensorFlow's post-training
quantisation (:func:`~nnlat.zoo.edge.tflite_export.export_int8`), like the Keras
applications it stands in for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

from nnlat.errors import ExportError
from nnlat.zoo.edge.space import as_config
from nnlat.zoo.family import Config, Family

if TYPE_CHECKING:
    import keras

BLOCKS = ("conv", "basic", "bottleneck", "mbconv", "separable", "dense", "inception", "fire")
ACTIVATIONS = ("relu", "relu6", "hard_swish", "swish")
RESOLUTIONS = (32, 48, 64, 96, 128, 160)
BASE_WIDTHS = (8, 16, 24, 32, 48, 64)
MAX_WIDTH = 512
KEEP_STYLE = 0.7  # chance that a stage uses the network's dominant block type
KERAS_NAME = "cnn_realblocks"


@dataclass(frozen=True)
class Stage:
    """One stage: ``repeats`` blocks of one type, ``width`` output channels.

    Attributes:
        block: one of :data:`BLOCKS`.
        repeats: blocks in the stage (dense: layers).
        width: output channels (dense: the transition's, before the layers' growth).
        stride: 1, or 2 to halve the map at the stage's start.
        downsample: how a stride of 2 is taken: ``"conv"`` (the first block is strided),
            ``"maxpool"`` or ``"avgpool"`` (a 2×2 pooling before it).
        kernel: depthwise kernel of ``mbconv`` and ``separable``; 3 elsewhere.
        expansion: ``mbconv``'s expansion ratio.
        se: ``mbconv`` and ``bottleneck`` gate their output with squeeze-and-excitation.
    """

    block: str
    repeats: int
    width: int
    stride: int
    downsample: str
    kernel: int
    expansion: int
    se: bool


@dataclass(frozen=True)
class RealBlocksConfig:
    """A whole network of the space; every layer is explicit.

    Attributes:
        resolution: input height = width.
        stem: ``"conv3"`` (3×3 stride 2) or ``"conv7pool"`` (7×7 stride 2, 3×3 max pool
            stride 2).
        stem_width: the stem's channels.
        activation: one of :data:`ACTIVATIONS`, everywhere.
        explicit_pad: strided layers are zero-padded then unpadded (a PAD operator, as
            in Keras' MobileNet and ResNet) rather than ``"same"``.
        stages: the stages in order.
        head_width: a 1×1 convolution before pooling; 0 for none.
        num_classes: the classifier's outputs.
        softmax: the model ends with a softmax.
    """

    resolution: int
    stem: str
    stem_width: int
    activation: str
    explicit_pad: bool
    stages: tuple[Stage, ...]
    head_width: int
    num_classes: int
    softmax: bool

    def to_config(self) -> Config:
        """The JSON-able recipe."""
        return as_config(self)

    @classmethod
    def from_config(cls, config: Config) -> Self:
        """Inverse of :meth:`to_config`."""
        return cls(**{**config, "stages": tuple(Stage(**s) for s in config["stages"])})


def _round8(value: float) -> int:
    """``value`` to a multiple of 8, at least 8 (hardware-friendly widths)."""
    return max(8, round(value / 8) * 8)


def sample(rng: random.Random) -> RealBlocksConfig:
    """A random network of the space.

    Example:
        >>> config = sample(random.Random(0))
        >>> 3 <= len(config.stages) <= 5, config.stages[0].block in BLOCKS
        (True, True)
    """
    resolution = rng.choice(RESOLUTIONS)
    stem = rng.choice(("conv3", "conv3", "conv7pool"))
    side = resolution // (4 if stem == "conv7pool" else 2)
    style = rng.choice(BLOCKS)
    base = rng.choice(BASE_WIDTHS)
    growth = rng.choice((1.5, 2.0))
    stages = []
    for index in range(rng.randint(3, 5)):
        block = style if rng.random() < KEEP_STYLE else rng.choice(BLOCKS)
        stride = 2 if index > 0 and side >= 4 else 1
        side //= stride
        stages.append(
            Stage(
                block=block,
                repeats=rng.randint(2, 6) if block == "dense" else rng.randint(1, 4),
                width=min(MAX_WIDTH, _round8(base * growth**index)),
                stride=stride,
                downsample=rng.choices(("conv", "maxpool", "avgpool"), (0.7, 0.15, 0.15))[0],
                kernel=rng.choice((3, 5, 7)) if block in ("mbconv", "separable") else 3,
                expansion=rng.choice((1, 3, 4, 6)),
                se=rng.random() < 0.3,
            )
        )
    return RealBlocksConfig(
        resolution=resolution,
        stem=stem,
        stem_width=rng.choice((8, 16, 24, 32, 64)),
        activation=rng.choice(ACTIVATIONS),
        explicit_pad=rng.random() < 0.5,
        stages=tuple(stages),
        head_width=rng.choice((0, 0, 512, 1024, 1280)),
        num_classes=rng.choice((10, 100, 1000)),
        softmax=rng.random() < 0.5,
    )


class _Builder:
    """Keras layers of one configuration (its activation and padding habits)."""

    def __init__(self, config: RealBlocksConfig) -> None:
        import keras

        self.layers = keras.layers
        self.config = config

    def act(self, x: Any) -> Any:
        """The network's activation."""
        name = self.config.activation
        if name == "relu6":
            return self.layers.ReLU(max_value=6.0)(x)
        return self.layers.Activation(name)(x)

    def conv(self, x: Any, filters: int, kernel: int, stride: int = 1, act: bool = True) -> Any:
        """Convolution, batch norm (folded by the converter), activation."""
        x, padding = self._padded(x, kernel, stride)
        x = self.layers.Conv2D(filters, kernel, stride, padding=padding, use_bias=False)(x)
        x = self.layers.BatchNormalization()(x)
        return self.act(x) if act else x

    def depthwise(self, x: Any, kernel: int, stride: int = 1) -> Any:
        """Depthwise convolution, batch norm, activation."""
        x, padding = self._padded(x, kernel, stride)
        x = self.layers.DepthwiseConv2D(kernel, stride, padding=padding, use_bias=False)(x)
        return self.act(self.layers.BatchNormalization()(x))

    def _padded(self, x: Any, kernel: int, stride: int) -> tuple[Any, str]:
        """``x`` and the padding its strided layer takes: with ``explicit_pad``, a PAD
        operator then ``"valid"``; otherwise ``"same"``."""
        if not (self.config.explicit_pad and stride > 1):
            return x, "same"
        return (self.layers.ZeroPadding2D(kernel // 2)(x) if kernel > 1 else x), "valid"

    def squeeze_excite(self, x: Any, channels: int) -> Any:
        """Global pooling, 1×1 reduce, 1×1 expand, sigmoid gate, multiply."""
        s = self.layers.GlobalAveragePooling2D(keepdims=True)(x)
        s = self.layers.Conv2D(max(8, channels // 4), 1, activation="relu")(s)
        s = self.layers.Conv2D(channels, 1, activation="sigmoid")(s)
        return self.layers.Multiply()([x, s])

    def shortcut(self, x: Any, y: Any, stride: int) -> Any:
        """``x + y``, ``x`` projected by a strided 1×1 convolution when shapes differ."""
        if stride > 1 or x.shape[-1] != y.shape[-1]:
            x = self.layers.Conv2D(y.shape[-1], 1, stride, use_bias=False)(x)
            x = self.layers.BatchNormalization()(x)
        return self.layers.Add()([x, y])

    def block(self, x: Any, stage: Stage, stride: int) -> Any:
        """One block of ``stage`` (a dense stage's layers all at once)."""
        kind, width = stage.block, stage.width
        if kind == "conv":
            return self.conv(x, width, 3, stride)
        if kind == "basic":
            y = self.conv(self.conv(x, width, 3, stride), width, 3, act=False)
            return self.act(self.shortcut(x, y, stride))
        if kind == "bottleneck":
            y = self.conv(x, max(8, width // 4), 1)
            y = self.conv(y, max(8, width // 4), 3, stride)
            y = self.conv(y, width, 1, act=False)
            y = self.squeeze_excite(y, width) if stage.se else y
            return self.act(self.shortcut(x, y, stride))
        if kind == "mbconv":
            channels = x.shape[-1]
            y = self.conv(x, channels * stage.expansion, 1) if stage.expansion > 1 else x
            y = self.depthwise(y, stage.kernel, stride)
            y = self.squeeze_excite(y, y.shape[-1]) if stage.se else y
            y = self.conv(y, width, 1, act=False)
            same = stride == 1 and channels == width
            return self.layers.Add()([x, y]) if same else y
        if kind == "separable":
            return self.conv(self.depthwise(x, stage.kernel, stride), width, 1)
        if kind == "dense":
            return self.dense_block(x, stage, stride)
        if kind == "inception":
            return self.inception(x, width, stride)
        if kind == "fire":
            x = self.layers.MaxPooling2D(2)(x) if stride > 1 else x
            squeezed = self.conv(x, max(8, width // 8), 1)
            left, right = self.conv(squeezed, width // 2, 1), self.conv(squeezed, width // 2, 3)
            return self.layers.Concatenate()([left, right])
        raise ValueError(f"unknown block {kind!r}; expected one of {', '.join(BLOCKS)}")

    def dense_block(self, x: Any, stage: Stage, stride: int) -> Any:
        """A 1×1 transition to ``width`` (average-pooled when strided), then the layers."""
        x = self.conv(x, stage.width, 1)
        x = self.layers.AveragePooling2D(2)(x) if stride > 1 else x
        growth = max(8, stage.width // 4)
        for _ in range(stage.repeats):
            y = self.conv(self.conv(x, 4 * growth, 1), growth, 3)
            x = self.layers.Concatenate()([x, y])
        return x

    def inception(self, x: Any, width: int, stride: int) -> Any:
        """Four branches concatenated to ``width`` channels (a reduction when strided)."""
        quarter, eighth = max(8, width // 4), max(8, width // 8)
        pooled = self.layers.MaxPooling2D(3, stride, padding="same")(x)
        branches = [
            self.conv(self.conv(x, eighth, 1), quarter + eighth, 3, stride),
            self.conv(self.conv(self.conv(x, eighth, 1), eighth, 3), eighth, 3, stride),
            self.conv(pooled, quarter, 1),
        ]
        if stride == 1:
            branches.insert(0, self.conv(x, quarter, 1))
        return self.layers.Concatenate()(branches)


def build(config: RealBlocksConfig) -> keras.Model:
    """The Keras model of ``config`` (NHWC input, ``(1, num_classes)`` outputs)."""
    import keras

    nn = _Builder(config)
    inputs = keras.Input((config.resolution, config.resolution, 3), batch_size=1)
    x = nn.conv(inputs, config.stem_width, 7 if config.stem == "conv7pool" else 3, 2)
    if config.stem == "conv7pool":
        x = keras.layers.MaxPooling2D(3, 2, padding="same")(x)
    for stage in config.stages:
        for index in range(1 if stage.block == "dense" else stage.repeats):
            stride = stage.stride if index == 0 else 1
            if stride > 1 and stage.downsample != "conv" and stage.block not in ("dense", "fire"):
                maxpool = stage.downsample == "maxpool"
                pool = keras.layers.MaxPooling2D if maxpool else keras.layers.AveragePooling2D
                x = pool(2)(x)
                stride = 1
            x = nn.block(x, stage, stride)
    if config.head_width:
        x = nn.conv(x, config.head_width, 1)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dense(config.num_classes)(x)
    if config.softmax:
        x = keras.layers.Softmax()(x)
    return keras.Model(inputs, x, name=KERAS_NAME)


def input_shape(config: RealBlocksConfig) -> tuple[int, ...]:
    """``(1, R, R, 3)``: TFLite images are NHWC."""
    return (1, config.resolution, config.resolution, 3)


def export_tflite(config: Config, converter: str | None = None) -> bytes:
    """The fully int8 ``.tflite`` of a configuration, always by TensorFlow's converter.

    Raises:
        ExportError: ``converter="direct"`` (these Keras layers have no direct writer), or
            TensorFlow is missing or could not convert.
    """
    from nnlat.zoo.edge.tflite_export import export_int8

    if converter == "direct":
        raise ExportError(
            "cnn-realblocks has no direct int8 writer (concatenation, pooling and gates are "
            "Keras-only here); use the tensorflow converter"
        )
    network = RealBlocksConfig.from_config(config)
    return export_int8(lambda: build(network), input_shape(network))


FAMILY = Family(
    name="cnn-realblocks",
    summary="Random CNNs from deployed blocks (ResNet, MBConv+SE, dense, inception, fire), int8",
    sample=lambda rng: sample(rng).to_config(),
    build=lambda config: build(RealBlocksConfig.from_config(config)),
    input_shape=lambda config: input_shape(RealBlocksConfig.from_config(config)),
    output_shape=lambda config: (1, config["num_classes"]),
    source_format="tflite",
    export_tflite=export_tflite,
)
