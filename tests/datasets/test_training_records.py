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


@pytest.mark.slow
def test_training_reads_one_memory_method_per_platform() -> None:
    store = Store.open("sqlite://")
    build_dataset(
        store,
        ["alexnet"],
        3,
        [PLATFORM],
        spec=SPEC,
        backends=backend_registry({"fake": FakeBackend}),
    )
    first, *others = store.list_measurements(platform=PLATFORM)
    assert all(m.environment["memory"] != "heap_freed_on_close" for m in others)
    heap = first.model_copy(
        update={
            "environment": {**first.environment, "memory": "heap_freed_on_close"},
            "peak_memory_bytes": 123_456,
        }
    )
    store.add_measurement(heap, replace=True)
    memory = {r.graph_hash: r.memory_bytes for r in load_records(store)}
    # The heap count wins; the resident-set figures of the same platform are not mixed in.
    assert memory == {first.graph_hash: 123_456.0, **{m.graph_hash: None for m in others}}
