"""Training and fine-tuning on a GPU (run with ``-m gpu`` where CUDA is present)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from nnlat.predictor import Predictor, TrainSettings
from nnlat.predictor.metrics import mape
from nnlat.predictor.transfer import fine_tune
from nnlat.testing.records import toy_records

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]


def test_a_predictor_trained_on_the_gpu_comes_back_to_the_cpu_and_predicts() -> None:
    records = toy_records()
    settings = TrainSettings(epochs=80, patience=80, valid_fraction=0.0, device="cuda")
    predictor, _ = Predictor.fit(records, settings=settings, config={"hidden": 32})
    assert next(predictor.net.parameters()).device.type == "cpu"
    predicted = predictor.predict_records(records)
    assert mape([r.latency_ms for r in records], predicted) < 0.3


def test_fine_tuning_for_a_new_platform_runs_on_the_gpu() -> None:
    base, _ = Predictor.fit(
        toy_records(), settings=TrainSettings(epochs=5, device="cpu"), config={"hidden": 8}
    )
    slower = [replace(r, latency_ms=3 * r.latency_ms) for r in toy_records("toy-x3")]
    settings = TrainSettings(epochs=5, valid_fraction=0.0, device="cuda")
    tuned, _ = fine_tune(base, slower, settings=settings, part="heads")
    assert "toy-x3" in tuned.platforms
    assert np.isfinite(tuned.predict_records(slower)).all()
