"""Model families and search spaces, written in PyTorch and exported to ONNX.

Each family lives in its own module (``nnlat.zoo.resnet``, ...) and defines ``FAMILY``,
a :class:`~nnlat.zoo.family.Family`. Families import torch; nothing here does until a
family is asked for. :mod:`nnlat.zoo.realworld` holds the held-out real-world set: small
imitations of deployed models, one builder per module. The design spaces under
``nnlat.zoo.edge`` are built in Keras and exported to int8 TFLite instead; they import
TensorFlow only when a model is built. :mod:`nnlat.zoo.corpus` is the real-architecture
corpus: ``transformers`` model classes with random weights and generators of deployed
structures, each family making its own ONNX.
"""

from nnlat.zoo.family import Config, Family, ZooModel
from nnlat.zoo.registry import (
    CORPUS_FAMILY_MODULES,
    EDGE_FAMILY_MODULES,
    FAMILY_MODULES,
    NNLQP_FAMILIES,
    families,
    get_family,
)

__all__ = [
    "CORPUS_FAMILY_MODULES",
    "EDGE_FAMILY_MODULES",
    "FAMILY_MODULES",
    "NNLQP_FAMILIES",
    "Config",
    "Family",
    "ZooModel",
    "families",
    "get_family",
]
