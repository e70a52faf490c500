"""The PerfSAGE network: CFE picks first-layer weights by operator type; it learns and saves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch, Data

from nnlat.features.raw import NODE_COLUMNS
from nnlat.predictor import Predictor, TrainSettings
from nnlat.predictor.metrics import mape
from nnlat.predictor.networks.perfsage import PerfSage, PerfSageConfig
from nnlat.testing.records import TOY_PLATFORM, toy_records

OPS = 3


def graph(op: int) -> Data:
    """One node of operator ``op`` with all-ones values."""
    x = torch.ones(1, OPS + len(NODE_COLUMNS))
    x[0, :OPS] = 0
    x[0, op] = 1
    return Data(
        x=x,
        edge_index=torch.zeros(2, 0, dtype=torch.long),
        global_x=torch.zeros(1, 2),
        platform=torch.tensor([0]),
    )


@pytest.mark.parametrize("cfe", [True, False])
def test_cfe_gives_each_operator_type_its_own_input_weights(cfe: bool) -> None:
    torch.manual_seed(0)
    config = PerfSageConfig(
        node_dim=OPS + len(NODE_COLUMNS), global_dim=2, platforms=1, hidden=8, layers=0,
        category_dim=1, static_features=False, cfe=cfe,
    )  # fmt: skip
    net = PerfSage(config).eval()
    with torch.no_grad():  # the same type embedding for every type: only CFE tells them apart
        net.categories.weight.fill_(0.5)
    a, b = (net.embed(Batch.from_data_list([graph(op)])) for op in (0, 1))
    assert torch.allclose(a, b) is not cfe
    assert sum(p.numel() for p in net.input.parameters()) == ((len(NODE_COLUMNS) + 1) * 8 + 8) * (
        OPS if cfe else 1
    )


def test_perfsage_learns_the_toy_latency_and_saves(tmp_path: Path) -> None:
    settings = TrainSettings(
        epochs=60, patience=60, valid_fraction=0.0, device="cpu", loss="mape-rmse"
    )
    predictor, _ = Predictor.fit(
        toy_records(),
        network="perfsage",
        settings=settings,
        config={"hidden": 16, "layers": 2, "head_width": 32},
    )
    records = toy_records()
    predicted = predictor.predict_records(records)
    assert mape([r.latency_ms for r in records], predicted) < 0.5
    loaded = Predictor.load(predictor.save(tmp_path / "p"))
    np.testing.assert_allclose(loaded.predict_records(records), predicted, rtol=1e-6)
    assert loaded.net.config.layers == 2 and loaded.platforms == [TOY_PLATFORM]
