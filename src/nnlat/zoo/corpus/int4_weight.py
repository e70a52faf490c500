"""``int4-weight``: transformers with 4-bit weights, ``MatMulNBits`` (weight-only quantization).

Why: language models shipped for CPUs are increasingly quantized weight-only, 4 bits in
blocks, by onnxruntime's ``MatMulNBitsQuantizer``: every ``MatMul`` with a constant weight
becomes one ``com.microsoft:MatMulNBits`` that unpacks the blocks as it multiplies.
Held-out set 8's ``rampart`` text model (32 ms measured) is one and was predicted 74 % low:
no training graph had the operator.

The base is an ``hf-text`` model, half at the corpus's sizes and half at published ones
(:func:`~nnlat.zoo.corpus.sizes.draw_published_sizes`); the quantizer's options are the
block size (16–128), symmetric or not, and the accuracy level (0: float compute; 4: the
activations quantized to int8 on the fly, other kernels).

Example:
    >>> c = sample(random.Random(0))
    >>> c["block_size"] in (16, 32, 64, 128)
    True
"""

from __future__ import annotations

import logging
import random
import warnings

import onnx

from nnlat.errors import ExportError
from nnlat.zoo.corpus import hf_text
from nnlat.zoo.corpus.export import no_module
from nnlat.zoo.corpus.sizes import draw_published_sizes, draw_sizes
from nnlat.zoo.family import Config, Family


def sample(rng: random.Random) -> Config:
    """Draw an ``hf-text`` model (corpus or published sizes) and the quantizer's options."""
    published = rng.random() < 0.5
    base = hf_text.sample_sized(rng, draw_published_sizes if published else draw_sizes)
    return {
        "base_config": base,
        "block_size": rng.choice([16, 32, 64, 128]),
        "symmetric": rng.random() < 0.5,
        "accuracy_level": rng.choice([0, 4]),
        "num_classes": base["num_classes"],
    }


def export(config: Config) -> onnx.ModelProto:
    """The base model exported, then its constant-weight ``MatMul``s made 4-bit.

    Raises:
        ExportError: the quantizer failed or quantized nothing.
    """
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    model = hf_text.FAMILY.model(config["base_config"]).to_onnx()
    # the quantizer logs a line per node it skips, at INFO, on a logger of its own
    logging.getLogger(MatMulNBitsQuantizer.__module__).setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            quantizer = MatMulNBitsQuantizer(
                model,
                bits=4,
                block_size=config["block_size"],
                is_symmetric=config["symmetric"],
                accuracy_level=config["accuracy_level"] or None,
            )
            quantizer.process()
        except Exception as exc:  # the quantizer raises many unrelated types
            last = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
            raise ExportError(f"onnxruntime could not quantize the model: {last}") from exc
    quantized = quantizer.model.model
    if not any(node.op_type == "MatMulNBits" for node in quantized.graph.node):
        raise ExportError("the 4-bit quantizer found no MatMul with a constant weight")
    return quantized


FAMILY = Family(
    name="int4-weight",
    summary="hf-text transformers with 4-bit block-quantized weights (MatMulNBits)",
    sample=sample,
    build=no_module,
    input_shape=lambda c: (1, c["base_config"]["seq"]),
    output_shape=lambda c: (1, c["base_config"]["seq"]),
    export_onnx=export,
)
