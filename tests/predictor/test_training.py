"""The shared training loop's options: losses, AdamW and the plateau schedule."""

from __future__ import annotations

import pytest
import torch

from nnlat.predictor import Predictor, TrainSettings
from nnlat.predictor.training import loss_value
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


@pytest.mark.parametrize(
    ("loss", "expected"),
    [("l1", (0.2 + 0.4) / 2), ("mape", (0.1 + 0.1) / 2), ("mse", (0.04 + 0.16) / 2)],
)
def test_losses_compare_predicted_and_measured_milliseconds(loss: str, expected: float) -> None:
    # The network predicts log-milliseconds: 2.2 and 3.6 ms against 2 and 4 measured.
    log_pred = torch.log(torch.tensor([2.2, 3.6]))
    value = loss_value(loss, log_pred, torch.tensor([2.0, 4.0]))
    assert float(value) == pytest.approx(expected, rel=1e-5)
