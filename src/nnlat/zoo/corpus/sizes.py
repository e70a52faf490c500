"""Transformer sizes drawn within a compute budget, shared by the ``transformers`` families.

Sizes are scaled down from the published models (hidden 64–512 instead of 768–4096,
1–6 layers instead of 12–32, sequences of 16–128 tokens) and redrawn until the estimated
multiply-accumulates fit :data:`MAX_MACS`, so that one inference takes tens of
milliseconds on one core and a campaign measurement (≥ 10 runs) stays under ~2 s.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# About 50–100 ms for one fp32 inference on one core of the reference host.
MAX_MACS = 1.0e9


@dataclass(frozen=True)
class Sizes:
    """One transformer's sizes: hidden width, layers, heads, key/value heads, feed-forward
    width, vocabulary and the sequence length it is exported at."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    seq: int

    @property
    def head_dim(self) -> int:
        """Width of one attention head."""
        return self.hidden // self.heads

    def macs(self) -> float:
        """Multiply-accumulates of the layers and the attention (not the embeddings)."""
        per_token = self.layers * (
            2 * self.hidden**2
            + 2 * self.hidden * self.kv_heads * self.head_dim
            + 2 * self.hidden * self.ffn
        )
        attention = self.layers * 2 * self.seq**2 * self.hidden
        return self.seq * per_token + attention


def draw_sizes(rng: random.Random, *, max_layers: int = 6, gqa: bool = False) -> Sizes:
    """Draw sizes under :data:`MAX_MACS` (redrawn until they fit; seeded, so deterministic).

    Example:
        >>> s = draw_sizes(random.Random(0))
        >>> s.hidden % s.heads, s.macs() <= MAX_MACS
        (0, True)
    """
    while True:
        hidden = rng.choice([64, 96, 128, 192, 256, 320, 384, 512])
        head_dim = rng.choice([d for d in (16, 32, 64) if hidden % d == 0 and hidden // d <= 16])
        heads = hidden // head_dim
        kv_heads = heads
        if gqa:
            kv_heads = rng.choice([k for k in (1, 2, 4, heads) if heads % k == 0])
        sizes = Sizes(
            hidden=hidden,
            layers=rng.randint(1, max_layers),
            heads=heads,
            kv_heads=kv_heads,
            ffn=hidden * rng.choice([2, 3, 4]),
            vocab=rng.choice([1000, 2048, 4096, 8192]),
            seq=rng.choice([16, 32, 48, 64, 96, 128]),
        )
        if sizes.macs() <= MAX_MACS:
            return sizes


def draw_deep_sizes(rng: random.Random, *, gqa: bool = False) -> Sizes:
    """Deep, narrow and short: 8–32 layers of width 32–128 over 4–32 tokens.

    The graphs of small deployed transformers (grapheme-to-phoneme models, tiny encoders):
    thousands of operators, each of a few microseconds, where :func:`draw_sizes`'s models
    have at most six layers and hundreds of operators.

    Example:
        >>> s = draw_deep_sizes(random.Random(0))
        >>> 8 <= s.layers <= 32, s.hidden <= 128, s.seq <= 32
        (True, True, True)
    """
    hidden = rng.choice([32, 48, 64, 96, 128])
    head_dim = rng.choice([d for d in (16, 32) if hidden % d == 0])
    heads = hidden // head_dim
    kv_heads = rng.choice([k for k in (1, 2, heads) if heads % k == 0]) if gqa else heads
    return Sizes(
        hidden=hidden,
        layers=rng.randint(8, 32),
        heads=heads,
        kv_heads=kv_heads,
        ffn=hidden * rng.choice([2, 3, 4]),
        vocab=rng.choice([64, 256, 1000, 4096]),
        seq=rng.choice([4, 8, 12, 16, 24, 28, 32]),
    )


# About 0.3 s for one fp32 inference of BERT-base at 128 tokens on one core.
MAX_PUBLISHED_MACS = 12e9


def draw_published_sizes(rng: random.Random, *, gqa: bool = False) -> Sizes:
    """Sizes of published transformers: width 256–768 in heads of 64, 4–12 layers, a
    four-times feed-forward, 64–256 tokens, vocabularies up to BERT's (redrawn until
    under :data:`MAX_PUBLISHED_MACS`).

    What packages ship after quantization is the published model (a MiniLM, a BERT-base,
    a DistilRoBERTa), ten times :func:`draw_sizes`'s budget.

    Example:
        >>> s = draw_published_sizes(random.Random(0))
        >>> s.head_dim, s.macs() <= MAX_PUBLISHED_MACS
        (64, True)
    """
    while True:
        hidden = rng.choice([256, 384, 512, 768])
        heads = hidden // 64
        kv_heads = rng.choice([k for k in (1, 2, 4, heads) if heads % k == 0]) if gqa else heads
        sizes = Sizes(
            hidden=hidden,
            layers=rng.choice([4, 6, 8, 12]),
            heads=heads,
            kv_heads=kv_heads,
            ffn=4 * hidden,
            vocab=rng.choice([8192, 30522]),
            seq=rng.choice([64, 128, 256]),
        )
        if sizes.macs() <= MAX_PUBLISHED_MACS:
            return sizes
