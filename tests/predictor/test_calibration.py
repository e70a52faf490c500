"""Onboarding a CPU platform on this host: one scale for the head, this machine only."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.errors import NnlatError
from nnlat.measure.runner import reference_platform
from nnlat.predictor.api import predict
from nnlat.predictor.calibrate import calibrate
from nnlat.predictor.calibration import (
    calibration_path,
    load_calibration,
    save_calibration,
    shot_models,
)
from nnlat.predictor.onboard import ONBOARD_DIR_ENV
from nnlat.predictor.predictor import Predictor
from nnlat.testing import tiny_model
from nnlat.testing.records import TOY_PLATFORM, toy_predictor


@pytest.fixture(scope="module")
def trained() -> Predictor:
    return toy_predictor()[0]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ONBOARD_DIR_ENV, str(tmp_path))
    return tmp_path


def _three_times_the_head(trained: Predictor):  # a host exactly 3x slower than the head
    return lambda model: (
        3.0 * predict(model, TOY_PLATFORM, predictor=trained, calibrated=False).value
    )


def test_the_scale_is_saved_and_every_later_prediction_carries_it(
    trained: Predictor, folder: Path
) -> None:
    models = [("a", tiny_model()), ("b", tiny_model(channels=4)), ("c", tiny_model(channels=8))]
    result = calibrate(
        TOY_PLATFORM, predictor=trained, models=models, measure_ms=_three_times_the_head(trained)
    )
    assert result.scale == pytest.approx(3.0)
    assert calibration_path(TOY_PLATFORM, result.fingerprint).is_file()
    other = tiny_model(channels=6)
    plain = predict(other, TOY_PLATFORM, predictor=trained, calibrated=False)
    scaled = predict(other, TOY_PLATFORM, predictor=trained)
    assert scaled.value == pytest.approx(3.0 * plain.value)
    assert scaled.calibration == "×3.00 from 3 models timed on this host (nnlat onboard)"
    assert plain.calibration is None


def test_another_machine_or_another_predictor_does_not_inherit_it(
    trained: Predictor, folder: Path
) -> None:
    models = [("a", tiny_model())]
    made = calibrate(
        TOY_PLATFORM, predictor=trained, models=models, measure_ms=_three_times_the_head(trained)
    )
    calibration_path(TOY_PLATFORM, made.fingerprint).unlink()
    save_calibration(dataclasses.replace(made, fingerprint="another-host"))
    assert predict(tiny_model(), TOY_PLATFORM, predictor=trained).calibration is None
    save_calibration(dataclasses.replace(made, predictor="nnlp:another"))
    assert predict(tiny_model(), TOY_PLATFORM, predictor=trained).calibration is None


def test_a_calibration_of_another_format_asks_to_onboard_again(folder: Path) -> None:
    calibration_path("p-ort1.0-fp32-t1", "f").write_text(json.dumps({"version": 99}))
    with pytest.raises(NnlatError, match=r"nnlat onboard -p p-ort1\.0-fp32-t1"):
        load_calibration("p-ort1.0-fp32-t1", "f")


def test_shots_are_published_architectures_and_bounded() -> None:
    assert [name for name, _ in shot_models(2)] == ["mobilenet_v2", "resnet18"]
    with pytest.raises(NnlatError, match="shots must be 1 to 10"):
        shot_models(11)


def test_onboard_times_a_model_on_this_host_and_predict_says_so(
    folder: Path, tmp_path: Path
) -> None:
    """The real path: the shipped predictor, the measurement protocol on this host's CPU."""
    platform = reference_platform().name
    result = CliRunner().invoke(app, ["onboard", "-p", platform, "-k", "1", "--json"])
    assert result.exit_code == 0, result.output
    saved = json.loads(result.stdout)
    assert saved["shot_models"] == ["mobilenet_v2"] and saved["shot_ms"][0] > 0
    assert saved["scale"] == pytest.approx(saved["shot_ms"][0] / saved["predicted_ms"][0])
    model = tmp_path / "m.onnx"
    import onnx

    onnx.save(tiny_model(), model)
    answer = CliRunner().invoke(app, ["predict", str(model), "-p", platform, "--json"])
    assert answer.exit_code == 0, answer.output
    [prediction] = json.loads(answer.stdout)["predictions"]
    assert prediction["calibration"].startswith(f"×{saved['scale']:.2f} from 1 models")
