"""The layer-wise (lookup-table) baseline of BRP-NAS on NAS-Bench-201 cells.

latency = skeleton + Σ (operations of each kind in each stage × that operation's latency
in that stage), with non-negative per-operation latencies. BRP-NAS measured each
operation alone on the device; those measurements are not published, so the
per-operation latencies are fitted (non-negative least squares) on the training networks
— the same additive model, with a table learned rather than measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

import numpy as np
from scipy.optimize import nnls

from nnlat.predictor.baselines.base import MIN_LATENCY_MS, check_fitted
from nnlat.predictor.baselines.cell_encoding import CellEstimator, op_counts

if TYPE_CHECKING:
    from nnlat.features.records import LatencyRecord


class LayerwiseSum(CellEstimator):
    """Skeleton + Σ per-stage operation latencies, fitted non-negative (see the module).

    Attributes:
        latencies_: per stage and timed operation, its latency (ms), then the skeleton's.
    """

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Non-negative least squares on the training share of ``records``."""
        archs, y = self._training_share(records)
        self.latencies_, _ = nnls(np.stack([op_counts(a) for a in archs]), y)
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record (clipped positive)."""
        check_fitted(self, "latencies_")
        x = np.stack([op_counts(a) for a in self._cells(records)])
        return np.maximum(x @ self.latencies_, MIN_LATENCY_MS)
