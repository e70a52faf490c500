"""The XGBoost baseline of NNLQP Table 3: boosted trees on graph totals and operator counts.

xgboost is imported when a model is fitted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

import numpy as np

from nnlat.features.raw import GRAPH_COLUMNS
from nnlat.features.schema import OTHER
from nnlat.predictor.baselines.base import check_fitted, graph_matrix, latencies

if TYPE_CHECKING:
    from nnlat.features.records import LatencyRecord


class GraphXGBoost:
    """Gradient-boosted trees (xgboost) on graph-level features, fitted to log latency.

    Features: the graph values (``GRAPH_COLUMNS``: batch size, FLOPs, MACs, parameters,
    bytes, nodes, kernels) followed by the count of each operator of a vocabulary learned
    at fit time, plus an ``<other>`` count for operators unseen in training. The target is
    ``log(latency_ms)``; predictions are its ``exp``, hence always positive.

    Args:
        n_estimators: boosting rounds.
        max_depth: depth of each tree.
        learning_rate: shrinkage per round.
        subsample: fraction of records drawn for each tree.
        random_state: seed of xgboost.

    Attributes:
        op_vocab_: the operators seen in training, sorted.
        booster_: the fitted ``xgboost.XGBRegressor``.

    Example:
        >>> from nnlat.features.records import LatencyRecord
        >>> from nnlat.features import raw_features
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> raws = [raw_features(load(tiny_model(channels=c, side=s)))
        ...         for c in (4, 8, 16) for s in (8, 16, 32)]
        >>> records = [LatencyRecord(f"m{i}", "tiny", "cpu", 1, 1e-6 * r.graph_values[1] + 0.1, r)
        ...            for i, r in enumerate(raws)]
        >>> model = GraphXGBoost(n_estimators=20).fit(records)
        >>> model.op_vocab_
        ('Conv', 'Relu')
        >>> model.feature_names()[-3:]
        ['op:Conv', 'op:Relu', 'op:<other>']
        >>> bool(np.all(model.predict(records) > 0))
        True
    """

    def __init__(
        self,
        n_estimators: int = 300,
        max_depth: int = 6,
        learning_rate: float = 0.1,
        subsample: float = 1.0,
        random_state: int = 0,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.subsample = subsample
        self.random_state = random_state

    def feature_names(self) -> list[str]:
        """Column names of :meth:`design_matrix` (for the fitted vocabulary)."""
        return [*GRAPH_COLUMNS, *(f"op:{op}" for op in (*self.op_vocab_, OTHER))]

    def design_matrix(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """The records' features: graph values, then operator counts over the vocabulary.

        Returns:
            float64, records × ``len(feature_names())``.
        """
        index = {op: i for i, op in enumerate(self.op_vocab_)}
        other = len(self.op_vocab_)
        counts = np.zeros((len(records), other + 1), dtype=np.float64)
        for row, record in enumerate(records):
            for op, n in Counter(record.raw.op_types).items():
                counts[row, index.get(op, other)] += n
        return np.concatenate([graph_matrix(records, GRAPH_COLUMNS), counts], axis=1)

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Learn the operator vocabulary and fit the trees to log latency.

        Raises:
            NnlatError: no records, or a latency that is not finite and positive.
        """
        import xgboost

        latency = latencies(records)
        self.op_vocab_ = tuple(sorted({op for r in records for op in r.raw.op_types}))
        booster = xgboost.XGBRegressor(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            learning_rate=self.learning_rate,
            subsample=self.subsample,
            random_state=self.random_state,
            n_jobs=1,
            tree_method="hist",
        )
        self.booster_ = booster.fit(self.design_matrix(records), np.log(latency))
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record (float64, input order).

        Raises:
            NnlatError: the model is not fitted.
        """
        check_fitted(self, "booster_")
        if not records:
            return np.zeros(0, dtype=np.float64)
        log_latency = self.booster_.predict(self.design_matrix(records))
        return np.exp(np.asarray(log_latency, dtype=np.float64))
