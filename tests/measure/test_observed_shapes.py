"""Shapes inference leaves open are observed in one run: costed, never hashed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import nnlat
from nnlat.errors import NnlatWarning
from nnlat.graph import load, summarize
from nnlat.graph.hashing import graph_key
from nnlat.measure.observed_shapes import observe_shapes, open_tensors
from nnlat.testing import tiny_model
from nnlat.testing.hard_models import HARD_MODELS


def test_a_loop_s_outputs_get_their_shapes_and_costs() -> None:
    graph = load(HARD_MODELS["framed_loop"]())
    assert open_tensors(graph) == ["stacked", "framed", "projected", "y"]
    seen = observe_shapes(graph)
    assert open_tensors(seen) == []
    assert seen.tensors["projected"].shape == (1, 20, 128)  # 20 frames of the loop
    assert seen.observed["projected"].shape == (1, None, 128)  # what inference gave
    # The projection is costed now: 20 frames × 200 × 128 multiply-adds.
    assert summarize(graph).macs < 20 * 200 * 128 <= summarize(seen).macs


def test_observing_shapes_leaves_the_hash_alone() -> None:
    graph = load(HARD_MODELS["framed_loop"]())
    assert graph_key(observe_shapes(graph)) == graph_key(graph)


def test_a_graph_with_every_shape_known_is_not_run() -> None:
    graph = load(tiny_model())
    assert observe_shapes(graph) is graph


def test_a_run_that_fails_warns_and_keeps_the_inferred_graph() -> None:
    model = HARD_MODELS["framed_loop"]()
    rows = next(t for t in model.graph.initializer if t.name == "rows")
    rows.CopyFrom(numpy_helper.from_array(np.array([-1, 3, 200], dtype=np.int64), "rows"))
    graph = load(model)  # 20 frames do not make rows of 3
    with pytest.warns(NnlatWarning, match="likely too low"):
        assert observe_shapes(graph) is graph


def test_predicting_a_file_sees_the_observed_costs(tmp_path: Path) -> None:
    path = tmp_path / "framed.onnx"
    onnx.save(HARD_MODELS["framed_loop"](), path)
    from_file = nnlat.predict(path)
    from_graph = nnlat.predict(load(path))  # a stored graph is never run
    assert from_file.graph_hash == from_graph.graph_hash
    assert from_file.latency_ms != from_graph.latency_ms
