"""Baseline latency predictors (NNLQP Table 3) on synthetic latencies of real zoo graphs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from nnlat.errors import NnlatError
from nnlat.features import GRAPH_COLUMNS, NODE_COLUMNS, RawFeatures, raw_features
from nnlat.features.records import LatencyRecord
from nnlat.predictor.baselines.base import MIN_LATENCY_MS
from nnlat.predictor.baselines.gradient_boosting import GraphXGBoost
from nnlat.predictor.baselines.kernel_forest import KERNEL_COLUMNS, KernelForest, kernel_features
from nnlat.predictor.baselines.linear import FlopsLinear, FlopsMacsLinear
from nnlat.predictor.baselines.profiled_kernels import ProfiledKernels
from nnlat.zoo.generate import generate_variants

pytestmark = pytest.mark.slow  # the fixture exports 30 NAS-Bench-201 graphs
N_GRAPHS = 30
N_TRAIN = 22
FLOPS = GRAPH_COLUMNS.index("flops")
BYTES = GRAPH_COLUMNS.index("bytes")
NODE_FLOPS = NODE_COLUMNS.index("flops")
FAST = {"nn-meter": {"n_estimators": 30}, "xgboost": {"n_estimators": 100}}


def _mape(measured: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean(np.abs(predicted - measured) / measured))


def _linear(raw: RawFeatures) -> float:
    return 2e-9 * raw.graph_values[FLOPS] + 0.5


def _op_mix(raw: RawFeatures) -> float:
    """A latency that FLOPs alone cannot explain: pooling and additions cost extra."""
    ops = raw.op_types
    return (
        1e-9 * raw.graph_values[FLOPS]
        + 0.02 * ops.count("AveragePool")
        + 0.01 * ops.count("Add")
        + 0.05
    )


def _records(raws: Sequence[RawFeatures], latency: Callable[[RawFeatures], float]) -> list:
    return [
        LatencyRecord(f"g{i}", "nasbench201", "cpu", 1, float(latency(raw)), raw)
        for i, raw in enumerate(raws)
    ]


def _renamed(raw: RawFeatures, old: str, new: str) -> RawFeatures:
    ops = tuple(new if op == old else op for op in raw.op_types)
    return dataclasses.replace(raw, op_types=ops)


@pytest.fixture(scope="module")
def raws() -> list[RawFeatures]:
    """Raw features of 30 distinct NAS-Bench-201 graphs (exported once)."""
    return [raw_features(v.graph) for v in generate_variants("nasbench201", N_GRAPHS, seed=0)]


@pytest.fixture(scope="module")
def op_mix(raws: list[RawFeatures]) -> tuple[list, list]:
    """Train and held-out records whose latency depends on the operator mix."""
    records = _records(raws, _op_mix)
    return records[:N_TRAIN], records[N_TRAIN:]


BASELINES: dict[str, type] = {
    "flops-lr": FlopsLinear,
    "flops-macs-lr": FlopsMacsLinear,
    "nn-meter": KernelForest,
    "xgboost": GraphXGBoost,
}


def _make(name: str, **kwargs: object) -> object:
    return BASELINES[name](**{**FAST.get(name, {}), **kwargs})


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_init_only_stores_parameters_and_fit_creates_the_fitted_state(
    name: str, op_mix: tuple[list, list]
) -> None:
    model = _make(name)
    assert not [k for k in vars(model) if k.endswith("_")]
    assert model.fit(op_mix[0]) is model
    assert [k for k in vars(model) if k.endswith("_")]


def test_flops_linear_recovers_slope(raws: list[RawFeatures]) -> None:
    records = _records(raws, _linear)
    model = FlopsLinear().fit(records[:N_TRAIN])
    coefficients = model.coefficients
    assert coefficients["flops"] == pytest.approx(2e-9, rel=1e-6)
    assert coefficients["intercept"] == pytest.approx(0.5, rel=1e-6)
    held_out = records[N_TRAIN:]
    measured = np.array([r.latency_ms for r in held_out])
    assert _mape(measured, model.predict(held_out)) < 0.01


def test_flops_macs_linear_uses_bytes_moved(raws: list[RawFeatures]) -> None:
    def latency(raw: RawFeatures) -> float:
        return 1e-9 * raw.graph_values[FLOPS] + 3e-8 * raw.graph_values[BYTES] + 0.1

    records = _records(raws, latency)
    measured = np.array([r.latency_ms for r in records[N_TRAIN:]])
    both = FlopsMacsLinear().fit(records[:N_TRAIN])
    assert both.coefficients["bytes"] == pytest.approx(3e-8, rel=1e-6)
    assert _mape(measured, both.predict(records[N_TRAIN:])) < 0.01
    # FLOPs alone cannot fit a latency that depends on memory traffic.
    flops_only = FlopsLinear().fit(records[:N_TRAIN])
    assert _mape(measured, flops_only.predict(records[N_TRAIN:])) > 0.02


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_predictions_finite_positive_and_aligned(name: str, op_mix: tuple[list, list]) -> None:
    train, held_out = op_mix
    model = _make(name).fit(train)
    predicted = model.predict(held_out)
    assert predicted.dtype == np.float64
    assert predicted.shape == (len(held_out),)
    assert np.all(np.isfinite(predicted)) and np.all(predicted > 0)
    # Order follows the input: reversed in, reversed out; one at a time, the same.
    np.testing.assert_allclose(model.predict(held_out[::-1]), predicted[::-1])
    singles = np.concatenate([model.predict([r]) for r in held_out])
    np.testing.assert_allclose(singles, predicted)
    assert model.predict([]).shape == (0,)


@pytest.mark.parametrize("name", ["nn-meter", "xgboost"])
def test_learned_baselines_beat_a_constant(name: str, op_mix: tuple[list, list]) -> None:
    train, held_out = op_mix
    measured = np.array([r.latency_ms for r in held_out])
    trained = np.array([r.latency_ms for r in train])
    constant = min(
        _mape(measured, np.full_like(measured, c)) for c in (trained.mean(), np.median(trained))
    )
    predicted = _make(name).fit(train).predict(held_out)
    # nn-Meter learns from apportioned kernel latencies, which carry little more than
    # FLOPs + bytes (MAPE about 0.65x the constant's here); xgboost sees op counts (0.3x).
    assert _mape(measured, predicted) < 0.8 * constant


@pytest.mark.parametrize("name", ["nn-meter", "xgboost"])
def test_seed_makes_fits_repeatable(name: str, op_mix: tuple[list, list]) -> None:
    train, held_out = op_mix
    first = _make(name, random_state=3).fit(train).predict(held_out)
    second = _make(name, random_state=3).fit(train).predict(held_out)
    np.testing.assert_array_equal(first, second)


def test_kernel_features_sum_costs_per_kernel(raws: list[RawFeatures]) -> None:
    raw = raws[0]
    patterns, x = kernel_features(raw)
    assert patterns == raw.kernel_patterns()
    assert x.shape == (len(patterns), len(KERNEL_COLUMNS))
    for column in ("flops", "bytes"):
        total = raw.graph_values[GRAPH_COLUMNS.index(column)]
        assert x[:, KERNEL_COLUMNS.index(column)].sum() == pytest.approx(total)
    # A Conv-anchored kernel takes its window from the Conv, not its fused Relu.
    fused = patterns.index(next(p for p in patterns if p.startswith("Conv+")))
    assert x[fused, KERNEL_COLUMNS.index("kernel_h")] > 0


def test_kernel_forest_trains_one_forest_per_frequent_pattern(
    op_mix: tuple[list, list],
) -> None:
    train, _ = op_mix
    model = KernelForest(n_estimators=5, min_kernels=30).fit(train)
    counts: dict[str, int] = {}
    for record in train:
        for pattern in record.raw.kernel_patterns():
            counts[pattern] = counts.get(pattern, 0) + 1
    assert set(model.forests_) == {p for p, n in counts.items() if n >= 30}
    # One Gemm per graph (22 kernels) is too rare: it goes to the fallback forest.
    assert "Conv+Add+Relu" in model.forests_ and "Gemm" not in model.forests_


def test_kernel_forest_unseen_kernel_type_uses_fallback(op_mix: tuple[list, list]) -> None:
    train, held_out = op_mix
    model = KernelForest(n_estimators=30).fit(train)
    record = next(r for r in held_out if "AveragePool" in r.raw.op_types)
    unseen = dataclasses.replace(record, raw=_renamed(record.raw, "AveragePool", "MaxPool"))
    assert "MaxPool" in unseen.raw.kernel_patterns()
    assert not any("MaxPool" in p for p in model.forests_)
    predicted = model.predict([unseen, record])
    assert np.all(np.isfinite(predicted)) and np.all(predicted > 0)
    # The renamed kernels went to the fallback forest, which predicts differently.
    assert predicted[0] != predicted[1]


def test_xgboost_counts_unseen_operators_as_other(op_mix: tuple[list, list]) -> None:
    train, held_out = op_mix
    model = GraphXGBoost(n_estimators=20).fit(train)
    assert {"AveragePool", "Add"} <= set(model.op_vocab_)
    assert not {"MaxPool", "Sum"} & set(model.op_vocab_)
    record = next(r for r in held_out if {"AveragePool", "Add"} <= set(r.raw.op_types))
    pools, adds = record.raw.op_types.count("AveragePool"), record.raw.op_types.count("Add")
    # Two different unseen operators both land in <other>.
    raw = _renamed(_renamed(record.raw, "AveragePool", "MaxPool"), "Add", "Sum")
    unseen = dataclasses.replace(record, raw=raw)
    names = model.feature_names()
    x = model.design_matrix([record, unseen])
    assert x.shape == (2, len(names))
    assert x[0, names.index("op:AveragePool")] == pools
    assert x[1, names.index("op:AveragePool")] == x[1, names.index("op:Add")] == 0
    assert x[1, names.index("op:<other>")] == x[0, names.index("op:<other>")] + pools + adds
    np.testing.assert_array_equal(x[:, : len(GRAPH_COLUMNS)], [record.raw.graph_values] * 2)
    predicted = model.predict([unseen])
    assert np.isfinite(predicted[0]) and predicted[0] > 0


def test_linear_predictions_are_clipped_positive(raws: list[RawFeatures]) -> None:
    # A steep line with a negative intercept predicts below zero for a tiny graph.
    records = _records(raws, lambda raw: 1e-8 * raw.graph_values[FLOPS] - 0.1)
    model = FlopsLinear().fit(records)
    tiny = dataclasses.replace(
        records[0], raw=dataclasses.replace(raws[0], graph_values=raws[0].graph_values * 0)
    )
    assert model.predict([tiny])[0] == MIN_LATENCY_MS


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_errors_say_what_to_do(name: str, op_mix: tuple[list, list]) -> None:
    train, _ = op_mix
    with pytest.raises(NnlatError, match="not fitted"):
        _make(name).predict(train)
    with pytest.raises(NnlatError, match="no records"):
        _make(name).fit([])
    bad = [dataclasses.replace(train[0], latency_ms=0.0), *train[1:]]
    with pytest.raises(NnlatError, match="positive"):
        _make(name).fit(bad)


def _profiled(records: Sequence[LatencyRecord]) -> list[LatencyRecord]:
    """The op-mix records with the per-node split their latency formula implies.

    Convolutions take their FLOPs' time, pooling and additions their fixed costs; every
    other node gets no profiled time (NaN, as a node fused away would).
    """
    out = []
    for record in records:
        ops, flops = record.raw.op_types, record.raw.node_values[:, NODE_FLOPS]
        cost = np.array(
            [
                1e-9 * f if op == "Conv" else {"AveragePool": 0.02, "Add": 0.01}.get(op, np.nan)
                for op, f in zip(ops, flops, strict=True)
            ]
        )
        out.append(dataclasses.replace(record, node_shares=cost / np.nansum(cost)))
    return out


def test_kernel_profiled_learns_kernel_costs_from_the_profile(op_mix: tuple[list, list]) -> None:
    train, held_out = (_profiled(part) for part in op_mix)
    measured = np.array([r.latency_ms for r in held_out])
    profiled = ProfiledKernels(n_estimators=100).fit(train).predict(held_out)
    apportioned = KernelForest(n_estimators=30).fit(train).predict(held_out)
    # The profile tells it what each kernel costs; nn-Meter has to guess from FLOPs + bytes.
    assert _mape(measured, profiled) < 0.5 * _mape(measured, apportioned)
    assert np.all(profiled > 0) and profiled.shape == (len(held_out),)


def test_kernel_profiled_needs_profiled_records(op_mix: tuple[list, list]) -> None:
    train, _ = op_mix
    with pytest.raises(NnlatError, match="per-node profile"):
        ProfiledKernels().fit(train)
    with pytest.raises(NnlatError, match="not fitted"):
        ProfiledKernels().predict(train)
