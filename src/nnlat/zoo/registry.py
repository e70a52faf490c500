"""The registry of model families: one module per family, imported on first use."""

from __future__ import annotations

import functools
import importlib

from nnlat.registry import Registry
from nnlat.zoo.family import Family

# Module names under nnlat.zoo, one family each; a new family is one file plus one line.
FAMILY_MODULES = (
    "resnet",
    "vgg",
    "googlenet",
    "squeezenet",
    "alexnet",
    "mobilenetv2",
    "mobilenetv3",
    "mnasnet",
    "efficientnet",
    "vit",
    "segnet",
    "nasbench201",
    "fbnet",
    "randdag",
    "seqnet",
    "tinynet",
)

# PerfSAGE's EdgeDLPerf design spaces, built in Keras and exported to int8 TFLite.
EDGE_FAMILY_MODULES = (
    "edge.cnn_cifar10",
    "edge.cnn_imagenet",
    "edge.cnn_kws",
    "edge.vit_cifar100",
)

# Search spaces of the ONNX families again as int8 TFLite, for NPUs (same configurations);
# and random networks of real architectures' blocks, for training beyond PerfSAGE's spaces.
TFLITE_FAMILY_MODULES = ("nasbench201_tflite", "edge.cnn_realblocks")

# The real-architecture corpus (issue 33): library model classes with random weights and
# generators of deployed structures (detection, OCR, audio, control flow, int8); each
# makes its own ONNX (``Family.export_onnx``). The transformers families need the
# ``corpus`` extra when a model is built, not when the registry is read.
CORPUS_FAMILY_MODULES = (
    "corpus.hf_text",
    "corpus.hf_deep",
    "corpus.hf_vision",
    "corpus.hf_speech",
    "corpus.detector",
    "corpus.ocr",
    "corpus.audio_frontend",
    "corpus.control_flow",
    "corpus.tiny",
    "corpus.int8_dynamic",
    "corpus.int8_qdq",
    "corpus.dense",
    "corpus.face",
    "corpus.audio_preproc",
    "corpus.int8_large",
    "corpus.int4_weight",
)

# The real-architecture corpus's families (issue 33), by registered name.
CORPUS_FAMILIES = (
    "hf-text",
    "hf-vision",
    "hf-speech",
    "det-head",
    "ocr-crnn",
    "audio-frontend",
    "rnn-control-flow",
    "tiny-heads",
    "int8-dynamic",
    "int8-qdq",
    "dense-large",
    "hf-deep",
    "face-cnn",
    "audio-preproc",
    "int8-large",
    "int4-weight",
)

# The ten families of the NNLQP dataset (the paper's Table 3 rows).
NNLQP_FAMILIES = (
    "alexnet",
    "efficientnet",
    "googlenet",
    "mnasnet",
    "mobilenetv2",
    "mobilenetv3",
    "nasbench201",
    "resnet",
    "squeezenet",
    "vgg",
)


@functools.cache
def families() -> Registry[Family]:
    """The registry of all families (imports their modules, and so torch, on first call)."""
    registry: Registry[Family] = Registry("model family")
    for module_name in (
        FAMILY_MODULES + EDGE_FAMILY_MODULES + TFLITE_FAMILY_MODULES + CORPUS_FAMILY_MODULES
    ):
        module = importlib.import_module(f"nnlat.zoo.{module_name}")
        registry.register(module.FAMILY.name, module.FAMILY)
    return registry


def get_family(name: str) -> Family:
    """The family registered as ``name``.

    Raises:
        UnknownNameError: no such family; the message lists the known ones.

    Example:
        >>> get_family("resnet").name
        'resnet'
    """
    return families().get(name)
