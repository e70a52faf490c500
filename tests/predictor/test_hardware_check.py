"""A head measured on other hardware of this host's name is announced (issue 33)."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

import nnlat.predictor.api as api
from nnlat.errors import NnlatWarning
from nnlat.measure.environment import detect_hardware
from nnlat.predictor.predictor import Predictor
from nnlat.predictor.training import TrainSettings
from nnlat.testing import tiny_model
from nnlat.testing.records import toy_records

PLATFORM = "fake-fake1.0-fp32-t1"


@pytest.fixture(scope="module")
def trained() -> Predictor:
    records = [dataclasses.replace(r, hardware="f0") for r in toy_records()]
    predictor, _ = Predictor.fit(
        records,
        settings=TrainSettings(epochs=2, valid_fraction=0.25, device="cpu"),
        config={"hidden": 16, "layers": 2},
    )
    return predictor


def test_training_records_the_fingerprints_of_each_platform(trained: Predictor) -> None:
    assert trained.info["hardware"] == {PLATFORM: ["f0"]}


def _host(monkeypatch: pytest.MonkeyPatch, fingerprint: str) -> None:
    """This host as hardware ``fake`` with ``fingerprint`` (the toy platform's hardware)."""
    host = detect_hardware().model_copy(update={"hardware": "fake", "fingerprint": fingerprint})
    monkeypatch.setattr(api, "detect_hardware", lambda: host)


def test_a_host_of_the_same_name_but_other_hardware_is_warned(
    trained: Predictor, monkeypatch: pytest.MonkeyPatch
) -> None:
    _host(monkeypatch, "f1")
    with pytest.warns(NnlatWarning, match="measured on other hardware of the same name") as seen:
        prediction = api.predict(tiny_model(), PLATFORM, predictor=trained)
    assert prediction.same_hardware is False
    assert f"`nnlat onboard -p {PLATFORM}`" in str(seen[0].message)  # what to do about it


def test_the_host_that_measured_the_data_gets_no_warning(
    trained: Predictor, monkeypatch: pytest.MonkeyPatch
) -> None:
    _host(monkeypatch, "f0")
    with warnings.catch_warnings():
        warnings.simplefilter("error", NnlatWarning)
        prediction = api.predict(tiny_model(), PLATFORM, predictor=trained)
    assert prediction.same_hardware is True
    heads = api.predict_heads(tiny_model(), predictor=trained)
    assert [p.same_hardware for p in heads] == [True]


def test_other_hardware_or_no_record_leaves_the_question_open(
    trained: Predictor, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = detect_hardware().model_copy(update={"hardware": "elsewhere", "fingerprint": "f1"})
    monkeypatch.setattr(api, "detect_hardware", lambda: host)
    assert api.predict(tiny_model(), PLATFORM, predictor=trained).same_hardware is None
    _host(monkeypatch, "f1")
    info = dict(trained.info)
    info.pop("hardware")
    monkeypatch.setattr(trained, "info", info)
    assert api.predict(tiny_model(), PLATFORM, predictor=trained).same_hardware is None
