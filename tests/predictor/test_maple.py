"""MAPLE's dual-stream regressor and its mixing weights."""

from __future__ import annotations

import numpy as np

from nnlat.predictor.maple import MapleRegressor, OpCostTransfer, mixing_weights, priced


def test_mixing_gives_the_few_adaptation_samples_a_larger_weight() -> None:
    weights = mixing_weights(900, 3)
    assert len(weights) == 903
    assert weights[-1] > weights[0]
    np.testing.assert_allclose(weights[:900].sum(), 30.0)


def test_it_learns_latency_from_architecture_and_descriptor() -> None:
    rng = np.random.default_rng(0)
    arch = rng.integers(0, 2, (600, 8)).astype(float)
    desc = np.repeat(rng.random((6, 2)), 100, axis=0)
    latency = np.exp(arch @ rng.random(8) + 2.0 * desc[:, 0])
    model = MapleRegressor(steps=600).fit(arch[:500], desc[:500], latency[:500])
    error = np.abs(model.predict(arch[500:], desc[500:]) / latency[500:] - 1)
    assert np.median(error) < 0.1
    # a constant prediction would be far worse: the descriptor is used
    assert np.median(np.abs(np.median(latency[:500]) / latency[500:] - 1)) > 0.3


def test_op_cost_transfer_carries_the_nearest_efficiency_profile() -> None:
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 4, (60, 3)).astype(float)
    costs = rng.uniform(1, 5, (4, 4))  # descriptor costs of 3 operators + fixed part
    # two kinds of device: ones keep the descriptor's costs, others halve operator 0's
    efficiency = np.array([[1, 1, 1, 1], [1, 1, 1, 1], [0.5, 1, 1, 1], [0.5, 1, 1, 1]])
    latency = np.stack(
        [counts @ (c * e)[:3] + (c * e)[3] for c, e in zip(costs, efficiency, strict=True)], 1
    )
    design = priced(counts, costs)
    model = OpCostTransfer().fit(design[:3, :40], latency[:40, :3])
    # device 3 (unseen): 3 shots pick device 2's profile, scaled by the shots
    adapted = model.adapt(design[3, 40:43], latency[40:43, 3], np.ones(3))
    assert adapted[:, -1].argmax() == 2
    np.testing.assert_allclose(model.predict(design[3, 43:], adapted), latency[43:, 3], rtol=0.02)


def test_op_cost_transfer_takes_costs_that_depend_on_the_architecture() -> None:
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 4, (50, 2)).astype(float)
    # per-architecture costs: operator 0 twice as dear on half of the architectures
    costs = np.ones((3, 50, 3))
    costs[:, ::2, 0] = 2.0
    design = priced(counts, costs)
    latency = design.sum(axis=2).T * np.array([1.0, 2.0, 4.0])
    model = OpCostTransfer().fit(design[:2, :40], latency[:40, :2])
    adapted = model.adapt(design[2, 40:43], latency[40:43, 2], np.ones(2))
    np.testing.assert_allclose(model.predict(design[2, 43:], adapted), latency[43:, 2], rtol=1e-6)
