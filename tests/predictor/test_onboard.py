"""``nnlat onboard``: characterise a Vela NPU, measure K models, save; ``predict`` uses it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.errors import NnlatError
from nnlat.predictor.onboard import (
    KINDS,
    ONBOARD_DIR_ENV,
    _line,
    load,
    onboard,
    roofline_ms,
    saved_path,
)
from nnlat.zoo import get_family

pytest.importorskip("ethosu.vela")

NPU = "u55_256.ethos_u55_high_end_embedded.shared_sram-vela5.2-int8"
runner = CliRunner()


def kws_model(seed: int) -> bytes:
    spec = get_family("cnn-kws")
    return spec.model(spec.sample(random.Random(seed))).to_tflite(converter="direct")


def test_onboarding_scales_the_roofline_to_the_shots(tmp_path: Path) -> None:
    shots = [("kws:1", kws_model(1)), ("kws:2", kws_model(2))]
    # a stand-in device: a model's size in MB as its latency (a chain of workloads is
    # larger than one, so every operator costs something)
    result = onboard(NPU, folder=tmp_path, models=shots, estimate_ms=lambda t: len(t) / 1e6)
    assert set(result.rates) == set(result.overheads) == set(KINDS) and result.shots == 2
    # the scale is the median of measured / roofline over the shots
    ratios = sorted(len(t) / 1e6 / roofline_ms(t, result.rates, result.overheads) for _, t in shots)
    assert result.scale == pytest.approx(sum(ratios) / 2)
    assert load(NPU, tmp_path) == result
    assert load("another-platform", tmp_path) is None


def test_two_sizes_give_a_rate_and_a_fixed_time_per_operator() -> None:
    rate, fixed = _line([(1000, 0.3), (9000, 1.1)])  # 0.2 ms + 1000 per 0.1 ms
    assert rate == pytest.approx(10_000) and fixed == pytest.approx(0.2)
    # a larger workload relatively faster than a line allows: no negative fixed time
    assert _line([(1000, 0.05), (9000, 0.9)]) == pytest.approx((10_000, 0.0))
    assert _line([(1000, 0.5)]) == pytest.approx((2000, 0.0))


def test_an_older_onboarding_file_says_to_onboard_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved_path(NPU, tmp_path).write_text(json.dumps({"platform": NPU, "version": 1}))
    with pytest.raises(NnlatError, match="run `nnlat onboard -p"):
        load(NPU, tmp_path)
    monkeypatch.setenv(ONBOARD_DIR_ENV, str(tmp_path))
    model = tmp_path / "other.tflite"
    model.write_bytes(kws_model(3))
    predicted = runner.invoke(app, ["predict", str(model), "-p", NPU])
    assert predicted.exit_code != 0 and "nnlat onboard" in predicted.output


def test_only_vela_platforms_can_be_onboarded(tmp_path: Path) -> None:
    with pytest.raises(NnlatError, match="Vela"):
        onboard("xeon-ort1.32-fp32-t1", folder=tmp_path)


def test_onboard_then_predict_any_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ONBOARD_DIR_ENV, str(tmp_path))
    done = runner.invoke(app, ["onboard", "-p", NPU, "--shots", "1", "--json"])
    assert done.exit_code == 0, done.output
    saved = json.loads(done.output)
    assert saved["shot_models"] == ["cnn-kws:900001"]
    assert set(saved["overheads_ms"]) == set(KINDS)
    model = tmp_path / "other.tflite"
    model.write_bytes(kws_model(3))
    predicted = runner.invoke(app, ["predict", str(model), "-p", NPU, "--json"])
    assert predicted.exit_code == 0, predicted.output
    answer = json.loads(predicted.output)
    assert answer["predictor"].startswith("1-shot onboarding")
    assert answer["predictions"][0]["latency_ms"] > 0
