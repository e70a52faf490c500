"""Baselines on a NAS-Bench-201 cell encoding instead of the ONNX graph (BRP-NAS, Yue 2021).

Inside one search space an architecture is fully described by its cell: six edges, each
one of five operations. Yue (2021, Table 3) compares the BRP-NAS GCN with a linear
regression and an XGBoost regressor on the one-hot encoding of those six choices, and
BRP-NAS with a layer-wise model (the sum of per-operation latencies). They are here so
that our reproduction runs the same comparison:

* :class:`OneHotLinear` (``cell-lr``): least squares on the 30 one-hot columns, in ms.
* :class:`OneHotXgboost` (``cell-xgboost``): gradient-boosted trees on the same columns,
  on log latency.
* :class:`~nnlat.predictor.baselines.layerwise.LayerwiseSum` (``layerwise``): the sum of
  per-operation latencies.

They follow the estimator contract (:mod:`nnlat.predictor.baselines.base`) on records;
a record's cell is looked up by its graph hash in the ``archs`` parameter. Like the
graph networks, each first sets aside a ``valid_fraction`` of the graphs (the same
:func:`~nnlat.predictor.training.split_by_graph` draw for a ``random_state``) and fits on
the rest, so that a study trains every method on exactly the same networks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Self

import numpy as np

from nnlat.predictor.baselines.base import MIN_LATENCY_MS, check_fitted
from nnlat.predictor.training import split_by_graph
from nnlat.zoo.nasbench201 import OPS, parse_arch

if TYPE_CHECKING:
    from nnlat.features.records import LatencyRecord

EDGES = 6
STAGES = 3  # the skeleton's three stages, each of identical cells
TIMED_OPS = OPS[1:]  # "none" costs nothing in a layer-wise table


def _edge_ops(arch: str) -> list[str]:
    """The six edge operations of a cell, in NAS-Bench-201's edge order."""
    return [op for node in parse_arch(arch) for op, _ in node]


def one_hot(arch: str) -> np.ndarray:
    """The 30 one-hot columns of a NAS-Bench-201 cell (edge-major, NAS-Bench-201's op order).

    Example:
        >>> v = one_hot("|nor_conv_3x3~0|+|skip_connect~0|none~1|+|none~0|none~1|skip_connect~2|")
        >>> v.shape, int(v.sum()), int(v[3])
        ((30,), 6, 1)
    """
    vector = np.zeros(EDGES * len(OPS))
    for edge, op in enumerate(_edge_ops(arch)):
        vector[edge * len(OPS) + OPS.index(op)] = 1.0
    return vector


def op_counts(arch: str) -> np.ndarray:
    """Per stage, how many of each timed operation the network runs, plus a constant 1.

    Every stage repeats one cell, so the counts are the cell's counts in each stage
    block: ``STAGES × len(TIMED_OPS)`` columns (the skeleton is the constant).

    Example:
        >>> op_counts("|nor_conv_3x3~0|+|skip_connect~0|none~1|+|none~0|none~1|skip_connect~2|")[:4]
        array([2., 0., 1., 0.])
    """
    edges = _edge_ops(arch)
    cell = np.array([edges.count(op) for op in TIMED_OPS], dtype=np.float64)
    return np.concatenate([np.tile(cell, STAGES), [1.0]])


class CellEstimator:
    """What the cell-encoding baselines share: the cell lookup and the training share.

    Args:
        archs: graph hash → NAS-Bench-201 architecture string of every record seen.
        valid_fraction: share of the graphs set aside (unused) before fitting, as the
            graph networks set it aside for validation.
        random_state: seed of that draw (and of the model, where it has randomness).
    """

    def __init__(
        self, archs: Mapping[str, str], valid_fraction: float = 0.0, random_state: int = 0
    ) -> None:
        self.archs = archs
        self.valid_fraction = valid_fraction
        self.random_state = random_state

    def _cells(self, records: Sequence[LatencyRecord]) -> list[str]:
        return [self.archs[r.graph_hash] for r in records]

    def _training_share(self, records: Sequence[LatencyRecord]) -> tuple[list[str], np.ndarray]:
        """The cells and latencies (ms) of the records left after the validation draw."""
        keep, _ = split_by_graph(
            [r.graph_hash for r in records], self.valid_fraction, self.random_state
        )
        chosen = [records[i] for i in keep]
        return self._cells(chosen), np.array([r.latency_ms for r in chosen], dtype=np.float64)


class OneHotLinear(CellEstimator):
    """Linear regression (ms) on the one-hot cell encoding.

    Attributes:
        coef_: the 30 one-hot slopes then the intercept (ms).
    """

    @staticmethod
    def _design(archs: Sequence[str]) -> np.ndarray:
        return np.stack([np.append(one_hot(a), 1.0) for a in archs])  # with an intercept

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Least squares on the training share of ``records``."""
        archs, y = self._training_share(records)
        self.coef_, *_ = np.linalg.lstsq(self._design(archs), y, rcond=None)
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record (clipped positive)."""
        check_fitted(self, "coef_")
        return np.maximum(self._design(self._cells(records)) @ self.coef_, MIN_LATENCY_MS)


class OneHotXgboost(CellEstimator):
    """XGBoost on the one-hot cell encoding, fitted on log latency.

    Attributes:
        booster_: the fitted ``xgboost.XGBRegressor``.
    """

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Boosted trees on the training share of ``records``."""
        from xgboost import XGBRegressor

        archs, y = self._training_share(records)
        self.booster_ = XGBRegressor(
            n_estimators=500,
            max_depth=6,
            learning_rate=0.05,
            subsample=0.9,
            random_state=self.random_state,
        )
        self.booster_.fit(np.stack([one_hot(a) for a in archs]), np.log(y))
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record."""
        check_fitted(self, "booster_")
        x = np.stack([one_hot(a) for a in self._cells(records)])
        return np.exp(self.booster_.predict(x))
