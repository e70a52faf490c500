"""Evaluation protocols: how well does a predictor do on structures it never saw?

*Unseen structure* (NNLQP Table 3): for each family, train on the other families'
records of one platform and test on that family's. Every method sees exactly the same
split; NNLP picks its checkpoint on a validation share of the *training* families. Each
finished (family, method) result is appended to a JSON-Lines file as soon as it exists,
so a stopped evaluation resumes where it stopped.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import get_args

import numpy as np

from nnlat.datasets.training import LatencyRecord
from nnlat.errors import NnlatError
from nnlat.predictor.metrics import accuracy_report
from nnlat.predictor.models.baselines import BASELINES
from nnlat.predictor.models.nnlp import Readout
from nnlat.predictor.predictor import Predictor
from nnlat.predictor.results_file import read_jsonl, record_result
from nnlat.predictor.training import TrainSettings

# Graph-network methods: name → (registered network, configuration overrides). The
# ``nnlp-wo-*`` entries are the ablations of NNLQP Table 4; ``nnlp-sum`` is the paper's
# NNLP (sum readout); every other readout of NnlpConfig gets an ``nnlp-<readout>``.
GRAPH_METHODS: dict[str, tuple[str, dict[str, object]]] = {
    "nnlp": ("nnlp", {}),
    **{f"nnlp-{r}": ("nnlp", {"readout": r}) for r in get_args(Readout) if r != "mean"},
    "brpnas": ("brpnas", {}),
    "tpu": ("tpu", {}),
    "nnlp-wo-node": ("nnlp", {"node_features": False}),
    "nnlp-wo-gnn": ("nnlp", {"gnn": False}),
    "nnlp-wo-static": ("nnlp", {"static_features": False}),
}
ABLATION_METHODS = ("nnlp", "nnlp-wo-node", "nnlp-wo-gnn", "nnlp-wo-static")
# Networks that take the caller's ``config`` (``--hidden``): NNLP's GraphSAGE and the
# kernel-level one share its meaning. BRP-NAS keeps the paper's sizes.
CONFIGURABLE_NETWORKS = frozenset({"nnlp", "tpu"})

# Called when a (family, method) result is done.
OnResult = Callable[["FoldResult"], None]


@dataclass(frozen=True)
class FoldResult:
    """One method on one held-out family.

    Attributes:
        family: the held-out (test) family.
        method: ``nnlp`` or a baseline name.
        platform: the platform of the records.
        train_records, test_records: sizes of the split.
        metrics: MAPE, RMSPE, Acc(1/5/10 %) as fractions.
        fit_seconds: training time.
        predict_seconds_per_graph: prediction time per test graph.
        measured_ms, predicted_ms: per test record, for scatter plots.
        epochs: the most training epochs a graph network was given (None for the
            baselines, and in results saved before it was recorded).
    """

    family: str
    method: str
    platform: str
    train_records: int
    test_records: int
    metrics: dict[str, float]
    fit_seconds: float
    predict_seconds_per_graph: float
    measured_ms: list[float]
    predicted_ms: list[float]
    epochs: int | None = None


def fit_and_predict(
    method: str,
    train: Sequence[LatencyRecord],
    test: Sequence[LatencyRecord],
    settings: TrainSettings,
    config: dict[str, object] | None = None,
) -> tuple[np.ndarray, float, float]:
    """Train ``method`` on ``train``; return (predictions for ``test``, fit s, predict s)."""
    start = time.perf_counter()
    if method in GRAPH_METHODS:
        network, overrides = GRAPH_METHODS[method]
        merged = {**(config or {}), **overrides} if network in CONFIGURABLE_NETWORKS else overrides
        model, _ = Predictor.fit(train, network=network, settings=settings, config=merged)
        fitted = time.perf_counter()
        predicted = model.predict_records(test)
    elif method in BASELINES:
        baseline = BASELINES[method](seed=settings.seed) if _seeded(method) else BASELINES[method]()
        baseline.fit(train)
        fitted = time.perf_counter()
        predicted = baseline.predict(test)
    else:
        known = ", ".join([*GRAPH_METHODS, *sorted(BASELINES)])
        raise NnlatError(f"unknown method {method!r}; known: {known}")
    return np.asarray(predicted, dtype=np.float64), fitted - start, time.perf_counter() - fitted


def _seeded(method: str) -> bool:
    """Whether the baseline takes a ``seed`` (the linear ones are deterministic)."""
    return "seed" in inspect.signature(BASELINES[method]).parameters


def read_results(path: Path) -> list[FoldResult]:
    """The results saved so far in a JSON-Lines file (none if it does not exist)."""
    return read_jsonl(path, FoldResult)


def seed_ensemble(runs: Sequence[Sequence[FoldResult]], method: str) -> list[FoldResult]:
    """``method``'s folds of several seeds combined: per test record, the geometric mean
    of the seeds' predictions (an ensemble of the seeds' predictors, N times the cost).

    Every run must hold every family the first one holds, on the same test records.

    Example:
        >>> a = FoldResult("vgg", "nnlp", "p", 9, 2, {}, 1.0, 0.001, [1.0, 2.0], [1.0, 1.0])
        >>> b = FoldResult("vgg", "nnlp", "p", 9, 2, {}, 2.0, 0.001, [1.0, 2.0], [4.0, 4.0])
        >>> (fold,) = seed_ensemble([[a], [b]], "nnlp")
        >>> fold.method, fold.predicted_ms, fold.metrics["acc_10"], fold.fit_seconds
        ('nnlp ×2', [2.0, 2.0], 0.5, 3.0)

    Raises:
        NnlatError: a run misses a family, or its test records differ.
    """
    folds = [{r.family: r for r in run if r.method == method} for run in runs]
    if not folds or not folds[0]:
        raise NnlatError(f"no {method!r} results to combine")
    combined = []
    for family, first in sorted(folds[0].items()):
        members = [run[family] for run in folds if family in run]
        if len(members) < len(folds) or any(m.measured_ms != first.measured_ms for m in members):
            raise NnlatError(f"{method} on {family}: not every run has the same test records")
        predicted = np.exp(np.mean([np.log(m.predicted_ms) for m in members], axis=0))
        combined.append(
            replace(
                first,
                method=f"{method} ×{len(members)}",
                metrics=accuracy_report(first.measured_ms, predicted),
                fit_seconds=sum(m.fit_seconds for m in members),
                predict_seconds_per_graph=sum(m.predict_seconds_per_graph for m in members),
                predicted_ms=predicted.tolist(),
            )
        )
    return combined


def unseen_structure(
    records: Sequence[LatencyRecord],
    platform: str,
    methods: Sequence[str],
    *,
    families: Sequence[str] | None = None,
    settings: TrainSettings | None = None,
    config: dict[str, object] | None = None,
    results_path: Path | None = None,
    on_result: OnResult | None = None,
    fit_missing: bool = True,
) -> list[FoldResult]:
    """Leave-one-family-out evaluation on ``platform``.

    Args:
        records: all records (other platforms are ignored).
        platform: the platform evaluated.
        methods: ``nnlp`` and/or baseline names.
        families: the families held out in turn (default: every family in the records).
        settings: NNLP training settings (its seed also seeds the baselines).
        config: hyper-parameters of the networks in :data:`CONFIGURABLE_NETWORKS`.
        results_path: JSON-Lines file; results already there are kept and not redone.
        on_result: progress callback.
        fit_missing: False only collects the results ``results_path`` already holds
            (to rebuild a report while folds are still running elsewhere).

    Returns:
        The (family, method) results of ``families`` × ``methods`` on ``platform``, those
        loaded from ``results_path`` included, grouped by method in ``methods`` order.

    Raises:
        NnlatError: no records on ``platform``, or a family without records.
    """
    settings = settings or TrainSettings()
    mine = [r for r in records if r.platform == platform]
    if not mine:
        raise NnlatError(f"no records on platform {platform!r}")
    families = list(families or sorted({r.family for r in mine}))
    results = read_results(results_path) if results_path else []
    done = {(r.family, r.method) for r in results if r.platform == platform}
    for family in families:
        test = [r for r in mine if r.family == family]
        train = [r for r in mine if r.family != family]
        if not test:
            raise NnlatError(f"no records of family {family!r} on {platform!r}")
        for method in methods:
            if (family, method) in done or not fit_missing:
                continue
            predicted, fit_s, predict_s = fit_and_predict(method, train, test, settings, config)
            measured = [r.latency_ms for r in test]
            result = FoldResult(
                family=family,
                method=method,
                platform=platform,
                train_records=len(train),
                test_records=len(test),
                metrics=accuracy_report(measured, predicted),
                fit_seconds=fit_s,
                predict_seconds_per_graph=predict_s / len(test),
                measured_ms=measured,
                predicted_ms=predicted.tolist(),
                epochs=settings.epochs if method in GRAPH_METHODS else None,
            )
            record_result(results, result, results_path, on_result)
    wanted = [r for r in results if r.platform == platform and r.family in families]
    return [r for method in methods for r in wanted if r.method == method]
