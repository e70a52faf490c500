"""The shared training loop's options: losses, AdamW, the plateau schedule, balancing."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch_geometric.data import Batch, Data

from nnlat.predictor import Predictor, TrainSettings
from nnlat.predictor.training import batch_loader, loss_value, train_network, validation_mape
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


def graphs(heads: dict[int, int], latency_ms: dict[int, float] | None = None) -> list[Data]:
    """``heads[h]`` bare graphs for head ``h`` (latency 1 ms unless ``latency_ms[h]``)."""
    latency_ms = latency_ms or {}
    return [
        Data(platform=torch.tensor([h]), y=torch.tensor([latency_ms.get(h, 1.0)]))
        for h, count in heads.items()
        for _ in range(count)
    ]


def share_of_head_1(settings: TrainSettings, data: list[Data], epochs: int = 20) -> float:
    drawn = [
        int(head)
        for _ in range(epochs)
        for batch in batch_loader(data, settings)
        for head in batch.platform
    ]
    assert len(drawn) == epochs * len(data)  # an epoch is still one pass's worth
    return drawn.count(1) / len(drawn)


def test_balanced_batches_draw_a_rare_platform_as_often_as_a_common_one() -> None:
    data = graphs({0: 90, 1: 10})
    assert share_of_head_1(TrainSettings(batch_size=16), data) == pytest.approx(0.1)
    assert 0.4 < share_of_head_1(TrainSettings(batch_size=16, balance_platforms=True), data) < 0.6


class OneMillisecond(nn.Module):
    """Predicts 1 ms (log 0) for every graph."""

    def __init__(self) -> None:
        super().__init__()
        self.unused = nn.Parameter(torch.zeros(1))

    def forward(self, batch: Batch) -> torch.Tensor:
        return torch.zeros(batch.num_graphs)


def test_balanced_validation_averages_the_platforms_mapes() -> None:
    # Nine exact graphs on head 0, one 2 ms graph (50 % off) on head 1.
    valid = graphs({0: 9, 1: 1}, {1: 2.0})
    assert validation_mape(OneMillisecond(), valid, per_platform=False) == pytest.approx(0.05)
    assert validation_mape(OneMillisecond(), valid, per_platform=True) == pytest.approx(0.25)


def test_the_median_head_ignores_one_noisy_head() -> None:
    # Heads 0 and 1 exact, head 2 (a noise target) 300 % off: the median is 0.
    valid = graphs({0: 4, 1: 4, 2: 4}, {2: 0.25})
    assert validation_mape(OneMillisecond(), valid, per_platform=False) == pytest.approx(1.0)
    assert validation_mape(OneMillisecond(), valid, False, median_head=True) == 0.0


class LogBias(nn.Module):
    """Predicts one trainable log-target for every graph, starting at ``start``."""

    def __init__(self, start: float) -> None:
        super().__init__()
        self.log_value = nn.Parameter(torch.tensor([start]))

    def forward(self, batch: Batch) -> torch.Tensor:
        return self.log_value.expand(batch.num_graphs)


@pytest.mark.parametrize(("anchor", "recovers"), [(0.0, False), (1.0, True)])
def test_the_log_anchor_revives_a_head_collapsed_far_below_its_targets(
    anchor: float, recovers: bool
) -> None:
    # A head at e^-25 ms (where PerfSAGE's CPU heads fell on cnn-kws): the hybrid loss's
    # gradient scales with e^-25, below Adam's epsilon, and 40 steps barely move it; the
    # log error's gradient does not scale with the prediction and brings it back.
    net = LogBias(-25.0)
    settings = TrainSettings(epochs=40, lr=1.0, loss="mape-rmse", log_anchor=anchor, device="cpu")
    train_network(net, graphs({0: 1}, {0: 2.0}), [], settings)
    assert (float(net.log_value.detach()) > -5.0) is recovers
