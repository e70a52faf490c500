"""A prediction names the operators whose work the input values decide."""

from __future__ import annotations

import warnings

import pytest

from nnlat.errors import NnlatWarning
from nnlat.predictor.api import predict, predict_heads
from nnlat.testing import tiny_model
from nnlat.testing.hard_models import range_loop, vad_lstm_if
from nnlat.testing.records import TOY_PLATFORM, toy_predictor


def test_a_loop_and_an_if_are_named_with_a_warning() -> None:
    trained, _ = toy_predictor()
    with pytest.warns(NnlatWarning, match="input values the prediction cannot see: Loop"):
        looped = predict(range_loop(), TOY_PLATFORM, predictor=trained)
    assert looped.data_dependent == ("Loop",)
    branched = predict_heads(vad_lstm_if(), predictor=trained)
    assert [p.data_dependent for p in branched] == [("If",)]


def test_a_plain_network_is_not_flagged() -> None:
    trained, _ = toy_predictor()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NnlatWarning)
        plain = predict(tiny_model(channels=4, side=16), TOY_PLATFORM, predictor=trained)
    assert plain.data_dependent == ()
