"""Model classes of the ``transformers`` package as corpus families: random weights, no download.

An :class:`Arch` names a model class prefix (``"Bert"``), its configuration class, the
heads it has (``"Model"``, ``"ForSequenceClassification"``, ...) and a sampler of
configuration keyword arguments. A corpus configuration stores all of it as JSON::

    {"arch": "bert", "head": "Model", "hf": {"hidden_size": 128, ...},
     "attention": "eager", "opset": 13, "num_classes": 2, <input sizes>}

and :func:`hf_export` rebuilds the model from ``transformers``' own code with seeded
weights and exports it with the TorchScript exporter: the graphs people get from
``torch.onnx.export`` of these classes. ``transformers`` is the ``corpus`` extra, imported
only when a model is built.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import onnx
import torch
from torch import nn

from nnlat.errors import NnlatError
from nnlat.zoo.corpus.export import OPSETS, export_torchscript, seeded
from nnlat.zoo.family import Config

# sdpa attention exports as one fused pattern from opset 14 on; below, only "eager".
SDPA_MIN_OPSET = 14


@dataclass(frozen=True)
class Arch:
    """One ``transformers`` architecture the corpus samples.

    Attributes:
        prefix: class name prefix in ``transformers`` (``"Bert"`` → ``BertModel``,
            ``BertConfig``); ``config_class`` overrides the configuration's name.
        heads: class name suffixes to draw from (``"Model"`` is the bare backbone).
        sample: draws the configuration's keyword arguments (sizes scaled down so that
            one inference stays well under a second on one core); its arguments are the
            family's (a random generator, and drawn sizes for the text family).
        min_opset: the lowest opset the exporter handles for this architecture.
        sdpa: whether the class implements ``attn_implementation="sdpa"``.
        module: for a class ``transformers`` does not export at top level (an encoder
            alone), its module path; the head is then the class name.
    """

    prefix: str
    heads: tuple[str, ...]
    sample: Callable[..., dict[str, object]]
    min_opset: int = 11
    sdpa: bool = True
    config_class: str | None = None
    module: str | None = None


def _class(arch: Arch, head: str) -> type[nn.Module]:
    import transformers

    if arch.module is not None:
        return getattr(importlib.import_module(arch.module), head)
    return getattr(transformers, f"{arch.prefix}{head}")


def build_hf(arch: Arch, config: Config) -> nn.Module:
    """The ``transformers`` model of ``config`` with seeded random weights, in eval mode.

    Raises:
        NnlatError: ``transformers`` is missing (``pip install nnlat[corpus]``).
    """
    try:
        import transformers
    except ImportError as exc:  # the corpus extra is optional
        raise NnlatError("the corpus needs transformers: pip install 'nnlat[corpus]'") from exc
    transformers.logging.set_verbosity_error()
    config_class = getattr(transformers, arch.config_class or f"{arch.prefix}Config")
    hf_config = config_class(**config["hf"])
    hf_config._attn_implementation = config["attention"]  # the knob transformers reads
    if hasattr(hf_config, "use_cache"):
        hf_config.use_cache = False  # one forward pass, no key/value cache outputs
    with seeded(config.get("seed", 0)):
        return _class(arch, config["head"])(hf_config).eval()


def hf_export(
    archs: Mapping[str, Arch],
    inputs: Callable[[Config], dict[str, torch.Tensor]],
) -> Callable[[Config], onnx.ModelProto]:
    """``Family.export_onnx`` for ``archs``: build, then export at the configuration's opset."""

    def export(config: Config) -> onnx.ModelProto:
        model = build_hf(archs[config["arch"]], config)
        return export_torchscript(model, inputs(config), config["opset"], by_keyword=True)

    return export


def sample_common(rng: random.Random, name: str, arch: Arch, hf: dict[str, object]) -> Config:
    """The keys every ``transformers`` corpus configuration has: arch, head, the
    configuration's keyword arguments ``hf``, attention implementation and opset."""
    opset = rng.choice([o for o in OPSETS if o >= arch.min_opset])
    sdpa = arch.sdpa and opset >= SDPA_MIN_OPSET and rng.random() < 0.5
    return {
        "arch": name,
        "head": rng.choice(arch.heads),
        "hf": hf,
        "attention": "sdpa" if sdpa else "eager",
        "opset": opset,
    }
