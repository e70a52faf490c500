"""The one estimator contract every compared method follows, and what baselines share.

The contract is scikit-learn's (``sklearn/base.py``): ``__init__`` only stores its
parameters; ``fit(records)`` learns from measured :class:`LatencyRecord` values of one
platform, creates the fitted state (attributes ending in ``_``) and returns ``self``;
``predict(records)`` returns one latency in milliseconds per record (float64, input
order); randomness comes from a ``random_state`` parameter. Baselines and the graph
networks' adapter (:class:`nnlat.predictor.estimator.GraphEstimator`) all follow it, so a
study fits and predicts every method the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, Self

import numpy as np

from nnlat.errors import NnlatError
from nnlat.features.raw import GRAPH_COLUMNS

if TYPE_CHECKING:
    from nnlat.features.records import LatencyRecord

# A latency cannot be negative: linear fits extrapolated below their data are clipped here.
MIN_LATENCY_MS = 1e-6


class LatencyEstimator(Protocol):
    """What every compared method offers: ``fit(records) -> self`` and ``predict(records)``."""

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Fit on measured records of one platform; return ``self``."""
        ...

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record (float64, input order)."""
        ...


def latencies(records: Sequence[LatencyRecord]) -> np.ndarray:
    """The records' latencies (ms) as float64, checked fit to learn from.

    Raises:
        NnlatError: no records, or a latency that is not finite and positive.
    """
    if not records:
        raise NnlatError("cannot fit a latency baseline on no records")
    latency = np.array([r.latency_ms for r in records], dtype=np.float64)
    if not np.all(np.isfinite(latency) & (latency > 0)):
        raise NnlatError("latencies must be finite and positive to fit a baseline")
    return latency


def graph_matrix(records: Sequence[LatencyRecord], columns: Sequence[str]) -> np.ndarray:
    """Records × ``columns`` of their graph-level values (``GRAPH_COLUMNS``), float64."""
    index = [GRAPH_COLUMNS.index(c) for c in columns]
    rows = [r.raw.graph_values[index] for r in records]
    return np.asarray(rows, dtype=np.float64).reshape(len(records), len(index))


def check_fitted(model: object, attribute: str) -> None:
    """Raise unless ``fit`` has created ``attribute`` on ``model``.

    Raises:
        NnlatError: the model is not fitted.
    """
    if not hasattr(model, attribute):
        raise NnlatError(f"{type(model).__name__} is not fitted: call fit(records) first")
