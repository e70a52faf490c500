"""MAPLE's dual-stream regressor and its mixing weights."""

from __future__ import annotations

import numpy as np

from nnlat.predictor.maple import MapleRegressor, mixing_weights


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
