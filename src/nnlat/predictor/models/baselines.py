"""The baseline latency predictors NNLQP compares its NNLP with (Table 3, Appendix E).

Each baseline is a small scikit-learn-style class: hyper-parameters in ``__init__``,
``fit(records)`` returns the fitted model, ``predict(records)`` returns one latency in
milliseconds per record (float64, in input order). All records of one ``fit`` or
``predict`` call belong to one platform; the caller filters. Baselines are cheap to
refit, so none of them saves or loads.

* :class:`FlopsLinear` (``flops-lr``): latency = a·FLOPs + b.
* :class:`FlopsMacsLinear` (``flops-macs-lr``): latency = a·FLOPs + b·bytes + c, the
  paper's "FLOPs+MAC" where MAC is the *memory access cost* (bytes moved), not
  multiply-accumulates.
* :class:`KernelForest` (``nn-meter``): nn-Meter — one random forest per kernel type,
  kernel latencies summed per model, then a linear correction of the sum.
* :class:`GraphXGBoost` (``xgboost``): gradient-boosted trees on graph-level totals and
  operator counts.

:data:`BASELINES` maps each name to its class::

    >>> sorted(BASELINES)
    ['flops-lr', 'flops-macs-lr', 'nn-meter', 'xgboost']
    >>> type(BASELINES["nn-meter"](seed=1)).__name__
    'KernelForest'

The paper's "TPU" baseline (GraphSAGE per kernel, sum corrected linearly) is a graph
network, not a small regression: it is :mod:`nnlat.predictor.models.kernel_sage`,
registered as the ``tpu`` network.

scikit-learn and xgboost are imported when a model is fitted, so importing this module
costs neither.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self

import numpy as np

from nnlat.errors import NnlatError
from nnlat.features.raw import GRAPH_COLUMNS, NODE_COLUMNS, RawFeatures
from nnlat.features.schema import OTHER

if TYPE_CHECKING:
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import LinearRegression

    from nnlat.datasets.training import LatencyRecord

# A latency cannot be negative: linear fits extrapolated below their data are clipped here.
MIN_LATENCY_MS = 1e-6

_COST_COLUMNS = ("flops", "macs", "params", "bytes")
# The window and shape columns of a node: everything but its costs.
_SHAPE_COLUMNS = tuple(c for c in NODE_COLUMNS if c not in _COST_COLUMNS)
_SHAPE_INDEX = np.array([NODE_COLUMNS.index(c) for c in _SHAPE_COLUMNS])
_COST_INDEX = np.array([NODE_COLUMNS.index(c) for c in _COST_COLUMNS])
# Columns of kernel_features(): the first node's window and shapes, then summed costs.
KERNEL_COLUMNS: tuple[str, ...] = (*_SHAPE_COLUMNS, *_COST_COLUMNS)


class LatencyBaseline(Protocol):
    """What every baseline offers: a name, ``fit`` and ``predict``."""

    name: ClassVar[str]

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Fit on measured records of one platform."""
        ...

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record, in input order."""
        ...


def _latencies(records: Sequence[LatencyRecord]) -> np.ndarray:
    if not records:
        raise NnlatError("cannot fit a latency baseline on no records")
    latency = np.array([r.latency_ms for r in records], dtype=np.float64)
    if not np.all(np.isfinite(latency) & (latency > 0)):
        raise NnlatError("latencies must be finite and positive to fit a baseline")
    return latency


def _graph_matrix(records: Sequence[LatencyRecord], columns: Sequence[str]) -> np.ndarray:
    index = [GRAPH_COLUMNS.index(c) for c in columns]
    rows = [r.raw.graph_values[index] for r in records]
    return np.asarray(rows, dtype=np.float64).reshape(len(records), len(index))


def _not_fitted(model: object) -> NnlatError:
    return NnlatError(f"{type(model).__name__} is not fitted: call fit(records) first")


class _GraphLinear:
    """Least squares of latency on some graph-level columns (shared by the linear baselines)."""

    name: ClassVar[str]
    columns: ClassVar[tuple[str, ...]]

    def __init__(self) -> None:
        self.linear_: LinearRegression | None = None

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Fit the least squares on measured records of one platform.

        Raises:
            NnlatError: no records, or a latency that is not finite and positive.
        """
        from sklearn.linear_model import LinearRegression

        latency = _latencies(records)
        self.linear_ = LinearRegression().fit(_graph_matrix(records, self.columns), latency)
        return self

    def predict(self, records: Sequence[LatencyRecord]) -> np.ndarray:
        """Latency in milliseconds per record (float64, input order).

        Raises:
            NnlatError: the model is not fitted.
        """
        if self.linear_ is None:
            raise _not_fitted(self)
        if not records:
            return np.zeros(0, dtype=np.float64)
        predicted = self.linear_.predict(_graph_matrix(records, self.columns))
        return np.maximum(np.asarray(predicted, dtype=np.float64), MIN_LATENCY_MS)

    @property
    def coefficients(self) -> dict[str, float]:
        """The fitted slope per column (ms per unit) and the ``intercept`` (ms)."""
        if self.linear_ is None:
            raise _not_fitted(self)
        slopes = dict(zip(self.columns, self.linear_.coef_.tolist(), strict=True))
        return {**slopes, "intercept": float(self.linear_.intercept_)}


