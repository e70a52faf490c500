"""How a design space written with frozen dataclasses becomes a zoo :class:`Family`.

Each space module defines a frozen configuration dataclass with ``to_config`` (plain
JSON-able dict, the stored recipe) and ``from_config`` (its inverse), a seeded
``sample(rng)`` and ``network(config, nn)``, its network written once against the op
interface :class:`~nnlat.zoo.edge.net.Net`. :func:`edge_family` wraps them as a family
whose source format is TFLite, so the registry, ``ZooModel`` and ``nnlat zoo export``
treat them like every other family; its export writes the int8 flatbuffer directly or
through TensorFlow (:mod:`nnlat.zoo.edge.converters`).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable
from typing import Any, Protocol, Self, TypeVar

from nnlat.zoo.edge.converters import export
from nnlat.zoo.edge.keras_net import keras_builder
from nnlat.zoo.edge.net import Net
from nnlat.zoo.family import Config, Family


class SpaceConfig(Protocol):
    """A design space's frozen configuration dataclass."""

    @classmethod
    def from_config(cls, config: Config) -> Self:
        """Rebuild from :meth:`to_config`'s dict."""
        ...

    def to_config(self) -> Config:
        """The JSON-able dict stored as the recipe."""
        ...


C = TypeVar("C", bound=SpaceConfig)


def as_config(value: Any) -> Config:
    """A frozen dataclass as a JSON-able dict (tuples become lists, as JSON gives back).

    Example:
        >>> @dataclasses.dataclass(frozen=True)
        ... class Point:
        ...     xy: tuple[int, int]
        >>> as_config(Point((1, 2)))
        {'xy': [1, 2]}
    """
    result: Config = json.loads(json.dumps(dataclasses.asdict(value)))
    return result


def edge_family(
    *,
    name: str,
    summary: str,
    config_type: type[C],
    sample: Callable[[random.Random], C],
    network: Callable[[C, Net[Any]], Any],
    keras_name: str,
    input_shape: Callable[[C], tuple[int, ...]],
    output_shape: Callable[[C], tuple[int, ...]],
) -> Family:
    """A :class:`Family` over a dataclass-configured design space exported to TFLite.

    Args:
        name: registry name, e.g. ``"cnn-kws"``.
        summary: one line for ``nnlat zoo list``.
        config_type: the space's configuration dataclass.
        sample: draws a configuration from a seeded ``random.Random``.
        network: ``network(config, nn)``, the space's network against :class:`Net`.
        keras_name: the Keras model's name (it prefixes TensorFlow's tensor names).
        input_shape: batch-1 input shape of a configuration (NHWC for images).
        output_shape: batch-1 output shape.

    Returns:
        A family with ``source_format="tflite"``.
    """
    build = keras_builder(network, keras_name)
    return Family(
        name=name,
        summary=summary,
        sample=lambda rng: sample(rng).to_config(),
        build=lambda config: build(config_type.from_config(config)),
        input_shape=lambda config: input_shape(config_type.from_config(config)),
        output_shape=lambda config: output_shape(config_type.from_config(config)),
        source_format="tflite",
        export_tflite=lambda config, converter=None: export(
            network,
            config_type.from_config(config),
            keras_name=keras_name,
            input_shape=input_shape(config_type.from_config(config)),
            converter=converter,
        ),
    )
