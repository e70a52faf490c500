"""The predictor inside the package: loads on a fresh install and still fits its data.

If features or the network change without retraining, these tests fail: retrain with
the command in docs/predictor.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nnlat.datasets.training import graph_of
from nnlat.features import raw_features
from nnlat.predictor.api import load_predictor
from nnlat.predictor.metrics import mape
from nnlat.store import Store

DATA = Path(__file__).parents[2] / "data"
PLATFORMS = [
    "epyc-ort1.31-fp32-t1",
    "epyc-ort1.32-fp32-t1",
    "xeon-openvino2026.4-fp32-t1",
    "xeon-ort1.31-fp32-t1",
    "xeon-ort1.32-fp32-t1",
]


def test_shipped_predictor_loads_with_its_platforms() -> None:
    predictor = load_predictor()
    assert predictor.platforms == PLATFORMS
    assert predictor.info["name"] == "nnlat-zoo-corpus-face-x3"
    assert predictor.info["members"] == 3


@pytest.mark.parametrize(
    ("dataset", "platform", "family"),
    [
        ("nnlqp10-xeon", PLATFORMS[3], "squeezenet"),
        ("nnlqp10-xeon", PLATFORMS[3], "nasbench201"),
        ("epyc-ort", PLATFORMS[0], "seqnet"),
        ("epyc-ort", PLATFORMS[0], "segnet"),
        ("epyc-ort132", PLATFORMS[1], "tinynet"),
        ("corpus-epyc", PLATFORMS[1], "det-head"),
        ("corpus-xeon", PLATFORMS[4], "ocr-crnn"),
    ],
)
@pytest.mark.slow
def test_shipped_predictor_fits_its_training_dataset(
    tmp_path: Path, dataset: str, platform: str, family: str
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    store.import_(DATA / f"{dataset}.jsonl.gz")
    found = store.list_measurements(platform=platform, family=family)[:12]
    raws = [
        raw_features(graph_of(store.get_model(m.graph_hash), dict(m.input_shapes))) for m in found
    ]
    measured = np.array([m.stats.median_ms for m in found])
    predicted = load_predictor().predict_raw(raws, platform)
    # 90 % of these graphs were training graphs (see the validation MAPE in its info). A
    # stale predictor is off many times over; SegNet, the family with the largest
    # feature maps, is the one the mean readout fits worst (17 % on these twelve).
    assert mape(measured, predicted) < 0.2, family


@pytest.mark.slow
def test_shipped_predictor_scales_with_batch_size() -> None:
    # Every training record has batch 1: a larger batch must still give a sane answer.
    from nnlat.zoo import get_family

    model = get_family("resnet").model(get_family("resnet").canonical["resnet18"])
    one, eight = (raw_features(model.to_graph(batch_size=b)) for b in (1, 8))
    ms_one, ms_eight = load_predictor().predict_raw([one, eight], PLATFORMS[3])
    assert 1 < ms_eight / ms_one < 20


def test_this_hosts_default_platform_is_predicted_by_the_shipped_predictor() -> None:
    """A fresh install has whatever onnxruntime the registry serves today, not the one
    the shipped data were measured with: its platform must still be answered."""
    import warnings

    from nnlat.measure.runner import reference_platform
    from nnlat.predictor.api import predict
    from nnlat.testing import tiny_model

    host = reference_platform().name
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        named = predict(tiny_model(), host)
        default = predict(tiny_model())
    assert named.platform == default.platform == host
    assert named.served_by == default.served_by
    assert named.served_by in PLATFORMS
    assert named.latency_ms == default.latency_ms > 0
    if named.served_by != host:  # the warning names the head that answered
        assert any(named.served_by in str(w.message) for w in caught)
