"""The predictor inside the package: loads on a fresh install and still fits its data.

If features or the network change without retraining, these tests fail: retrain with
the command in docs/predictor.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nnlat.datasets.training import graph_of
from nnlat.features import raw_features
from nnlat.predictor.api import load_predictor
from nnlat.predictor.metrics import mape
from nnlat.store import Store

DATASET = Path(__file__).parents[2] / "data" / "nnlqp10-xeon.jsonl.gz"
PLATFORMS = ["xeon-openvino2026.4-fp32-t1", "xeon-ort1.31-fp32-t1"]


def test_shipped_predictor_loads_with_its_platforms() -> None:
    predictor = load_predictor()
    assert predictor.platforms == PLATFORMS
    assert predictor.info["name"] == "nnlqp10-xeon"


def test_shipped_predictor_fits_its_training_dataset(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    store.import_(DATASET)
    predictor = load_predictor()
    for family in ("squeezenet", "nasbench201"):
        found = store.list_measurements(platform=PLATFORMS[1], family=family)[:12]
        raws = [
            raw_features(graph_of(store.get_model(m.graph_hash), dict(m.input_shapes)))
            for m in found
        ]
        measured = np.array([m.stats.median_ms for m in found])
        predicted = predictor.predict_raw(raws, PLATFORMS[1])
        # 90 % of these graphs were training graphs (validation MAPE was 4.8 %)
        assert mape(measured, predicted) < 0.15, family
