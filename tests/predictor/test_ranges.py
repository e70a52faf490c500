"""A prediction says where the model lies outside the predictor's training graphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from nnlat.errors import NnlatWarning
from nnlat.predictor.api import predict
from nnlat.predictor.predictor import Predictor
from nnlat.predictor.ranges import RANGES_KEY
from nnlat.testing import tiny_model
from nnlat.testing.records import TOY_PLATFORM, toy_predictor


def test_training_keeps_the_ranges_and_a_larger_graph_is_flagged(tmp_path: Path) -> None:
    trained, _ = toy_predictor()
    ranges = trained.info[RANGES_KEY]
    assert 0 < ranges["flops"][0] < ranges["flops"][1]
    reloaded = Predictor.load(trained.save(tmp_path / "p"))
    assert reloaded.info[RANGES_KEY] == ranges

    inside = predict(tiny_model(channels=4, side=16), TOY_PLATFORM, predictor=reloaded)
    assert inside.outside_training == ()
    with pytest.warns(NnlatWarning, match="outside the training graphs"):
        large = predict(tiny_model(channels=64, side=128), TOY_PLATFORM, predictor=reloaded)
    assert [s for s in large.outside_training if s.startswith("FLOPs") and "at most" in s]
    assert not [s for s in large.outside_training if "operators" in s]  # the same ones


def test_a_predictor_saved_without_ranges_flags_nothing() -> None:
    trained, _ = toy_predictor()
    trained.info.pop(RANGES_KEY)
    large = predict(tiny_model(channels=64, side=128), TOY_PLATFORM, predictor=trained)
    assert large.outside_training == ()
