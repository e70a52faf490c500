"""Operators whose work the input *values* decide, which no graph-level prediction sees.

A graph network reads shapes and operators. A ``Loop`` that decodes until its end token, a
``NonZero`` or ``NonMaxSuppression`` that keeps as many boxes as the scores allow, an
``If`` that picks a branch: their time is set by the data a model is given. On held-out
set 7 (``reports/realworld/set7/``) the three files built on them (an NMS graph, a decoding
``Loop``, a TTS voice expanding phonemes by predicted durations) were under-predicted by
85–98 % by every predictor. A prediction names such operators so that its reader knows the
figure holds for inputs like those it was timed with, not for every input.
"""

from __future__ import annotations

from nnlat.features.raw import RawFeatures

DATA_DEPENDENT_OPS = frozenset({"Loop", "If", "NonZero", "NonMaxSuppression", "Unique", "Compress"})
"""ONNX operators whose amount of work (iterations, branch, output size) depends on input
values."""

DATA_DEPENDENT_WORDS = "its time depends on input values the prediction cannot see"
"""How a warning says it, before the operators' names."""


def data_dependent_ops(raw: RawFeatures) -> tuple[str, ...]:
    """The operators of ``raw`` whose work the input values decide, sorted.

    Example:
        >>> from nnlat.testing.hard_models import range_loop
        >>> from nnlat.features.raw import raw_features
        >>> from nnlat.graph import load
        >>> data_dependent_ops(raw_features(load(range_loop())))
        ('Loop',)
    """
    return tuple(sorted(set(raw.op_types) & DATA_DEPENDENT_OPS))
