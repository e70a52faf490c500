"""An ensemble of seeds answers with its members' geometric mean, saves and loads whole."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nnlat.predictor.api import predict, predict_heads
from nnlat.predictor.ensemble import ENSEMBLE_FILE, Ensemble, load_saved
from nnlat.predictor.predictor import Predictor, PredictorError
from nnlat.predictor.training import TrainSettings
from nnlat.predictor.transfer import fine_tune
from nnlat.testing import tiny_model
from nnlat.testing.records import TOY_PLATFORM, toy_predictor, toy_records


@pytest.fixture(scope="module")
def seeds() -> tuple[list[Predictor], list]:
    trained = [toy_predictor(seed=seed) for seed in (0, 1, 2)]
    return [p for p, _ in trained], trained[0][1]


def test_an_ensemble_answers_with_the_geometric_mean_of_its_members(seeds) -> None:
    members, records = seeds
    ensemble = Ensemble(members)
    each = np.stack([m.predict_records(records) for m in members])
    assert not np.allclose(each[0], each[1])  # the seeds differ, or this proves nothing
    expected = np.exp(np.log(each).mean(axis=0))
    assert np.allclose(ensemble.predict_records(records), expected)
    raws = [r.raw for r in records]
    assert np.allclose(ensemble.predict_raw(iter(raws), TOY_PLATFORM), expected)
    assert np.allclose(ensemble.predict_heads(raws)[(TOY_PLATFORM, "latency")], expected)


def test_an_ensemble_saves_and_loads_with_its_name_and_seeds(seeds, tmp_path: Path) -> None:
    members, records = seeds
    saved = Ensemble(members).save(tmp_path / "ensemble", name="toy-x3")
    sidecar = json.loads((saved / ENSEMBLE_FILE).read_text())
    assert sidecar["members"] == ["member0", "member1", "member2"]
    assert sidecar["seeds"] == [0, 1, 2]
    loaded = load_saved(saved)
    assert isinstance(loaded, Ensemble) and loaded.info["name"] == "toy-x3"
    assert loaded.info["members"] == 3
    assert np.allclose(loaded.predict_records(records), Ensemble(members).predict_records(records))
    assert isinstance(load_saved(saved / "member1"), Predictor)


def test_the_prediction_api_takes_an_ensemble_directory(seeds, tmp_path: Path) -> None:
    members, _ = seeds
    saved = Ensemble(members).save(tmp_path / "ensemble", name="toy-x3")
    answer = predict(tiny_model(), TOY_PLATFORM, predictor=saved)
    [every] = predict_heads(tiny_model(), predictor=saved)
    single = [predict(tiny_model(), TOY_PLATFORM, predictor=m).latency_ms for m in members]
    assert answer.latency_ms == pytest.approx(float(np.exp(np.mean(np.log(single)))))
    assert answer.predictor == "nnlp:toy-x3"
    assert every.value == pytest.approx(answer.latency_ms)


def test_members_with_different_heads_or_a_member_outside_are_refused(
    seeds, tmp_path: Path
) -> None:
    members, records = seeds
    fp16 = toy_records("fake-fake1.0-fp16-t1")
    tuned, _ = fine_tune(members[1], fp16, settings=TrainSettings(epochs=1, device="cpu"))
    with pytest.raises(PredictorError, match="same heads"):
        Ensemble([members[0], tuned])
    with pytest.raises(PredictorError, match="member by member"):
        fine_tune(Ensemble(members), records)  # type: ignore[arg-type]
    saved = Ensemble(members[:1]).save(tmp_path / "e")
    sidecar = json.loads((saved / ENSEMBLE_FILE).read_text())
    (saved / ENSEMBLE_FILE).write_text(json.dumps({**sidecar, "members": ["../elsewhere"]}))
    with pytest.raises(PredictorError, match="outside itself"):
        load_saved(saved)


def test_an_ensemble_is_fine_tuned_member_by_member(seeds) -> None:
    members, _ = seeds
    fp16 = toy_records("fake-fake1.0-fp16-t1")
    settings = TrainSettings(epochs=2, device="cpu", seed=3)
    tuned, summary = Ensemble(members, {"name": "toy-x3"}).fine_tuned(fp16, settings=settings)
    alone = [fine_tune(m, fp16, settings=settings)[0] for m in members]
    assert tuned.info["name"] == "toy-x3" and tuned.heads == alone[0].heads
    each = np.stack([p.predict_records(fp16) for p in alone])
    assert np.allclose(tuned.predict_records(fp16), np.exp(np.log(each).mean(axis=0)), rtol=1e-4)
    assert summary.seconds > 0
