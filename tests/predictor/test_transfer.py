"""Transfer learning: fine-tuning adds heads, keeps the schema, leaves the original alone."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from nnlat.features.records import LatencyRecord
from nnlat.predictor import Predictor, PredictorError, TrainSettings
from nnlat.predictor.metrics import mape
from nnlat.predictor.transfer import (
    FINE_TUNE_SETTINGS,
    MIN_RECORDS_FOR_VALIDATION,
    fine_tune,
    from_scratch,
    transfer_settings,
    with_new_heads,
)
from nnlat.testing.records import TOY_PLATFORM, toy_records

NEW_PLATFORM = "fake-fake1.0-fp16-t1"
# Sorts before TOY_PLATFORM, so its head is head 0: "take the first head" would pick it.
INVERSE_PLATFORM = "fake-fake1.0-fp32-t0"
CONFIG = {"hidden": 32, "layers": 2}
CPU = FINE_TUNE_SETTINGS.model_copy(update={"device": "cpu"})


def _pretrain(records: list[LatencyRecord]) -> Predictor:
    predictor, _ = Predictor.fit(
        records,
        settings=TrainSettings(epochs=80, patience=80, valid_fraction=0.0, device="cpu"),
        config=CONFIG,
    )
    return predictor


@pytest.fixture(scope="module")
def pretrained() -> Predictor:
    return _pretrain(toy_records())


def _on_new_platform(records: list[LatencyRecord]) -> list[LatencyRecord]:
    """The toy records on a platform 3x slower."""
    return [
        dataclasses.replace(r, platform=NEW_PLATFORM, latency_ms=3 * r.latency_ms) for r in records
    ]


def _measured(records: list[LatencyRecord]) -> np.ndarray:
    return np.array([r.latency_ms for r in records])


@pytest.mark.slow
def test_a_new_platform_gets_one_head_and_the_original_is_untouched(
    pretrained: Predictor,
) -> None:
    records = toy_records()
    raws = [r.raw for r in records]
    new = _on_new_platform(records)
    heads = len(pretrained.net.heads)
    state = {k: v.clone() for k, v in pretrained.net.state_dict().items()}
    info = dict(pretrained.info)
    before = pretrained.predict_raw(raws, TOY_PLATFORM)  # the head that will be copied

    tuned, result = fine_tune(pretrained, new, settings=CPU)

    assert len(tuned.net.heads) == heads + 1
    assert tuned.platforms == [TOY_PLATFORM, NEW_PLATFORM]
    # The original predictor: same heads, platforms, weights, info and predictions.
    assert len(pretrained.net.heads) == heads
    assert pretrained.platforms == [TOY_PLATFORM]
    assert pretrained.info == info
    for key, value in pretrained.net.state_dict().items():
        assert torch.equal(value, state[key]), key
    np.testing.assert_array_equal(pretrained.predict_raw(raws, TOY_PLATFORM), before)
    with pytest.raises(PredictorError, match="no head for platform"):
        pretrained.predict_raw(raws, NEW_PLATFORM)
    # The new platform: clearly better than the copied head's predictions.
    measured = _measured(new)
    assert mape(measured, tuned.predict_records(new)) < 0.3 * mape(measured, before)
    # The old platform still predicts sensibly on the fine-tuned copy.
    assert mape(_measured(records), tuned.predict_raw(raws, TOY_PLATFORM)) < 0.3
    # 12 records: no validation share, a fixed number of epochs, the last one kept.
    assert result.best_valid_mape is None
    assert result.best_epoch == len(result.history) == CPU.epochs
    assert tuned.info["fine_tuned_on"]["records"] == 12
    assert tuned.info["fine_tuned_on"]["validation_records"] == 0
    assert tuned.info["fine_tuned_on"]["platforms"] == [NEW_PLATFORM]
    assert tuned.info["fine_tuned_on"]["families"] == ["tiny"]
    assert tuned.info["pretrained"] == info


@pytest.mark.slow
def test_the_new_head_starts_as_the_copied_head_rescaled(pretrained: Predictor) -> None:
    records = toy_records()
    raws = [r.raw for r in records]
    new = _on_new_platform(records)
    copied = pretrained.predict_raw(raws, TOY_PLATFORM)
    # A learning rate so small that the network does not move: the initial new head.
    frozen = CPU.model_copy(update={"epochs": 1, "lr": 1e-12})
    start, _ = fine_tune(pretrained, new, settings=frozen)
    scale = start.info["fine_tuned_on"]["new_heads"][NEW_PLATFORM]["scale"]
    assert start.info["fine_tuned_on"]["new_heads"][NEW_PLATFORM]["copied_from"] == TOY_PLATFORM
    assert 2.5 < scale < 3.5  # the pre-trained head predicts the toy latency well
    np.testing.assert_allclose(start.predict_raw(raws, NEW_PLATFORM), scale * copied, rtol=1e-4)
    # Fine-tuning then does better than that rescaled copy.
    tuned, _ = fine_tune(pretrained, new, settings=CPU)
    measured = _measured(new)
    initial = mape(measured, start.predict_records(new))
    assert mape(measured, tuned.predict_records(new)) < 0.85 * initial


def test_the_new_head_is_copied_from_the_most_similar_platform() -> None:
    toy = toy_records()
    inverse = [  # a platform where bigger graphs are faster: nothing like the new one
        dataclasses.replace(r, platform=INVERSE_PLATFORM, latency_ms=1 / r.latency_ms) for r in toy
    ]
    pretrained = _pretrain(toy + inverse)
    assert pretrained.platforms == [INVERSE_PLATFORM, TOY_PLATFORM]
    tuned, _ = fine_tune(
        pretrained, _on_new_platform(toy), settings=CPU.model_copy(update={"epochs": 1})
    )
    assert tuned.platforms == [INVERSE_PLATFORM, TOY_PLATFORM, NEW_PLATFORM]
    assert tuned.info["fine_tuned_on"]["new_heads"][NEW_PLATFORM]["copied_from"] == TOY_PLATFORM


def test_the_schema_is_the_pretrained_one_and_unseen_ops_go_to_other(
    pretrained: Predictor,
) -> None:
    # An unseen family on the known platform: half the graphs, with a new operator.
    records = [
        dataclasses.replace(
            r, family="newfam", raw=dataclasses.replace(r.raw, op_types=("Conv", "Gelu"))
        )
        for r in toy_records()[::2]
    ]
    tuned, _ = fine_tune(pretrained, records, settings=CPU.model_copy(update={"epochs": 5}))
    assert tuned.schema == pretrained.schema
    assert tuned.schema.op_vocab == pretrained.schema.op_vocab == ("Conv", "Relu", "<other>")
    assert tuned.schema.node_scaler == pretrained.schema.node_scaler
    assert tuned.schema.graph_scaler == pretrained.schema.graph_scaler
    # Fitted afresh on these graphs, the scalers would differ: the test can fail.
    scratch, _ = from_scratch(records, settings=CPU.model_copy(update={"epochs": 1}))
    assert scratch.schema.graph_scaler != pretrained.schema.graph_scaler
    assert tuned.platforms == pretrained.platforms  # no new head for a known platform
    assert len(tuned.net.heads) == len(pretrained.net.heads)
    assert tuned.info["fine_tuned_on"]["families"] == ["newfam"]
    assert tuned.info["fine_tuned_on"]["new_heads"] == {}
    assert tuned.info["fine_tuned_on"]["unseen_ops"] == ["Gelu"]
    assert np.all(np.isfinite(tuned.predict_records(records)))


def test_the_fine_tuned_predictor_saves_and_loads(pretrained: Predictor, tmp_path: Path) -> None:
    records = toy_records()
    raws = [r.raw for r in records]
    tuned, _ = fine_tune(
        pretrained, _on_new_platform(records), settings=CPU.model_copy(update={"epochs": 5})
    )
    loaded = Predictor.load(tuned.save(tmp_path / "tuned"))
    assert loaded.platforms == [TOY_PLATFORM, NEW_PLATFORM]
    assert loaded.info == tuned.info
    assert loaded.schema == pretrained.schema
    for platform in (TOY_PLATFORM, NEW_PLATFORM):
        np.testing.assert_allclose(
            loaded.predict_raw(raws, platform), tuned.predict_raw(raws, platform), rtol=1e-6
        )


def test_enough_records_hold_out_a_validation_share(pretrained: Predictor) -> None:
    toy = toy_records()
    records = _on_new_platform(toy) + toy  # 24 records, 12 graphs on two platforms
    assert len(records) >= MIN_RECORDS_FOR_VALIDATION
    tuned, result = fine_tune(pretrained, records, settings=CPU.model_copy(update={"epochs": 5}))
    held = tuned.info["fine_tuned_on"]["validation_records"]
    assert held == 4  # 20 % of 12 graphs -> 2 graphs, each on both platforms
    assert tuned.info["fine_tuned_on"]["records"] == 20
    assert result.best_valid_mape is not None
    assert tuned.info["fine_tuned_on"]["platforms"] == [NEW_PLATFORM, TOY_PLATFORM]


def test_settings_policy() -> None:
    assert transfer_settings(MIN_RECORDS_FOR_VALIDATION - 1).valid_fraction == 0.0
    assert transfer_settings(MIN_RECORDS_FOR_VALIDATION) == FINE_TUNE_SETTINGS
    given = TrainSettings(epochs=7, lr=0.01, valid_fraction=0.3, device="cpu")
    small = transfer_settings(5, given)
    assert (small.epochs, small.lr, small.valid_fraction) == (7, 0.01, 0.0)
    assert transfer_settings(50, given) == given
    assert FINE_TUNE_SETTINGS.lr < TrainSettings().lr
    assert FINE_TUNE_SETTINGS.epochs < TrainSettings().epochs


def test_from_scratch_trains_on_k_records() -> None:
    records = _on_new_platform(toy_records())[:8]
    predictor, result = from_scratch(
        records, settings=CPU.model_copy(update={"epochs": 3}), config=CONFIG
    )
    assert predictor.platforms == [NEW_PLATFORM]
    assert predictor.info["trained_on"]["records"] == 8  # no validation share for k < 20
    assert result.best_valid_mape is None and result.best_epoch == 3
    assert predictor.net.config.hidden == 32
    assert np.all(predictor.predict_records(records) > 0)


def test_no_records_is_an_error(pretrained: Predictor) -> None:
    with pytest.raises(PredictorError, match="no records"):
        fine_tune(pretrained, [])
    with pytest.raises(PredictorError, match="no training records"):
        from_scratch([])


def test_fine_tuning_the_heads_only_leaves_the_backbone_as_pretrained(
    pretrained: Predictor,
) -> None:
    records = _on_new_platform(toy_records())
    settings = CPU.model_copy(update={"epochs": 5})
    tuned, _ = fine_tune(pretrained, records, settings=settings, part="heads")
    new = tuned.head(NEW_PLATFORM)
    before = dict(pretrained.net.named_parameters())
    for name, value in tuned.net.named_parameters():
        if name.startswith(f"heads.{new}."):
            continue
        assert torch.equal(value, before[name]), name  # backbone and the old head: as they were
        assert value.requires_grad  # unfrozen again for whoever trains the copy next
    copied = dict(tuned.net.heads[new].named_parameters())
    source = tuned.head(tuned.info["fine_tuned_on"]["new_heads"][NEW_PLATFORM]["copied_from"])
    start = dict(pretrained.net.heads[source].named_parameters())
    assert any(not torch.equal(copied[k], start[k]) for k in copied)  # the new head trained
    assert tuned.info["fine_tuned_on"]["part"] == "heads"
    full, _ = fine_tune(pretrained, records, settings=settings)
    changed = [
        name
        for name, value in full.net.named_parameters()
        if not name.startswith("heads.") and not torch.equal(value, before[name])
    ]
    assert changed  # part="all" does move the backbone


def test_with_new_heads_alone_scales_the_closest_head(pretrained: Predictor) -> None:
    records = _on_new_platform(toy_records())
    shifted, heads = with_new_heads(pretrained, records)
    ratio = shifted.predict_records(records) / pretrained.predict_records(toy_records())
    assert heads[NEW_PLATFORM]["copied_from"] == TOY_PLATFORM
    np.testing.assert_allclose(ratio, heads[NEW_PLATFORM]["scale"], rtol=1e-4)
    assert heads[NEW_PLATFORM]["scale"] == pytest.approx(3.0, rel=0.2)
    assert pretrained.platforms == [TOY_PLATFORM]
