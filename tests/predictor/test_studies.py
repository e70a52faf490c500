"""Multi-platform and transfer studies on toy data: the right splits, both modes scored."""

from __future__ import annotations

import dataclasses

import pytest

from nnlat.errors import NnlatError
from nnlat.predictor.multi_platform import multi_platform, multi_platform_markdown
from nnlat.predictor.training import TrainSettings
from nnlat.predictor.transfer_study import (
    transfer_markdown,
    unseen_family_curve,
    unseen_platform_curve,
)
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
    study = multi_platform(two_platforms(), settings=FAST, config=SMALL)
    assert {(s.platform, s.mode) for s in study.scores} == {
        (p, m) for p in (TOY_PLATFORM, OTHER) for m in ("multi-head", "per-platform")
    }
    tests = {s.test_records for s in study.scores}
    assert tests == {study.test_graphs} and 0 < study.test_graphs < 12
    assert set(study.predict_seconds) == {"multi-head", "per-platform"}
    assert "| fake-fake1.0-fp16-t1 |" in multi_platform_markdown(study, "cmd")


def test_multi_platform_needs_two_platforms() -> None:
    with pytest.raises(NnlatError, match="two platforms"):
        multi_platform(toy_records(), settings=FAST)


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
    text = "\n".join(transfer_markdown(family + platform, "cmd"))
    assert "## family:small" in text and "## platform:fake-fake1.0-fp16-t1" in text
    with pytest.raises(NnlatError, match="largest k"):
        unseen_platform_curve(records, [TOY_PLATFORM], OTHER, [12], settings=FAST, config=SMALL)
