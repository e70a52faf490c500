"""The nn-Meter baseline of NNLQP Table 3: per-kernel-type random forests, summed.

:func:`kernel_features` describes each fused kernel of a graph; :class:`KernelForest`
(``nn-meter``) learns one forest per kernel pattern and corrects the per-model sum
linearly. scikit-learn is imported when a model is fitted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

import numpy as np

from nnlat.errors import NnlatError
from nnlat.features.raw import NODE_COLUMNS, RawFeatures
from nnlat.predictor.baselines.base import MIN_LATENCY_MS, check_fitted, latencies

if TYPE_CHECKING:
    from sklearn.ensemble import RandomForestRegressor

    from nnlat.features.records import LatencyRecord


_COST_COLUMNS = ("flops", "macs", "params", "bytes")
# The window and shape columns of a node: everything but its costs.
_SHAPE_COLUMNS = tuple(c for c in NODE_COLUMNS if c not in _COST_COLUMNS)
_SHAPE_INDEX = np.array([NODE_COLUMNS.index(c) for c in _SHAPE_COLUMNS])
_COST_INDEX = np.array([NODE_COLUMNS.index(c) for c in _COST_COLUMNS])
# Columns of kernel_features(): the first node's window and shapes, then summed costs.
KERNEL_COLUMNS: tuple[str, ...] = (*_SHAPE_COLUMNS, *_COST_COLUMNS)


def kernel_features(raw: RawFeatures) -> tuple[list[str], np.ndarray]:
    """One row per kernel of a graph: its pattern, and its nn-Meter-style features.

    The features (:data:`KERNEL_COLUMNS`) are the kernel's first node's window and shape
    columns (kernel size, strides, pads, dilations, group, input and output shapes:
    nn-Meter's HW, Cin, Cout, kernel size and stride, and more) followed by the FLOPs,
    MACs, parameters and bytes summed over the kernel's nodes.

    Returns:
        The patterns (``raw.kernel_patterns()``) and a float64 kernels × columns array,
        both in kernel order.

    Example:
        >>> from nnlat.features import raw_features
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> patterns, x = kernel_features(raw_features(load(tiny_model())))
        >>> patterns, x.shape
        (['Conv+Relu'], (1, 23))
        >>> float(x[0, KERNEL_COLUMNS.index("kernel_h")])
        3.0
    """
    patterns = raw.kernel_patterns()
    if not patterns:
        return [], np.zeros((0, len(KERNEL_COLUMNS)), dtype=np.float64)
    # Kernel ids sort like kernel_patterns(); the first occurrence of an id is the
    # kernel's first node (split_kernels starts a kernel at its lowest node index).
    _, first, slot = np.unique(raw.kernel_ids, return_index=True, return_inverse=True)
    costs = np.zeros((len(first), len(_COST_INDEX)), dtype=np.float64)
    np.add.at(costs, slot, raw.node_values[:, _COST_INDEX])
    shapes = raw.node_values[first][:, _SHAPE_INDEX]
    return patterns, np.concatenate([shapes, costs], axis=1)


class KernelForest:
    """The nn-Meter baseline: per-kernel-type random forests, summed, linearly corrected.

    Each graph is split into the kernels a runtime fuses (``raw.kernel_ids``); a kernel's
    features are :func:`kernel_features`. Kernels are keyed by their *pattern*
    (``Conv+BatchNormalization+Relu``) rather than their anchor op: nn-Meter's kernel
    types and NNLQP's Table 8 are fused patterns, and a fused BatchNorm, residual Add or
    activation changes a kernel's cost at equal anchor shape. A type seen fewer than
    ``min_kernels`` times in training, or not at all, is predicted by a fallback forest
    trained on every kernel.

    **Kernel targets are apportioned, not measured.** nn-Meter and NNLQP train the
    forests on separately measured kernels; the records carry only model latencies. So
    each model's latency is split across its kernels in proportion to their share of
    the model's FLOPs + bytes moved (kernel FLOPs + kernel bytes over model FLOPs +
    model bytes, one FLOP weighted like one byte; equal shares if the model costs
    nothing). The forests learn those shares; kernel predictions are summed per model;
    and, as in NNLQP Appendix E, a linear regression sum → latency fitted on the
    training records corrects the sum. Predictions below :data:`MIN_LATENCY_MS` are
    clipped to it.

    Args:
        n_estimators: trees per forest.
        max_depth: depth limit of the trees (None: grow until pure).
        min_samples_leaf: smallest leaf of the trees.
        min_kernels: kernel types with fewer training kernels use the fallback forest.
        random_state: seed of every forest.

    Attributes:
        forests_: kernel pattern → its forest.
        fallback_: the forest trained on all kernels.
        correction_: the linear regression of latency on the summed kernel predictions.

    Example:
        >>> from nnlat.features.records import LatencyRecord
        >>> from nnlat.features import raw_features
        >>> from nnlat.graph import load
        >>> from nnlat.testing import tiny_model
        >>> raws = [raw_features(load(tiny_model(channels=c, side=s)))
        ...         for c in (4, 8, 16) for s in (8, 16, 32)]
        >>> records = [LatencyRecord(f"m{i}", "tiny", "cpu", 1, 1e-6 * r.graph_values[1] + 0.1, r)
        ...            for i, r in enumerate(raws)]
        >>> model = KernelForest(n_estimators=10).fit(records)
        >>> sorted(model.forests_)
        ['Conv+Relu']
        >>> predicted = model.predict(records)
        >>> predicted.shape, bool(np.all(predicted > 0))
        ((9,), True)
    """

    def __init__(
        self,
        n_estimators: int = 100,
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        min_kernels: int = 5,
        random_state: int = 0,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_kernels = min_kernels
        self.random_state = random_state

    def _forest(self, x: np.ndarray, y: np.ndarray) -> RandomForestRegressor:
        from sklearn.ensemble import RandomForestRegressor

        forest = RandomForestRegressor(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            random_state=self.random_state,
            n_jobs=1,
        )
        return forest.fit(x, y)

    @staticmethod
    def _kernels(records: Sequence[LatencyRecord]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Every kernel of every record: patterns, features, and the record each belongs to."""
        patterns: list[str] = []
        blocks = [np.zeros((0, len(KERNEL_COLUMNS)), dtype=np.float64)]
        owners = [np.zeros(0, dtype=np.int64)]
        for i, record in enumerate(records):
            kinds, x = kernel_features(record.raw)
            patterns.extend(kinds)
            blocks.append(x)
            owners.append(np.full(len(kinds), i, dtype=np.int64))
        return patterns, np.concatenate(blocks), np.concatenate(owners)

    def _kernel_sums(
        self, patterns: list[str], x: np.ndarray, owner: np.ndarray, n: int
    ) -> np.ndarray:
        """Predicted kernel latencies summed per record (unknown types → the fallback)."""
        groups: dict[str | None, list[int]] = {}
        for i, pattern in enumerate(patterns):
            groups.setdefault(pattern if pattern in self.forests_ else None, []).append(i)
        predicted = np.zeros(len(patterns), dtype=np.float64)
        for kind, rows in groups.items():
            forest = self.fallback_ if kind is None else self.forests_[kind]
            predicted[rows] = forest.predict(x[rows])
        sums = np.zeros(n, dtype=np.float64)
        np.add.at(sums, owner, predicted)
        return sums

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Fit the kernel forests on apportioned kernel latencies, then the sum correction.

        Raises:
            NnlatError: no records, no kernels, or a latency that is not finite and
                positive.
        """
        from sklearn.linear_model import LinearRegression

        latency = latencies(records)
        patterns, x, owner = self._kernels(records)
        if not patterns:
            raise NnlatError("cannot fit a kernel model on graphs without nodes")
        cost = x[:, KERNEL_COLUMNS.index("flops")] + x[:, KERNEL_COLUMNS.index("bytes")]
        model_cost = np.bincount(owner, weights=cost, minlength=len(records))
        kernel_count = np.bincount(owner, minlength=len(records)).astype(np.float64)
        share = np.where(
            model_cost[owner] > 0,
            cost / np.where(model_cost > 0, model_cost, 1.0)[owner],
            1.0 / np.maximum(kernel_count[owner], 1.0),
        )
        target = latency[owner] * share
        kinds = np.array(patterns, dtype=object)
        counts = Counter(patterns)
        self.forests_ = {
            kind: self._forest(x[kinds == kind], target[kinds == kind])
            for kind in sorted(counts)
            if counts[kind] >= self.min_kernels
        }
        self.fallback_ = self._forest(x, target)
        sums = self._kernel_sums(patterns, x, owner, len(records))
        self.correction_ = LinearRegression().fit(sums[:, None], latency)
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record (float64, input order).

        Raises:
            NnlatError: the model is not fitted.
        """
        check_fitted(self, "correction_")
        if not records:
            return np.zeros(0, dtype=np.float64)
        sums = self._kernel_sums(*self._kernels(records), len(records))
        predicted = np.asarray(self.correction_.predict(sums[:, None]), dtype=np.float64)
        return np.maximum(predicted, MIN_LATENCY_MS)
