"""Which converter writes a design space's int8 TFLite: the direct writer or TensorFlow.

``"direct"`` (the default) writes the flatbuffer from the space's network with
:mod:`nnlat.zoo.edge.int8_net`, in a few tens of milliseconds and without TensorFlow;
``"tensorflow"`` builds the Keras model and quantises it with TensorFlow's converter
(:mod:`nnlat.zoo.edge.tflite_export`), seconds per model. Both give the same operators,
shapes, types, quantisation layout and nnlat graph hash
(``scripts/edge_writer_equivalence.py``, ``tests/zoo/test_edge_writer.py``); weight
values and calibrated scales differ. Choose with the ``converter`` argument, else the
``NNLAT_TFLITE_CONVERTER`` environment variable.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from nnlat.errors import NnlatError
from nnlat.zoo.edge.net import Net

C = TypeVar("C")

CONVERTERS = ("direct", "tensorflow")
DEFAULT_CONVERTER = "direct"
CONVERTER_ENV = "NNLAT_TFLITE_CONVERTER"


def resolve_converter(converter: str | None = None) -> str:
    """The converter to use: ``converter``, else ``$NNLAT_TFLITE_CONVERTER``, else direct.

    Raises:
        NnlatError: not one of :data:`CONVERTERS`.

    Example:
        >>> resolve_converter("tensorflow"), resolve_converter(None) in CONVERTERS
        ('tensorflow', True)
    """
    name = converter or os.environ.get(CONVERTER_ENV) or DEFAULT_CONVERTER
    if name not in CONVERTERS:
        raise NnlatError(
            f"unknown TFLite converter {name!r}; expected one of {', '.join(CONVERTERS)}"
        )
    return name


def export(
    network: Callable[[C, Net[Any]], Any],
    config: C,
    *,
    keras_name: str,
    input_shape: tuple[int, ...],
    converter: str | None = None,
) -> bytes:
    """The fully int8 ``.tflite`` of ``network(config, nn)`` by the chosen converter.

    Raises:
        NnlatError: unknown converter.
        ExportError: TensorFlow is missing or could not convert (``"tensorflow"`` only).
    """
    if resolve_converter(converter) == "direct":
        from nnlat.zoo.edge.int8_net import write_int8

        return write_int8(network, config)
    from nnlat.zoo.edge.keras_net import keras_builder
    from nnlat.zoo.edge.tflite_export import export_int8

    build = keras_builder(network, keras_name)
    return export_int8(lambda: build(config), input_shape)
