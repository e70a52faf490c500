"""The shared training loop's optimiser options: AdamW and the plateau schedule."""

from __future__ import annotations

import pytest

from nnlat.predictor import Predictor, TrainSettings
from nnlat.testing.records import toy_records


def fit(**settings: object) -> float:
    """The final learning rate of a short NNLP fit on the toy records."""
    given = TrainSettings(epochs=5, patience=10, valid_fraction=0.25, device="cpu", **settings)
    _, result = Predictor.fit(toy_records(), settings=given, config={"hidden": 8})
    return result.final_lr


def test_the_learning_rate_stays_put_without_a_schedule() -> None:
    assert fit(lr=1e-3) == pytest.approx(1e-3)


def test_a_plateau_halves_the_learning_rate() -> None:
    # So small a rate cannot improve the validation MAPE by torch's relative threshold
    # (1e-4): epochs 2-5 are all stale, and with patience 0 each one halves the rate.
    assert fit(lr=1e-12, lr_plateau=0) == pytest.approx(1e-12 / 2**4)
    assert fit(lr=1e-12, lr_plateau=2) == pytest.approx(1e-12 / 2)


def test_an_unknown_optimiser_is_refused() -> None:
    with pytest.raises(ValueError, match="optimiser"):
        TrainSettings(optimiser="sgd")
