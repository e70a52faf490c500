"""Baselines on a NAS-Bench-201 cell encoding instead of the ONNX graph (BRP-NAS, Yue 2021).

Inside one search space an architecture is fully described by its cell: six edges, each
one of five operations. Yue (2021, Table 3) compares the BRP-NAS GCN with a linear
regression and an XGBoost regressor on the one-hot encoding of those six choices, and
BRP-NAS with a layer-wise model (the sum of per-operation latencies). They are here so
that our reproduction runs the same comparison:

* :class:`OneHotLinear`: least squares on the 30 one-hot columns, in milliseconds.
* :class:`OneHotXgboost`: gradient-boosted trees on the same columns, on log latency.
* :class:`LayerwiseSum`: latency = skeleton + Σ (operations of each kind in each stage ×
  that operation's latency in that stage), with non-negative per-operation latencies.
  BRP-NAS measured each operation alone on the device; those measurements are not
  published, so the per-operation latencies are fitted (non-negative least squares) on
  the training networks — the same additive model, with a table learned rather than
  measured.

All take architecture strings and latencies (ms): ``fit(archs, ms)`` / ``predict(archs)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import nnls

from nnlat.zoo.nasbench201 import OPS, parse_arch

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


class OneHotLinear:
    """Linear regression (ms) on the one-hot cell encoding."""

    @staticmethod
    def _design(archs: Sequence[str]) -> np.ndarray:
        return np.stack([np.append(one_hot(a), 1.0) for a in archs])  # with an intercept

    def fit(self, archs: Sequence[str], latency_ms: Sequence[float]) -> OneHotLinear:
        y = np.asarray(latency_ms, dtype=np.float64)
        self.coef_, *_ = np.linalg.lstsq(self._design(archs), y, rcond=None)
        return self

    def predict(self, archs: Sequence[str]) -> np.ndarray:
        return np.maximum(self._design(archs) @ self.coef_, 1e-6)  # a latency is positive


class OneHotXgboost:
    """XGBoost on the one-hot cell encoding, fitted on log latency."""

    def __init__(self, seed: int = 0) -> None:
        from xgboost import XGBRegressor

        self.model = XGBRegressor(
            n_estimators=500, max_depth=6, learning_rate=0.05, subsample=0.9, random_state=seed
        )

    def fit(self, archs: Sequence[str], latency_ms: Sequence[float]) -> OneHotXgboost:
        self.model.fit(np.stack([one_hot(a) for a in archs]), np.log(latency_ms))
        return self

    def predict(self, archs: Sequence[str]) -> np.ndarray:
        return np.exp(self.model.predict(np.stack([one_hot(a) for a in archs])))


class LayerwiseSum:
    """Skeleton + Σ per-stage operation latencies, fitted non-negative (see the module)."""

    def fit(self, archs: Sequence[str], latency_ms: Sequence[float]) -> LayerwiseSum:
        x = np.stack([op_counts(a) for a in archs])
        self.latencies_, _ = nnls(x, np.asarray(latency_ms, dtype=np.float64))
        return self

    def predict(self, archs: Sequence[str]) -> np.ndarray:
        return np.maximum(np.stack([op_counts(a) for a in archs]) @ self.latencies_, 1e-6)
