"""``nnlat predict`` and ``nnlat train --from``: one JSON object, names, suggestions, heads."""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.datasets import build_dataset
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.predictor import Predictor
from nnlat.predictor.ensemble import Ensemble, load_saved
from nnlat.store import Store
from nnlat.testing import tiny_model
from nnlat.testing.records import TOY_PLATFORM, toy_predictor

NEW_PLATFORM = "fake-fake1.0-fp16-t1"
runner = CliRunner()


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    predictor, _ = toy_predictor()
    predictor.save(tmp_path / "toy")
    return tmp_path / "toy"


@pytest.fixture
def models(tmp_path: Path) -> list[Path]:
    paths = [tmp_path / "a.onnx", tmp_path / "b.onnx"]
    onnx.save(tiny_model(), paths[0])
    onnx.save(tiny_model(channels=4), paths[1])
    return paths


def _measured_env(tmp_path: Path, variants: int) -> dict[str, str]:
    """A database of squeezenet variants measured on the fake fp16 platform, as env vars."""
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    with Store.open(db) as store:
        build_dataset(
            store,
            ["squeezenet"],
            variants,
            [NEW_PLATFORM],
            spec=MeasureSpec(min_runs=3, max_time_s=0.05),
            backends=backend_registry({"fake": FakeBackend}),
        )
    return {"NNLAT_DB_URL": db, "XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_json_is_one_object_naming_each_model(saved: Path, models: list[Path]) -> None:
    for chosen in (models[:1], models):
        args = ["predict", *map(str, chosen), "--predictor", str(saved), "--json"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        payload = json.loads(result.stdout)
        assert payload["platform"] == TOY_PLATFORM
        assert [p["model"] for p in payload["predictions"]] == [str(m) for m in chosen]
        assert all(p["latency_ms"] > 0 for p in payload["predictions"])


def test_a_platform_typo_gets_did_you_mean(saved: Path, models: list[Path]) -> None:
    args = ["predict", str(models[0]), "--predictor", str(saved), "-p", TOY_PLATFORM[:-1]]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"did you mean {TOY_PLATFORM!r}" in result.stderr
    assert "a.onnx" in result.stderr  # the message names the model


def test_an_unknown_platform_gets_the_train_from_command(saved: Path, models: list[Path]) -> None:
    args = ["predict", str(models[0]), "--predictor", str(saved), "-p", "mars-ort9.9-fp32-t1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"nnlat train --from {saved} -p mars-ort9.9-fp32-t1" in result.stderr


def test_a_pytorch_file_is_told_to_export_first(tmp_path: Path) -> None:
    (tmp_path / "net.pth").write_bytes(b"\x80\x02not onnx")
    result = runner.invoke(app, ["predict", str(tmp_path / "net.pth")])
    assert result.exit_code == 2
    assert "nnlat export" in result.stderr


@pytest.mark.slow
def test_train_from_adds_a_head_for_a_new_platform(tmp_path: Path, saved: Path) -> None:
    env = _measured_env(tmp_path, variants=4)
    out = tmp_path / "tuned"
    args = ["train", "--from", str(saved), "-p", NEW_PLATFORM, "-o", str(out), "--epochs", "2"]
    result = runner.invoke(app, [*args, "--json"], env=env)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["platforms"] == [TOY_PLATFORM, NEW_PLATFORM]
    tuned = Predictor.load(out)
    assert tuned.info["fine_tuned_on"]["part"] == "heads"


def test_this_hosts_platform_is_answered_by_the_shipped_predictor(models: list[Path]) -> None:
    """A fresh install's own platform (a newer onnxruntime, or other hardware) gets the
    nearest shipped head, named in a warning and in ``served_by``."""
    from nnlat.measure.runner import reference_platform
    from nnlat.predictor.api import load_predictor

    host = reference_platform().name
    heads = load_predictor(None).platforms
    result = runner.invoke(app, ["predict", str(models[0]), "-p", host, "--json"])
    assert result.exit_code == 0, result.output
    [prediction] = json.loads(result.stdout)["predictions"]
    assert prediction["platform"] == host and prediction["served_by"] in heads
    assert prediction["latency_ms"] > 0
    if host not in heads:
        assert f"the head of {prediction['served_by']}" in result.stderr


def test_a_newer_runtime_is_served_by_its_nearest_version(saved: Path, models: list[Path]) -> None:
    newer = TOY_PLATFORM.replace("1.0", "1.1")
    assert newer != TOY_PLATFORM
    args = ["predict", str(models[0]), "--predictor", str(saved), "-p", newer]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"head of {TOY_PLATFORM}" in result.stdout
    assert "nearest version" in result.stderr


@pytest.mark.slow
def test_train_with_seeds_saves_an_ensemble_that_predict_reads(
    tmp_path: Path, models: list[Path]
) -> None:
    env = _measured_env(tmp_path, variants=6)
    out = tmp_path / "pair"
    args = ["train", "-o", str(out), "--epochs", "2", "--seeds", "3,5", "--hidden", "16"]
    result = runner.invoke(app, [*args, "--note", "k=v", "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["seeds"] == [3, 5]
    ensemble = load_saved(out)
    assert isinstance(ensemble, Ensemble) and ensemble.info["name"] == "pair"
    assert [m.info["settings"]["seed"] for m in ensemble.members] == [3, 5]
    assert all(m.info["k"] == "v" for m in ensemble.members)
    answer = runner.invoke(app, ["predict", str(models[0]), "--predictor", str(out), "--json"])
    assert answer.exit_code == 0, answer.output
    [prediction] = json.loads(answer.stdout)["predictions"]
    assert prediction["predictor"] == "nnlp:pair" and prediction["latency_ms"] > 0
    twice = runner.invoke(app, ["train", "-o", str(out), "--seeds", "1,1"], env=env)
    assert twice.exit_code == 2 and "distinct" in twice.output
