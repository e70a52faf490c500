"""Kernel costs learned from the runtime's own profile, summed: ``kernel-profiled``.

nn-Meter's idea (predict each fused kernel, add them up) generalises to architectures it
never saw as long as their kernels resemble known ones; what held it back here
(:class:`~nnlat.predictor.baselines.kernel_forest.KernelForest`) is that the records
carry one latency per model, so each kernel's target had to be *apportioned* by FLOPs
and bytes. A profiled record (``LatencyRecord.node_shares``, onnxruntime's per-node
profile) says how the time really splits, so this model learns each kernel's measured
share instead, with one set of boosted trees for every kernel pattern (the pattern and
its anchor operator are categorical features, so rare patterns borrow from common ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

import numpy as np

from nnlat.errors import NnlatError
from nnlat.predictor.baselines.base import MIN_LATENCY_MS, check_fitted, latencies
from nnlat.predictor.baselines.kernel_forest import KERNEL_COLUMNS, kernel_features

if TYPE_CHECKING:
    from nnlat.features.records import LatencyRecord

# A kernel's time floor in the log target: kernels the runtime folds or fuses away get
# no time of their own, and log(0) must not be learned.
_FLOOR_MS = 1e-4
_UNKNOWN = float("nan")  # xgboost treats an unseen category as missing


def _kernel_table(record: LatencyRecord) -> tuple[list[str], np.ndarray, np.ndarray | None]:
    """A record's kernel patterns, features, and profiled times (None without a profile)."""
    patterns, x = kernel_features(record.raw)
    if record.node_shares is None:
        return patterns, x, None
    shares = np.nan_to_num(record.node_shares, nan=0.0)
    _, slot = np.unique(record.raw.kernel_ids, return_inverse=True)
    kernel_share = np.bincount(slot, weights=shares, minlength=len(patterns))
    return patterns, x, record.latency_ms * kernel_share


class ProfiledKernels:
    """Per-kernel boosted trees on profiled kernel times, summed, then calibrated.

    Each graph is split into the kernels a runtime fuses (``raw.kernel_ids``, described
    by :func:`~nnlat.predictor.baselines.kernel_forest.kernel_features`). A profiled
    record's kernel takes ``latency × Σ node shares`` of its nodes as its target (the
    shares are the profile's split of the time; the timed median is the scale). One
    xgboost model learns ``log(kernel ms)`` from the log of the kernel's features plus
    two categorical codes, its pattern and its anchor operator (unseen ones share one
    code). A model's estimate is its kernels' sum, corrected by ``log latency = a · log
    sum + b``, fitted on every training record (profiled or not): it absorbs what no
    kernel is credited with (layout reorders, session overhead).

    Args:
        n_estimators: boosting rounds.
        max_depth: depth of each tree.
        learning_rate: shrinkage per round.
        random_state: seed of xgboost.

    Attributes:
        patterns_: kernel pattern → its code.
        anchors_: anchor operator → its code.
        booster_: the fitted ``xgboost.XGBRegressor``.
        slope_, intercept_: the log-linear correction of the sum.

    Example:
        >>> from nnlat.testing.records import toy_records
        >>> records = toy_records()
        >>> records = [r.__class__(**{**r.__dict__,
        ...     "node_shares": np.full(len(r.raw.op_types), 1 / len(r.raw.op_types))})
        ...     for r in records]
        >>> model = ProfiledKernels(n_estimators=20).fit(records)
        >>> predicted = model.predict(records)
        >>> predicted.shape == (len(records),), bool(np.all(predicted > 0))
        (True, True)
    """

    def __init__(
        self,
        n_estimators: int = 400,
        max_depth: int = 8,
        learning_rate: float = 0.08,
        random_state: int = 0,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.random_state = random_state

    def _design(self, patterns: list[str], x: np.ndarray) -> np.ndarray:
        """Kernel rows: log1p of the features, then the pattern and anchor codes."""
        codes = np.array(
            [
                [self.patterns_.get(p, _UNKNOWN), self.anchors_.get(p.split("+")[0], _UNKNOWN)]
                for p in patterns
            ],
            dtype=np.float64,
        ).reshape(len(patterns), 2)
        return np.concatenate([np.log1p(np.maximum(x, 0.0)), codes], axis=1)

    def _sums(self, tables: Sequence[tuple[list[str], np.ndarray, object]]) -> np.ndarray:
        """Each record's predicted kernel times, summed (ms), from its :func:`_kernel_table`.

        Every kernel of every record goes through the trees in one call.
        """
        rows = [(i, p, x) for i, (p, x, _) in enumerate(tables) if p]
        sums = np.zeros(len(tables), dtype=np.float64)
        if rows:
            design = np.concatenate([self._design(p, x) for _, p, x in rows])
            owner = np.concatenate([np.full(len(p), i) for i, p, _ in rows])
            kernel_ms = np.exp(np.asarray(self.booster_.predict(design), dtype=np.float64))
            np.add.at(sums, owner, kernel_ms)
        return np.maximum(sums, _FLOOR_MS)

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Fit the kernel trees on the profiled records, then the correction on all.

        Raises:
            NnlatError: no profiled record with kernels, or a latency that is not finite
                and positive.
        """
        import xgboost

        latency = latencies(records)
        tables = [_kernel_table(r) for r in records]
        profiled = [(p, x, t) for p, x, t in tables if t is not None and p]
        if not profiled:
            raise NnlatError("kernel-profiled needs records with a per-node profile")
        patterns = sorted({p for ps, _, _ in profiled for p in ps})
        self.patterns_ = {p: float(i) for i, p in enumerate(patterns)}
        self.anchors_ = {
            a: float(i) for i, a in enumerate(sorted({p.split("+")[0] for p in patterns}))
        }
        x = np.concatenate([self._design(p, f) for p, f, _ in profiled])
        target = np.log(np.concatenate([t for _, _, t in profiled]) + _FLOOR_MS)
        types = ["q"] * len(KERNEL_COLUMNS) + ["c", "c"]
        booster = xgboost.XGBRegressor(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            learning_rate=self.learning_rate,
            random_state=self.random_state,
            n_jobs=1,
            tree_method="hist",
            enable_categorical=True,
            feature_types=types,
            max_cat_to_onehot=1,
        )
        self.booster_ = booster.fit(x, target)
        sums = self._sums(tables)
        self.slope_, self.intercept_ = np.polyfit(np.log(sums), np.log(latency), 1)
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record (float64, input order).

        Raises:
            NnlatError: the model is not fitted.
        """
        check_fitted(self, "booster_")
        if not records:
            return np.zeros(0, dtype=np.float64)
        log_sum = np.log(self._sums([_kernel_table(r) for r in records]))
        predicted = np.exp(self.slope_ * log_sum + self.intercept_)
        return np.maximum(predicted, MIN_LATENCY_MS)
