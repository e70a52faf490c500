"""(platform, target) heads: memory and energy beside latency, saved, loaded, predicted."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from nnlat.cli.main import app
from nnlat.features.records import LatencyRecord
from nnlat.predictor import Predictor, PredictorError, TrainSettings, predict
from nnlat.predictor.api import predict_heads
from nnlat.predictor.metrics import mape
from nnlat.predictor.training import head_means, loss_value, upsample
from nnlat.testing import tiny_model
from nnlat.testing.records import TOY_PLATFORM, toy_records

NPU = "npu-fake1.0-int8"
SETTINGS = TrainSettings(epochs=60, patience=60, valid_fraction=0.0, device="cpu")


def with_memory(records: list[LatencyRecord], platform: str = TOY_PLATFORM) -> list[LatencyRecord]:
    """Toy records on ``platform`` whose memory is 64 KiB per MFLOP plus 100 KiB."""
    return [
        dataclasses.replace(
            r,
            platform=platform,
            memory_bytes=102_400 + 65_536 * float(r.raw.graph_values[1]) / 1e6,
        )
        for r in records
    ]


@pytest.fixture(scope="module")
def two_targets() -> Predictor:
    records = with_memory(toy_records()) + toy_records(NPU)  # memory on the toy platform only
    predictor, _ = Predictor.fit(
        records,
        settings=SETTINGS,
        config={"hidden": 32, "layers": 2},
        targets=("latency", "memory", "energy"),
    )
    return predictor


def test_heads_are_the_platform_target_pairs_with_data(two_targets: Predictor) -> None:
    assert two_targets.heads == [
        (TOY_PLATFORM, "latency"),
        (TOY_PLATFORM, "memory"),
        (NPU, "latency"),
    ]  # no energy head: no record carries energy
    assert two_targets.log_scales[0] == 0.0 and two_targets.log_scales[1] > 10


def test_memory_head_learns_bytes(two_targets: Predictor) -> None:
    records = with_memory(toy_records())
    predicted = two_targets.predict_records(records, "memory")
    assert mape([r.memory_bytes for r in records], predicted) < 0.25
    latency = two_targets.predict_records(records)
    assert mape([r.latency_ms for r in records], latency) < 0.5


def test_one_embedding_answers_every_head(two_targets: Predictor) -> None:
    raws = [r.raw for r in toy_records()]
    every = two_targets.predict_heads(raws)
    assert list(every) == two_targets.heads
    for (platform, target), values in every.items():
        np.testing.assert_allclose(
            values, two_targets.predict_raw(raws, platform, target), rtol=1e-5
        )
    assert list(two_targets.predict_all(raws)) == [TOY_PLATFORM, NPU]


def test_unknown_target_on_a_known_platform_names_the_targets(two_targets: Predictor) -> None:
    with pytest.raises(PredictorError, match=r"does not predict energy.*latency, memory"):
        two_targets.head(TOY_PLATFORM, "energy")
    with pytest.raises(PredictorError, match=r"does not predict memory.*latency"):
        predict(tiny_model(), NPU, predictor=two_targets, target="memory")


def test_predict_api_and_cli_give_memory(two_targets: Predictor, tmp_path: Path) -> None:
    answer = predict(tiny_model(), TOY_PLATFORM, predictor=two_targets, target="memory")
    assert answer.target == "memory" and answer.unit == "bytes" and answer.latency_ms is None
    assert answer.value is not None and answer.value > 50_000
    heads = predict_heads(tiny_model(), predictor=two_targets)
    assert [(p.platform, p.target) for p in heads] == two_targets.heads
    assert heads[1].value == pytest.approx(answer.value, rel=1e-5)

    saved = two_targets.save(tmp_path / "p")
    model = tmp_path / "m.onnx"
    model.write_bytes(tiny_model().SerializeToString())
    args = ["predict", str(model), "-p", TOY_PLATFORM, "--predictor", str(saved)]
    result = CliRunner().invoke(app, [*args, "--target", "memory", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["target"] == "memory"
    assert shown["predictions"][0]["value"] == pytest.approx(answer.value, rel=1e-5)
    plain = CliRunner().invoke(app, [*args, "--target", "memory"])
    assert "KiB" in plain.output
    bad = CliRunner().invoke(app, [*args, "--target", "power"])
    assert bad.exit_code != 0


def test_save_load_keeps_targets_and_scales(two_targets: Predictor, tmp_path: Path) -> None:
    loaded = Predictor.load(two_targets.save(tmp_path / "p"))
    assert loaded.heads == two_targets.heads and loaded.log_scales == two_targets.log_scales
    raws = [r.raw for r in toy_records()]
    np.testing.assert_allclose(
        loaded.predict_raw(raws, TOY_PLATFORM, "memory"),
        two_targets.predict_raw(raws, TOY_PLATFORM, "memory"),
        rtol=1e-6,
    )


def test_a_checkpoint_from_before_targets_loads_as_latency_heads(tmp_path: Path) -> None:
    predictor, _ = Predictor.fit(
        toy_records(), settings=SETTINGS.model_copy(update={"epochs": 2}), config={"hidden": 8}
    )
    saved = predictor.save(tmp_path / "old")
    sidecar = json.loads((saved / "predictor.json").read_text())
    del sidecar["targets"], sidecar["log_scales"]  # as saved before targets existed
    (saved / "predictor.json").write_text(json.dumps(sidecar))
    old = Predictor.load(saved)
    assert old.heads == [(TOY_PLATFORM, "latency")] and old.log_scales == [0.0]
    raws = [r.raw for r in toy_records()]
    np.testing.assert_allclose(
        old.predict_raw(raws, TOY_PLATFORM), predictor.predict_raw(raws, TOY_PLATFORM)
    )


def test_upsample_gives_every_group_its_share() -> None:
    groups = ["big"] * 80 + ["mid"] * 15 + ["small"] * 5
    picked = [groups[i] for i in upsample(groups, 0.1)]
    shares = {g: picked.count(g) / len(picked) for g in set(groups)}
    assert min(shares.values()) >= 0.1 and picked.count("big") == 80  # the largest once
    assert upsample(["a", "b"], 0.1) == [0, 1]  # balanced: nothing repeats
    with pytest.raises(ValueError, match="cannot each hold"):
        upsample(["a", "b", "c"], 0.4)


def test_hybrid_loss_weighs_absolute_error_in_head_units() -> None:
    y = torch.tensor([1.0, 100.0])
    pred = torch.log(y * 1.1)  # 10 % off each
    assert float(loss_value("mape-rmse", pred, y, alpha=0.0)) == pytest.approx(0.1)
    unit = torch.tensor([50.5, 50.5])
    with_mse = float(loss_value("mape-rmse", pred, y, alpha=1.0, unit=unit))
    rmse = float(torch.sqrt(torch.mean(((y * 1.1 - y) / unit) ** 2)))
    assert with_mse == pytest.approx(0.1 + rmse, rel=1e-5)
    from torch_geometric.data import Data

    graphs = [Data(platform=torch.tensor([0]), y=torch.tensor([v])) for v in (1.0, 100.0)]
    assert head_means(graphs).tolist() == [50.5]


def test_unknown_target_is_refused() -> None:
    with pytest.raises(PredictorError, match="unknown target 'power'"):
        Predictor.fit(toy_records(), settings=SETTINGS, targets=("power",))
