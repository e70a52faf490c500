"""CNN-KWS: PerfSAGE's keyword-spotting design space (§3.2, Table 2).

The paper: "derived from the one used in Banbury et al. (2021) [MicroNets] by adding
kernel size options ... This design space also contains models that have non-square
shaped convolutional filters", on Google Speech Commands. MicroNets' KWS models are
DS-CNNs (Zhang et al., "Hello Edge", 2017) on 49 frames × 10 MFCC coefficients: a first
convolution with a tall time × frequency kernel, then depthwise-separable layers
(depthwise k×k, pointwise 1×1, ReLU), average pooling and a classifier.

Our choices where the paper is silent, sampled uniformly and independently:

- input: the flat 490-value MFCC fingerprint, reshaped to 49×10×1 as TensorFlow's
  ``speech_commands`` DS-CNN does (a RESHAPE operator, which with Table 2's CNN-KWS
  operator count of 7–21 suggests the same: 5 + 2 × layers for 1–8 layers);
- first convolution: stride 2×2, kernel time ∈ {4, 6, 8, 10} × frequency ∈ {2, 3, 4}
  ("Hello Edge" uses 10×4), channels as below;
- 1–8 depthwise-separable layers, each with its own depthwise kernel time ∈ {1, 3, 5, 7}
  × frequency ∈ {1, 3, 5} and channels ∈ {32, 64, 96, 128, 192, 256, 384, 512}
  (MicroNets-KWS-L has 276);
- head: average pooling over the remaining 25×5 map, 1×1 convolution to the 12 Speech
  Commands classes, reshape to ``(1, 12)`` (Table 2 lists no FULLY_CONNECTED here).

"Same" padding throughout: TFLite pads inside the convolution, and Table 2 lists no PAD
for this space.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Self, TypeVar

from nnlat.zoo.edge.net import Net
from nnlat.zoo.edge.space import as_config, edge_family
from nnlat.zoo.family import Config

T = TypeVar("T")

FRAMES = 49
COEFFICIENTS = 10
NUM_CLASSES = 12
FIRST_TIME_KERNELS = (4, 6, 8, 10)
FIRST_FREQ_KERNELS = (2, 3, 4)
TIME_KERNELS = (1, 3, 5, 7)
FREQ_KERNELS = (1, 3, 5)
CHANNELS = (32, 64, 96, 128, 192, 256, 384, 512)
MIN_LAYERS = 1
MAX_LAYERS = 8


@dataclass(frozen=True)
class Layer:
    """A depthwise-separable layer: depthwise ``kernel`` (time, frequency), 1×1 to ``channels``."""

    channels: int
    kernel: tuple[int, int]


@dataclass(frozen=True)
class KwsConfig:
    """A DS-CNN keyword spotter; ``first_kernel`` is (time, frequency)."""

    frames: int
    coefficients: int
    num_classes: int
    first_channels: int
    first_kernel: tuple[int, int]
    layers: tuple[Layer, ...]

    def to_config(self) -> Config:
        """The JSON-able recipe."""
        return as_config(self)

    @classmethod
    def from_config(cls, config: Config) -> Self:
        """Inverse of :meth:`to_config`."""
        layers = tuple(
            Layer(layer["channels"], tuple(layer["kernel"])) for layer in config["layers"]
        )
        return cls(**{**config, "first_kernel": tuple(config["first_kernel"]), "layers": layers})


def sample(rng: random.Random) -> KwsConfig:
    """A uniformly drawn keyword spotter.

    Example:
        >>> config = sample(random.Random(0))
        >>> (config.frames, config.coefficients), MIN_LAYERS <= len(config.layers) <= MAX_LAYERS
        ((49, 10), True)
    """
    first_channels = rng.choice(CHANNELS)
    first_kernel = (rng.choice(FIRST_TIME_KERNELS), rng.choice(FIRST_FREQ_KERNELS))
    layers = tuple(
        Layer(rng.choice(CHANNELS), (rng.choice(TIME_KERNELS), rng.choice(FREQ_KERNELS)))
        for _ in range(rng.randint(MIN_LAYERS, MAX_LAYERS))
    )
    return KwsConfig(
        frames=FRAMES,
        coefficients=COEFFICIENTS,
        num_classes=NUM_CLASSES,
        first_channels=first_channels,
        first_kernel=first_kernel,
        layers=layers,
    )


def network(config: KwsConfig, nn: Net[T]) -> T:
    """The network, written against :class:`~nnlat.zoo.edge.net.Net`:
    ``(1, frames × coefficients)`` fingerprint → ``(1, num_classes)``."""
    x = nn.input((1, config.frames * config.coefficients))
    x = nn.reshape(x, (1, config.frames, config.coefficients, 1))
    x = nn.conv2d(x, config.first_channels, config.first_kernel, 2, "same", "relu")
    for layer in config.layers:
        x = nn.depthwise_conv2d(x, layer.kernel, 1, "same", "relu")
        x = nn.conv2d(x, layer.channels, (1, 1), 1, "valid", "relu")
    x = nn.average_pool(x)
    x = nn.conv2d(x, config.num_classes, (1, 1), 1, "valid", None)
    return nn.reshape(x, (1, config.num_classes))


def primitive_name(kind: str, *sizes: int) -> str:
    """The name of one primitive workload, e.g. ``dw_7x5_c64`` (see :func:`primitive_networks`).

    Example:
        >>> primitive_name("pw", 64, 128), primitive_name("first", 10, 4, 32)
        ('pw_64_128', 'first_10x4_c32')
    """
    if kind in ("first", "dw"):
        time, freq, channels = sizes
        return f"{kind}_{time}x{freq}_c{channels}"
    return "_".join([kind, *map(str, sizes)])


def feature_map(channels: int) -> tuple[int, int, int, int]:
    """The map every layer after the first convolution sees: ``(1, 25, 5, channels)``.

    Example:
        >>> feature_map(64)
        (1, 25, 5, 64)
    """
    return (1, -(-FRAMES // 2), -(-COEFFICIENTS // 2), channels)


def primitive_sizes() -> dict[str, tuple[str, tuple[int, ...]]]:
    """Every operator of the space at the sizes the space uses it: name → (kind, sizes).

    Sizes are ``(time, frequency, channels)`` for ``first`` and ``dw``, ``(in, out)``
    channels for ``pw``, ``(channels,)`` for ``head``, as :func:`primitive_name` takes them.

    Example:
        >>> primitive_sizes()["pw_64_128"]
        ('pw', (64, 128))
    """
    sizes: list[tuple[str, tuple[int, ...]]] = []
    for channels in CHANNELS:
        first = itertools.product(FIRST_TIME_KERNELS, FIRST_FREQ_KERNELS)
        sizes += [("first", (t, f, channels)) for t, f in first]
        sizes += [
            ("dw", (t, f, channels)) for t, f in itertools.product(TIME_KERNELS, FREQ_KERNELS)
        ]
        sizes += [("pw", (channels, c_out)) for c_out in CHANNELS]
        sizes.append(("head", (channels,)))
    return {primitive_name(kind, *size): (kind, size) for kind, size in sizes}


def _first(nn: Net[T], time: int, freq: int, channels: int) -> T:
    x = nn.reshape(nn.input((1, FRAMES * COEFFICIENTS)), (1, FRAMES, COEFFICIENTS, 1))
    return nn.conv2d(x, channels, (time, freq), 2, "same", "relu")


def _depthwise(nn: Net[T], time: int, freq: int, channels: int) -> T:
    return nn.depthwise_conv2d(nn.input(feature_map(channels)), (time, freq), 1, "same", "relu")


def _pointwise(nn: Net[T], c_in: int, c_out: int) -> T:
    return nn.conv2d(nn.input(feature_map(c_in)), c_out, (1, 1), 1, "valid", "relu")


def _head(nn: Net[T], channels: int) -> T:
    x = nn.average_pool(nn.input(feature_map(channels)))
    x = nn.conv2d(x, NUM_CLASSES, (1, 1), 1, "valid", None)
    return nn.reshape(x, (1, NUM_CLASSES))


PRIMITIVE_BUILDERS: dict[str, Callable[..., object]] = {
    "first": _first,
    "dw": _depthwise,
    "pw": _pointwise,
    "head": _head,
}
"""kind → ``build(nn, *sizes)`` of one primitive alone."""


def primitive_networks() -> dict[str, Callable[[Net[T]], T]]:
    """Every operator of the space alone, at the size the space uses it (MAPLE §3.3).

    A spotter is a sum of these, by :func:`primitive_names`:

    - ``first_<t>x<f>_c<c>``: the fingerprint's reshape and the first convolution (96);
    - ``dw_<t>x<f>_c<c>``: a depthwise layer on the 25×5 map of ``c`` channels (96);
    - ``pw_<in>_<out>``: a pointwise layer from ``in`` to ``out`` channels (64);
    - ``head_<c>``: average pooling, the classifier convolution and the reshape (8).

    Returns:
        name → ``network(nn)`` written against :class:`~nnlat.zoo.edge.net.Net`.

    Example:
        >>> len(primitive_networks())
        264
    """
    return {
        name: bind_sizes(PRIMITIVE_BUILDERS[kind], size)
        for name, (kind, size) in primitive_sizes().items()
    }


def bind_sizes(build: Callable[..., T], sizes: tuple[int, ...]) -> Callable[[Net[T]], T]:
    """``build(nn, *sizes)`` as a one-argument ``network(nn)``."""
    return lambda nn: build(nn, *sizes)


def primitive_names(config: KwsConfig) -> dict[str, list[str]]:
    """The primitives a spotter is made of, by kind (``first``, ``dw``, ``pw``, ``head``).

    Example:
        >>> config = KwsConfig(49, 10, 12, 64, (10, 4), (Layer(128, (3, 3)),))
        >>> names = primitive_names(config)
        >>> names["first"], names["dw"], names["pw"], names["head"]
        (['first_10x4_c64'], ['dw_3x3_c64'], ['pw_64_128'], ['head_128'])
    """
    names: dict[str, list[str]] = {"first": [], "dw": [], "pw": [], "head": []}
    names["first"].append(primitive_name("first", *config.first_kernel, config.first_channels))
    channels = config.first_channels
    for layer in config.layers:
        names["dw"].append(primitive_name("dw", *layer.kernel, channels))
        names["pw"].append(primitive_name("pw", channels, layer.channels))
        channels = layer.channels
    names["head"].append(primitive_name("head", channels))
    return names


def input_shape(config: KwsConfig) -> tuple[int, ...]:
    """``(1, frames × coefficients)``: the flat MFCC fingerprint."""
    return (1, config.frames * config.coefficients)


def output_shape(config: KwsConfig) -> tuple[int, ...]:
    """``(1, num_classes)``."""
    return (1, config.num_classes)


FAMILY = edge_family(
    name="cnn-kws",
    summary="PerfSAGE CNN-KWS: DS-CNN keyword spotters on 49×10 MFCCs, non-square kernels, int8",
    config_type=KwsConfig,
    sample=sample,
    network=network,
    keras_name="cnn_kws",
    input_shape=input_shape,
    output_shape=output_shape,
)