class FlopsLinear(_GraphLinear):
    """The "FLOPs" baseline: latency = a·FLOPs + b, by least squares.

    Predictions below :data:`MIN_LATENCY_MS` (a fit extrapolated to tiny models) are
    clipped to it.

    Attributes:
        linear_: the fitted ``sklearn.linear_model.LinearRegression`` (None before fit).

    Example:
        >>> from nnlat.datasets.training import LatencyRecord
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

    name: ClassVar[str] = "flops-lr"
    columns: ClassVar[tuple[str, ...]] = ("flops",)


class FlopsMacsLinear(_GraphLinear):
    """The "FLOPs+MAC" baseline: latency = a·FLOPs + b·bytes + c, by least squares.

    NNLQP's MAC is the memory access cost, so the second feature is the graph's bytes
    moved (``GRAPH_COLUMNS`` ``bytes``), not its multiply-accumulates (``macs``).
    Predictions below :data:`MIN_LATENCY_MS` are clipped to it.

    Attributes:
        linear_: the fitted ``sklearn.linear_model.LinearRegression`` (None before fit).

    Example:
        >>> from nnlat.datasets.training import LatencyRecord
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

    name: ClassVar[str] = "flops-macs-lr"
    columns: ClassVar[tuple[str, ...]] = ("flops", "bytes")


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
        seed: random state of every forest.

    Attributes:
        forests_: kernel pattern → its forest.
        fallback_: the forest trained on all kernels.
        correction_: the linear regression of latency on the summed kernel predictions.

    Example:
        >>> from nnlat.datasets.training import LatencyRecord
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

    name: ClassVar[str] = "nn-meter"

    def __init__(
        self,
        n_estimators: int = 100,
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        min_kernels: int = 5,
        seed: int = 0,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_kernels = min_kernels
        self.seed = seed
        self.forests_: dict[str, RandomForestRegressor] = {}
        self.fallback_: RandomForestRegressor | None = None
        self.correction_: LinearRegression | None = None

    def _forest(self, x: np.ndarray, y: np.ndarray) -> RandomForestRegressor:
        from sklearn.ensemble import RandomForestRegressor

        forest = RandomForestRegressor(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            random_state=self.seed,
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
        assert self.fallback_ is not None
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

        latency = _latencies(records)
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
        if self.correction_ is None:
            raise _not_fitted(self)
        if not records:
            return np.zeros(0, dtype=np.float64)
        sums = self._kernel_sums(*self._kernels(records), len(records))
        predicted = np.asarray(self.correction_.predict(sums[:, None]), dtype=np.float64)
        return np.maximum(predicted, MIN_LATENCY_MS)


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
        seed: random state of xgboost.

    Attributes:
        op_vocab_: the operators seen in training, sorted.
        booster_: the fitted ``xgboost.XGBRegressor`` (None before fit).

    Example:
        >>> from nnlat.datasets.training import LatencyRecord
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

    name: ClassVar[str] = "xgboost"

    def __init__(
        self,
        n_estimators: int = 300,
        max_depth: int = 6,
        learning_rate: float = 0.1,
        subsample: float = 1.0,
        seed: int = 0,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.subsample = subsample
        self.seed = seed
        self.op_vocab_: tuple[str, ...] = ()
        self.booster_: Any = None

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
        return np.concatenate([_graph_matrix(records, GRAPH_COLUMNS), counts], axis=1)

    def fit(self, records: Sequence[LatencyRecord]) -> Self:
        """Learn the operator vocabulary and fit the trees to log latency.

        Raises:
            NnlatError: no records, or a latency that is not finite and positive.
        """
        import xgboost

        latency = _latencies(records)
        self.op_vocab_ = tuple(sorted({op for r in records for op in r.raw.op_types}))
        booster = xgboost.XGBRegressor(
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            learning_rate=self.learning_rate,
            subsample=self.subsample,
            random_state=self.seed,
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
        if self.booster_ is None:
            raise _not_fitted(self)
        if not records:
            return np.zeros(0, dtype=np.float64)
        log_latency = self.booster_.predict(self.design_matrix(records))
        return np.exp(np.asarray(log_latency, dtype=np.float64))


BASELINES: dict[str, type[LatencyBaseline]] = {
    cls.name: cls for cls in (FlopsLinear, FlopsMacsLinear, KernelForest, GraphXGBoost)
}
