"""Least-squares baselines of NNLQP Table 3 on graph-level totals.

* :class:`FlopsLinear` (``flops-lr``): latency = a·FLOPs + b.
* :class:`FlopsMacsLinear` (``flops-macs-lr``): latency = a·FLOPs + b·bytes + c, the
  paper's "FLOPs+MAC" where MAC is the *memory access cost* (bytes moved), not
  multiply-accumulates.

Both follow the estimator contract of :mod:`nnlat.predictor.baselines.base`;
scikit-learn is imported when a model is fitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Self

import numpy as np

from nnlat.predictor.baselines.base import (
    MIN_LATENCY_MS,
    check_fitted,
    graph_matrix,
    latencies,
)

if TYPE_CHECKING:
    from nnlat.features.records import LatencyRecord


class _GraphLinear:
    """Least squares of latency on some graph-level columns (shared by the linear baselines)."""

    columns: ClassVar[tuple[str, ...]]

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Fit the least squares on measured records of one platform.

        Raises:
            NnlatError: no records, or a latency that is not finite and positive.
        """
        from sklearn.linear_model import LinearRegression

        latency = latencies(records)
        self.linear_ = LinearRegression().fit(graph_matrix(records, self.columns), latency)
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record (float64, input order).

        Raises:
            NnlatError: the model is not fitted.
        """
        check_fitted(self, "linear_")
        if not records:
            return np.zeros(0, dtype=np.float64)
        predicted = self.linear_.predict(graph_matrix(records, self.columns))
        return np.maximum(np.asarray(predicted, dtype=np.float64), MIN_LATENCY_MS)

    @property
    def coefficients(self) -> dict[str, float]:
        """The fitted slope per column (ms per unit) and the ``intercept`` (ms)."""
        check_fitted(self, "linear_")
        slopes = dict(zip(self.columns, self.linear_.coef_.tolist(), strict=True))
        return {**slopes, "intercept": float(self.linear_.intercept_)}


class FlopsLinear(_GraphLinear):
    """The "FLOPs" baseline: latency = a·FLOPs + b, by least squares.

    Predictions below :data:`MIN_LATENCY_MS` (a fit extrapolated to tiny models) are
    clipped to it.

    Attributes:
        linear_: the fitted ``sklearn.linear_model.LinearRegression``.

    Example:
        >>> from nnlat.features.records import LatencyRecord
        >>> from nnlat.features import raw_features
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> raws = [raw_features(load(tiny_model(channels=c))) for c in (4, 8, 16)]
        >>> records = [LatencyRecord(f"m{i}", "tiny", "cpu", 1,
        ...                          2e-6 * r.graph_values[1] + 0.5, r)
        ...            for i, r in enumerate(raws)]
        >>> model = FlopsLinear().fit(records)
        >>> {k: round(v, 9) for k, v in model.coefficients.items()}
        {'flops': 2e-06, 'intercept': 0.5}
        >>> bool(abs(model.predict(records[:1])[0] - records[0].latency_ms) < 1e-9)
        True
    """

    columns: ClassVar[tuple[str, ...]] = ("flops",)


class FlopsMacsLinear(_GraphLinear):
    """The "FLOPs+MAC" baseline: latency = a·FLOPs + b·bytes + c, by least squares.

    NNLQP's MAC is the memory access cost, so the second feature is the graph's bytes
    moved (``GRAPH_COLUMNS`` ``bytes``), not its multiply-accumulates (``macs``).
    Predictions below :data:`MIN_LATENCY_MS` are clipped to it.

    Attributes:
        linear_: the fitted ``sklearn.linear_model.LinearRegression``.

    Example:
        >>> from nnlat.features.records import LatencyRecord
        >>> from nnlat.features import raw_features
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> raws = [raw_features(load(tiny_model(channels=c, side=s)))
        ...         for c in (4, 8, 16) for s in (8, 16)]
        >>> records = [LatencyRecord(f"m{i}", "tiny", "cpu", 1,
        ...                          1e-6 * r.graph_values[1] + 3e-6 * r.graph_values[4] + 0.2,
        ...                          r)
        ...            for i, r in enumerate(raws)]
        >>> model = FlopsMacsLinear().fit(records)
        >>> {k: round(v, 9) for k, v in model.coefficients.items()}
        {'flops': 1e-06, 'bytes': 3e-06, 'intercept': 0.2}
    """

    columns: ClassVar[tuple[str, ...]] = ("flops", "bytes")
