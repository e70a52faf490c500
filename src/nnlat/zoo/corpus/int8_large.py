"""``int8-large``: published-size transformers after ``quantize_dynamic``.

Why: what packages ship int8 is the published model, not a scaled-down one. Held-out set
8's worst file is one of them — a Swin-T classifier after ``quantize_dynamic`` at opset 11,
17,729 ONNX nodes of which 5,930 ``Constant`` and 1,680 ``Shape`` (the exporter's shape
arithmetic), 126 ms measured and predicted nearly five times slower — while ``int8-dynamic``
quantizes the corpus's small models (at most 1,309 operators in nnlat's graph).

A configuration is ``int8-dynamic``'s (:mod:`nnlat.zoo.corpus.int8`): a base model and
``quantize_dynamic``'s options; the base is a ``transformers`` text model at published
sizes (:func:`~nnlat.zoo.corpus.sizes.draw_published_sizes`: BERT-base at 128 tokens at
most) or an image model at 224 px (:func:`~nnlat.zoo.corpus.hf_vision.sample_published`:
Swin-T/S, ViT and DeiT Ti/S/B, DINOv2-S, ConvNeXt-T). One inference takes 20–400 ms on
one core.

Example:
    >>> c = sample(random.Random(0))
    >>> c["base"] in ("hf_text", "hf_vision") and "op_types" in c
    True
"""

from __future__ import annotations

import random

from nnlat.zoo.corpus import hf_text, hf_vision
from nnlat.zoo.corpus.export import no_module
from nnlat.zoo.corpus.int8 import draw_dynamic_options, input_shape, quantize
from nnlat.zoo.corpus.sizes import draw_published_sizes
from nnlat.zoo.family import Config, Family


def sample(rng: random.Random) -> Config:
    """Draw a published-size text or image model and ``quantize_dynamic``'s options."""
    module = rng.choice(["hf_text", "hf_vision"])
    if module == "hf_text":
        base = hf_text.sample_sized(rng, draw_published_sizes)
    else:
        base = hf_vision.sample_published(rng)
    options = draw_dynamic_options(rng)
    # always the weight MatMuls: the family is about the int8 kernels of a large export
    options["op_types"] = sorted({*options["op_types"], "MatMul"})
    return {"base": module, "base_config": base, **options, "num_classes": base["num_classes"]}


FAMILY = Family(
    name="int8-large",
    summary="published-size transformers (BERT-base, Swin-T, ViT-S...) after quantize_dynamic",
    sample=sample,
    build=no_module,
    input_shape=input_shape,
    export_onnx=lambda c: quantize(c, dynamic=True),
)
