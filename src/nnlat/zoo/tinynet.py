"""Small networks, where a runtime's fixed cost per operator outweighs the arithmetic.

The other families run from about 0.2 to 100 ms on one CPU thread. Many models in use
(keyword spotters, OCR line recognisers, small classifiers and sequence heads) run in
0.01–1 ms, where latency is mostly the cost of launching each operator, not of its
multiply-accumulates. A predictor that never saw that regime can only extrapolate into
it, and does so badly (``reports/held_out*.md``).

This family draws small variants of three other families, reusing their builders, so
that it adds a *size regime* rather than new operators:

- ``randdag`` — random CNN DAGs at 32–96 px with 4–64 channels and 2–10 layers;
- ``seqnet`` — LSTM/GRU/attention stacks over 8–64 frames of 8–64 features, hidden
  sizes 16–128, at most two blocks;
- ``vit`` — patch transformers at 32–64 px, widths 32–128, 1–4 blocks.

Every variant stays within :data:`MAX_MACS`. A configuration is the base family's
configuration plus ``"base"``, the base family's name; the base is chosen uniformly.
"""

from __future__ import annotations

import random

from torch import nn

from nnlat.zoo import randdag, seqnet, vit
from nnlat.zoo.family import Config, Family, class_logits, square_image_input

# A thirtieth of a ResNet-18 at 224 px; measured 0.01–1.6 ms (median 0.1) on one EPYC thread.
MAX_MACS = 60_000_000

BaseSpace = randdag.SampleSpace | seqnet.SampleSpace | vit.SampleSpace
SPACES: dict[str, BaseSpace] = {
    "randdag": randdag.SampleSpace(
        resolutions=(32, 64, 96),
        channels=(4, 8, 16, 32, 64),
        min_layers=2,
        max_layers=10,
        max_macs=MAX_MACS,
        num_classes=10,
    ),
    "seqnet": seqnet.SampleSpace(
        frames=(8, 16, 24, 32, 48, 64),
        features=(8, 16, 32, 40, 64),
        classes=(2, 10, 29, 37),
        max_frontend=2,
        conv_channels=(16, 32, 64),
        max_blocks=2,
        hidden=(16, 32, 48, 64, 96, 128),
        dims=(32, 64, 96, 128),
        head_dims=(16, 32),
        max_macs=MAX_MACS,
    ),
    "vit": vit.SampleSpace(
        resolutions=(32, 48, 64),
        patch_sizes=(4, 8, 16),
        dims=(32, 48, 64, 96, 128),
        head_dims=(16, 32),
        depths=(1, 2, 3, 4),
        num_classes=10,
        max_macs=MAX_MACS,
    ),
}
BASES = tuple(SPACES)
_MODULES = {"randdag": randdag, "seqnet": seqnet, "vit": vit}


def _base(config: Config) -> tuple[str, Config]:
    """The base family's name and its configuration (``config`` without ``"base"``)."""
    base_config = dict(config)
    base = base_config.pop("base")
    if base not in SPACES:
        raise ValueError(f"tinynet base {base!r} is not one of {', '.join(BASES)}")
    return base, base_config


def sample(rng: random.Random) -> Config:
    """A small variant of a uniformly chosen base family.

    Args:
        rng: the only source of randomness.

    Returns:
        The base family's configuration with ``"base"`` added.

    Example:
        >>> config = sample(random.Random(0))
        >>> config["base"] in BASES
        True
    """
    base = rng.choice(BASES)
    return {"base": base, **_MODULES[base].sample(rng, SPACES[base])}


def build(config: Config) -> nn.Module:
    """Build the network with its base family's builder.

    Raises:
        ValueError: an unknown base, or an invalid base configuration.
    """
    base, base_config = _base(config)
    return _MODULES[base].build(base_config)


def input_shape(config: Config) -> tuple[int, ...]:
    """The base family's input: an image for ``randdag``/``vit``, frames for ``seqnet``.

    Example:
        >>> input_shape({"base": "vit", "resolution": 32, "num_classes": 10})
        (1, 3, 32, 32)
    """
    base, base_config = _base(config)
    return seqnet.input_shape(base_config) if base == "seqnet" else square_image_input(base_config)


def output_shape(config: Config) -> tuple[int, ...]:
    """The base family's output: per-frame logits for ``seqnet``, class logits otherwise."""
    base, base_config = _base(config)
    return seqnet.output_shape(base_config) if base == "seqnet" else class_logits(base_config)


FAMILY = Family(
    name="tinynet",
    summary="small randdag/seqnet/vit variants (≤ 60 M MACs): the per-operator-overhead regime",
    sample=sample,
    build=build,
    input_shape=input_shape,
    output_shape=output_shape,
)
