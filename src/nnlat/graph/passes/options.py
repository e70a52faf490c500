"""What the caller asks of normalisation: batch size, input-shape overrides, defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nnlat.limits import DEFAULT_LIMITS, Limits

# A dynamic dimension with no override gets one of these (and a warning).
DEFAULT_BATCH = 1
DEFAULT_IMAGE_SIDE = 224  # dynamic non-batch dims of a rank-4 (NCHW or NHWC) input
DEFAULT_DYNAMIC_DIM = 128  # any other dynamic dim: sequence length, feature count, ...


@dataclass(frozen=True)
class NormalizeOptions:
    """Options of the normalisation pipeline.

    Attributes:
        batch_size: sets dimension 0 of every graph input that has no explicit override.
        input_shapes: input name → full shape, overriding the model's declared shape.
        limits: what the model may cost; normalisation refuses a model over them.
    """

    batch_size: int | None = None
    input_shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    limits: Limits = DEFAULT_LIMITS
