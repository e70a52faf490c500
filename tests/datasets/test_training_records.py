"""Training records: where each comes from is decided once, when the store is read."""

from __future__ import annotations

import pytest

from nnlat.datasets import build_dataset
from nnlat.datasets.training import load_records, without_realworld
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.querying import QueryEngine
from nnlat.store import Store
from nnlat.testing.models import tiny_model

PLATFORM = "fake-fake1.0-fp32-t1"
SPEC = MeasureSpec(min_runs=3, max_time_s=0.05)


@pytest.mark.slow
def test_records_carry_their_source_and_real_world_names() -> None:
    store = Store.open("sqlite://")
    backends = backend_registry({"fake": FakeBackend})
    build_dataset(store, ["alexnet"], 2, [PLATFORM], spec=SPEC, backends=backends)
    engine = QueryEngine(store, SPEC, backends=backends)
    engine.query(tiny_model(channels=4), PLATFORM, family="realworld:ocr")  # the stored form
    engine.query(tiny_model(channels=8), PLATFORM, family="mine")
    records = load_records(store)
    assert sorted((r.source, r.family) for r in records) == [
        ("onnx", "mine"), ("real-world", "ocr"), ("zoo", "alexnet"), ("zoo", "alexnet"),
    ]  # fmt: skip
    assert {r.source for r in without_realworld(records)} == {"zoo", "onnx"}
