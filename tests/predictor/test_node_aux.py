"""The auxiliary per-node target: NNLP's node head learns each node's share of the
profiled time; off by default, so nothing else changes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch

from nnlat.predictor.predictor import Predictor, PredictorError, to_data
from nnlat.predictor.training import TrainSettings, node_share_loss
from nnlat.studies.methods import METHODS, MethodContext
from nnlat.testing.records import toy_records

SETTINGS = TrainSettings(epochs=40, valid_fraction=0.25, device="cpu", batch_size=4)
CONFIG = {"hidden": 16, "layers": 2}


def _with_shares(conv_share: float = 0.8) -> list:
    shares = np.array([conv_share, 1 - conv_share])  # toy graphs: Conv → Relu
    return [dataclasses.replace(r, node_shares=shares) for r in toy_records()]


def test_the_loss_is_zero_at_the_target_and_ignores_nodes_without_one() -> None:
    graphs = torch.tensor([0, 0, 0, 1, 1])
    target = torch.tensor([0.6, 0.2, float("nan"), float("nan"), float("nan")])
    right = torch.tensor([0.3, 0.1, 0.6, 0.5, 0.5])  # 3:1 over the two nodes with targets
    assert float(node_share_loss(right, target, graphs)) == pytest.approx(0.0, abs=1e-6)
    wrong = torch.tensor([0.1, 0.3, 0.6, 0.5, 0.5])
    assert float(node_share_loss(wrong, target, graphs)) > 0.1
    none = torch.full((5,), float("nan"))
    assert float(node_share_loss(right, none, graphs)) == 0.0


def test_off_by_default_the_network_has_no_node_head() -> None:
    predictor, _ = Predictor.fit(_with_shares(), settings=SETTINGS.model_copy(update={"epochs": 1}),
                                 config=CONFIG)  # fmt: skip
    assert not predictor.net.config.node_head
    assert not any(key.startswith("node_head") for key in predictor.net.state_dict())


def test_the_node_head_learns_the_profiled_split() -> None:
    settings = SETTINGS.model_copy(update={"node_aux_weight": 1.0})
    predictor, result = Predictor.fit(_with_shares(0.8), settings=settings, config=CONFIG)
    assert predictor.net.config.node_head and result.best_epoch >= 1
    record = toy_records()[0]
    batch = Batch.from_data_list([to_data(predictor.schema.encode(record.raw), 0)])
    with torch.no_grad():
        _, shares = predictor.net.forward_with_nodes(batch)
    assert float(shares[0]) > 0.65  # from 0.5 (no knowledge) towards the profiled 0.8
    assert predictor.predict_records([record]).shape == (1,)


def test_records_without_shares_train_on_latency_alone() -> None:
    settings = SETTINGS.model_copy(update={"node_aux_weight": 0.1, "epochs": 2})
    mixed = _with_shares()[:6] + toy_records()[6:]
    predictor, _ = Predictor.fit(mixed, settings=settings, config=CONFIG)
    assert predictor.net.config.node_head


def test_a_network_without_a_node_head_refuses_the_auxiliary_target() -> None:
    settings = SETTINGS.model_copy(update={"node_aux_weight": 0.1, "epochs": 1})
    with pytest.raises(PredictorError, match="no node head"):
        Predictor.fit(_with_shares(), network="brpnas", settings=settings)


def test_the_study_method_trains_with_the_auxiliary_weight() -> None:
    context = MethodContext(settings=SETTINGS.model_copy(update={"epochs": 1}), config=CONFIG)
    estimator = METHODS.get("nnlp-node-aux0.1").build(context).fit(_with_shares())
    assert estimator.predictor_.info["settings"]["node_aux_weight"] == 0.1
