"""What a model family is: a seeded sampler of configurations and a PyTorch (or Keras) builder.

A *configuration* is a plain JSON-able dict (ints, floats, strings, lists). It is the
whole recipe of a variant: the same configuration always builds the same architecture,
so a dataset stores configurations and regenerates the ONNX instead of storing it.
Every configuration carries ``num_classes``, and ``resolution`` (input height = width)
unless the family gives its own ``input_shape``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from nnlat.errors import NnlatError

if TYPE_CHECKING:
    import onnx
    import torch

    from nnlat.graph.ir import Graph

Config = dict[str, Any]


def square_image_input(config: Config) -> tuple[int, ...]:
    """``(1, 3, R, R)`` with ``R = config["resolution"]``: the input of every image family."""
    return (1, 3, config["resolution"], config["resolution"])


def class_logits(config: Config) -> tuple[int, ...]:
    """``(1, num_classes)``: the output of every classifier family."""
    return (1, config["num_classes"])


@dataclass(frozen=True)
class Family:
    """A model family or search space.

    Attributes:
        name: registry name, e.g. ``"resnet"``.
        summary: one line shown by ``nnlat zoo list``.
        sample: draws a random configuration from a seeded ``random.Random``.
        build: builds the ``torch.nn.Module`` of a configuration (weights uninitialised
            values do not matter: only the structure is exported).
        input_shape: the (batch-1) input shape of a configuration; by default
            :func:`square_image_input`.
        output_shape: the (batch-1) output shape; by default :func:`class_logits`.
        canonical: named reference configurations, e.g. ``{"resnet18": {...}}``; for
            the classic families they reproduce the published architectures.
        source_format: ``"onnx"`` (``build`` gives a ``torch.nn.Module``, exported by
            :meth:`ZooModel.to_onnx`) or ``"tflite"`` (``build`` gives a Keras model,
            exported fully int8 by :meth:`ZooModel.to_tflite`; see ``nnlat.zoo.edge``).
        export_tflite: for a TFLite family, (configuration, converter name or None) →
            ``.tflite`` bytes; passed in by ``nnlat.zoo.edge`` (see
            ``nnlat.zoo.edge.converters``), so that this module needs no TensorFlow.
        export_onnx: for an ONNX family that makes its ONNX itself (its own exporter
            settings and opset, several or integer inputs, seeded weights, quantization,
            hand-built control flow): configuration → ``onnx.ModelProto``, used by
            :meth:`ZooModel.to_onnx` instead of exporting ``build``'s module (the real-
            architecture corpus, ``nnlat.zoo.corpus``).
    """

    name: str
    summary: str
    sample: Callable[[random.Random], Config]
    build: Callable[[Config], torch.nn.Module]
    input_shape: Callable[[Config], tuple[int, ...]] = square_image_input
    output_shape: Callable[[Config], tuple[int, ...]] = class_logits
    canonical: Mapping[str, Config] = field(default_factory=dict)
    source_format: Literal["onnx", "tflite"] = "onnx"
    export_tflite: Callable[[Config, str | None], bytes] | None = None
    export_onnx: Callable[[Config], onnx.ModelProto] | None = None

    def model(self, config: Config) -> ZooModel:
        """Wrap ``config`` as a :class:`ZooModel` of this family."""
        return ZooModel(self.name, json.dumps(config, sort_keys=True), self)


@dataclass(frozen=True)
class ZooModel:
    """One variant: a family name and its configuration (as canonical JSON).

    Made by :meth:`Family.model`, which hands over the family itself (``definition``), so
    a variant builds without looking its family up in the registry; two variants are
    equal when their family names and configurations are.

    Example:
        >>> from nnlat.zoo import get_family
        >>> m = get_family("resnet").model(get_family("resnet").canonical["resnet18"])
        >>> m.input_shape
        (1, 3, 224, 224)
    """

    family: str
    config_json: str
    definition: Family = field(compare=False, repr=False)

    @property
    def config(self) -> Config:
        """The configuration as a dict (a fresh copy)."""
        return json.loads(self.config_json)

    @property
    def spec(self) -> dict[str, Any]:
        """``{"family": ..., "config": ...}``: all that is needed to regenerate the model."""
        return {"family": self.family, "config": self.config}

    @property
    def input_shape(self) -> tuple[int, ...]:
        """The batch-1 input shape."""
        return tuple(self.definition.input_shape(self.config))

    def build(self) -> torch.nn.Module:
        """The PyTorch module, in eval mode, without initialising weights.

        Raises:
            NnlatError: the family's source format is TFLite; use :meth:`to_tflite`.
        """
        import torch

        if self.definition.source_format != "onnx":
            raise NnlatError(f"{self.family} is a TFLite family; export it with to_tflite()")
        with torch.device("meta"):
            module = self.definition.build(self.config)
        return module.to_empty(device="cpu").eval()

    def to_tflite(self, converter: str | None = None) -> bytes:
        """Export a TFLite-format family's model as a fully int8 ``.tflite`` flatbuffer.

        Args:
            converter: ``"direct"`` (written without TensorFlow) or ``"tensorflow"``;
                None: ``$NNLAT_TFLITE_CONVERTER``, else direct (``nnlat.zoo.edge.converters``).

        Raises:
            NnlatError: the family's source format is ONNX; use :meth:`to_onnx`.
            ExportError: the converter could not quantise the model to int8.
        """
        family = self.definition
        if family.source_format != "tflite" or family.export_tflite is None:
            raise NnlatError(f"{self.family} is an ONNX family; export it with to_onnx()")
        return family.export_tflite(self.config, converter)

    def to_onnx(self) -> onnx.ModelProto:
        """Export to a weight-free ONNX model (opset 17), or, for a family with its own
        ``export_onnx``, the model that family makes (its opset, seeded weights)."""
        from nnlat.graph.torch_export import export_module

        if self.definition.export_onnx is not None:
            return self.definition.export_onnx(self.config)

        return export_module(self.build(), [self.input_shape])

    def to_graph(self, batch_size: int | None = None) -> Graph:
        """Export (ONNX, or TFLite for a TFLite family) and load as a normalised
        :class:`~nnlat.graph.ir.Graph`."""
        from nnlat.graph.load import load

        tflite = self.definition.source_format == "tflite"
        return load(self.to_tflite() if tflite else self.to_onnx(), batch_size=batch_size)
