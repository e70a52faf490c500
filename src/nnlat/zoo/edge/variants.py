"""Draw distinct int8 TFLite variants of a TFLite-format family, for ``nnlat zoo export``.

The ONNX families are de-duplicated by graph hash (:mod:`nnlat.zoo.generate`). Here the
export is byte-for-byte deterministic for a configuration, so two configurations that
build the same network (e.g. differing only in the kernel of an identity node) give the
same bytes: the SHA-256 of the flatbuffer is the identity used to de-duplicate.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass

from nnlat.errors import NnlatError
from nnlat.zoo.family import ZooModel
from nnlat.zoo.generate import MAX_DRAWS_PER_VARIANT
from nnlat.zoo.registry import get_family


@dataclass(frozen=True)
class TFLiteVariant:
    """A generated variant: its recipe, its ``.tflite`` bytes and their SHA-256 (hex)."""

    model: ZooModel
    flatbuffer: bytes
    sha256: str


def generate_tflite_variants(
    family: str, count: int, seed: int = 0, converter: str | None = None
) -> Iterator[TFLiteVariant]:
    """Yield ``count`` distinct int8 TFLite variants of ``family``, deterministic for a seed.

    Args:
        family: a registered family whose source format is ``"tflite"``.
        count: how many distinct variants to yield.
        seed: seed of the sampler.
        converter: ``"direct"`` or ``"tensorflow"`` (``nnlat.zoo.edge.converters``);
            None: ``$NNLAT_TFLITE_CONVERTER``, else direct.

    Raises:
        UnknownNameError: no such family.
        NnlatError: the family is not a TFLite family, or could not produce ``count``
            distinct variants.
    """
    spec = get_family(family)
    if spec.source_format != "tflite":
        raise NnlatError(f"{family} is an ONNX family; use nnlat.zoo.generate.generate_variants")
    rng = random.Random(seed)
    configs: set[str] = set()
    digests: set[str] = set()
    draws = 0
    while len(digests) < count:
        if draws >= MAX_DRAWS_PER_VARIANT * count:
            raise NnlatError(
                f"family {family!r} produced only {len(digests)} distinct variants in {draws} "
                f"draws (asked for {count}); its search space is too small"
            )
        draws += 1
        model = spec.model(spec.sample(rng))
        if model.config_json in configs:
            continue  # same recipe, same bytes: skip the export
        configs.add(model.config_json)
        flatbuffer = model.to_tflite(converter)
        digest = hashlib.sha256(flatbuffer).hexdigest()
        if digest not in digests:
            digests.add(digest)
            yield TFLiteVariant(model, flatbuffer, digest)
