"""Multi-platform and transfer studies on toy data: the right splits, both modes scored."""

from __future__ import annotations

import dataclasses

import pytest

from nnlat.errors import NnlatError
from nnlat.predictor.training import TrainSettings
from nnlat.studies import multi_platform, transfer
from nnlat.studies.transfer import unseen_family_curve, unseen_platform_curve
from nnlat.testing.records import TOY_PLATFORM, toy_records

FAST = TrainSettings(epochs=2, device="cpu")
SMALL = {"hidden": 16, "layers": 2}
OTHER = "fake-fake1.0-fp16-t1"


def two_platforms() -> list:  # type: ignore[type-arg]
    records = toy_records()
    return records + [
        dataclasses.replace(r, platform=OTHER, latency_ms=r.latency_ms / 2) for r in records
    ]


def test_multi_platform_scores_both_modes_on_the_same_test_graphs() -> None:
    config = multi_platform.MultiPlatformConfig(settings=FAST, config=SMALL, command="cmd")
    study = multi_platform.run(config, two_platforms())
    assert {(s.platform, s.mode) for s in study.rows} == {
        (p, m) for p in (TOY_PLATFORM, OTHER) for m in ("multi-head", "per-platform")
    }
    graphs = {s.test_graphs for s in study.rows}
    assert {s.test_records for s in study.rows} == graphs and 0 < min(graphs) < 12
    assert "| fake-fake1.0-fp16-t1 |" in multi_platform.render(study)


def test_multi_platform_needs_two_platforms() -> None:
    with pytest.raises(NnlatError, match="two platforms"):
        multi_platform.run(multi_platform.MultiPlatformConfig(settings=FAST), toy_records())


@pytest.mark.slow
def test_transfer_curves_cover_every_k_and_mode() -> None:
    records = [
        dataclasses.replace(r, family="small" if r.raw.graph_values[1] < 2e5 else "large")
        for r in two_platforms()
    ]
    family = unseen_family_curve(
        records, TOY_PLATFORM, "small", [2, 4], settings=FAST, config=SMALL
    )
    platform = unseen_platform_curve(
        records, [TOY_PLATFORM], OTHER, [2, 4], settings=FAST, config=SMALL
    )
    for points in (family, platform):
        assert {(p.k, p.mode) for p in points} == {
            (k, m) for k in (2, 4) for m in ("pre-trained", "from-scratch")
        }
    assert platform[0].test_records == 12 - 4
    config = transfer.TransferConfig(TOY_PLATFORM, command="cmd")
    text = transfer.render(transfer.Results(config, family + platform))
    assert "## family:small" in text and "## platform:fake-fake1.0-fp16-t1" in text
    with pytest.raises(NnlatError, match="unseen family"):
        transfer.run(config, records)
    with pytest.raises(NnlatError, match="largest k"):
        unseen_platform_curve(records, [TOY_PLATFORM], OTHER, [12], settings=FAST, config=SMALL)
