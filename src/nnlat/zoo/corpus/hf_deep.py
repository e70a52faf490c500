"""``hf-deep``: the ``hf-text`` transformers made deep, narrow and short.

Why: small deployed transformers (a grapheme-to-phoneme model of 6,369 operators on 28
tokens in held-out set 6, say) are graphs of thousands of operators of a few microseconds
each, and the predictor over-charged them (set 6's ``tiny-pron``: 8.8 ms measured, 30 ms
predicted). The training data holds almost no such graph: of the 5,182 records of the
reference platform, 22 have 1,000 operators or more (`hf-text` has at most six layers).
This family draws the same 33 architectures, heads, opsets and inputs as ``hf-text``
(:mod:`.hf_text`), with 8–32 layers of width 32–128 over 4–32 tokens and vocabularies of
64–4,096 (:func:`~nnlat.zoo.corpus.sizes.draw_deep_sizes`): one inference takes
milliseconds, not tens of them.
"""

from __future__ import annotations

import dataclasses
import random

from nnlat.zoo.corpus import hf_text
from nnlat.zoo.corpus.sizes import draw_deep_sizes
from nnlat.zoo.family import Config


def sample(rng: random.Random) -> Config:
    """Draw a deep, narrow ``hf-text`` configuration.

    Example:
        >>> c = sample(random.Random(0))
        >>> c["hf"] != {} and c["seq"] <= 32
        True
    """
    return hf_text.sample_sized(rng, draw_deep_sizes)


# hf-text's family (inputs, shapes, export) with the deep sizes
FAMILY = dataclasses.replace(
    hf_text.FAMILY,
    name="hf-deep",
    summary="hf-text's transformers at 8-32 layers, width 32-128, 4-32 tokens: many small ops",
    sample=sample,
)
