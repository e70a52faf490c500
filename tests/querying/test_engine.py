"""The query engine: cache hit, miss → measure → store, refresh, concurrency, bad input."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec
from nnlat.platform import UnknownPlatformError
from nnlat.querying import QueryEngine
from nnlat.store import Store
from nnlat.testing import tiny_model
from nnlat.zoo import get_family

PLATFORM = "fake-fake1.0-fp32-t1"


class CountingFake(FakeBackend):
    """The fake backend, counting how many models it prepared (= measurements)."""

    prepared = 0
    lock = threading.Lock()

    def prepare(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        with CountingFake.lock:
            CountingFake.prepared += 1
        return super().prepare(*args, **kwargs)


@pytest.fixture
def engine(tmp_path: Path) -> QueryEngine:
    CountingFake.prepared = 0
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    return QueryEngine(
        store, MeasureSpec(max_time_s=0.2), backends=backend_registry({"fake": CountingFake})
    )


def test_miss_then_hit(engine: QueryEngine) -> None:
    first = engine.query(tiny_model(), PLATFORM)
    second = engine.query(tiny_model(), PLATFORM)
    assert (first.cached, second.cached) == (False, True)
    assert first.measurement.status == "ok"
    assert second.measurement.stats == first.measurement.stats
    assert CountingFake.prepared == 1
    stats = engine.store.stats()
    assert (stats.models, stats.measurements, stats.lookup_hits, stats.lookup_misses) == (
        1,
        1,
        1,
        1,
    )


def test_a_file_is_hashed_once_until_it_changes(engine: QueryEngine, tmp_path: Path) -> None:
    import os

    import onnx

    path = tmp_path / "model.onnx"
    onnx.save(tiny_model(), path)
    first = engine.query(path, PLATFORM)
    again = engine.query(str(path), PLATFORM)
    assert (first.cached, again.cached) == (False, True)
    assert again.measurement.graph_hash == first.measurement.graph_hash
    # Same file, other batch size: another key, so a miss, not a stale memo answer.
    assert not engine.query(path, PLATFORM, batch_size=2).cached
    # Rewritten with another model: the remembered hash must not be used.
    onnx.save(tiny_model(channels=4), path)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    changed = engine.query(path, PLATFORM)
    assert not changed.cached
    assert changed.measurement.graph_hash != first.measurement.graph_hash
    assert CountingFake.prepared == 3


def test_batch_size_and_shapes_are_part_of_the_key(engine: QueryEngine) -> None:
    engine.query(tiny_model(), PLATFORM)
    assert not engine.query(tiny_model(), PLATFORM, batch_size=2).cached
    assert not engine.query(tiny_model(), PLATFORM, input_shapes={"x": (1, 3, 16, 16)}).cached
    assert engine.query(tiny_model(), PLATFORM, batch_size=2).cached


def test_refresh_measures_again_and_replaces(engine: QueryEngine) -> None:
    engine.query(tiny_model(), PLATFORM)
    again = engine.query(tiny_model(), PLATFORM, refresh=True)
    assert not again.cached and CountingFake.prepared == 2
    assert engine.store.stats().measurements == 1


def test_concurrent_identical_queries_measure_once(engine: QueryEngine) -> None:
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(engine.query(tiny_model(), PLATFORM)))
        for _ in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert CountingFake.prepared == 1
    assert sorted(r.cached for r in results) == [False] + [True] * 5


def test_failures_are_results_and_are_stored(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    failing = backend_registry({"fake": lambda: FakeBackend(fail_prepare="no kernel for Conv")})
    result = QueryEngine(store, MeasureSpec(max_time_s=0.2), backends=failing).query(
        tiny_model(), PLATFORM
    )
    assert result.measurement.status == "failed"
    assert "no kernel for Conv" in (result.measurement.error or "")
    assert store.stats().measurements_by_status == {"failed": 1}


def test_unsupported_on_this_host_is_not_cached(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    absent = backend_registry({"fake": lambda: FakeBackend(unavailable="no fake device here")})
    engine = QueryEngine(store, MeasureSpec(max_time_s=0.2), backends=absent)
    result = engine.query(tiny_model(), PLATFORM)
    assert result.measurement.status == "unsupported"
    assert store.stats().measurements == 0


def test_bad_platforms(engine: QueryEngine) -> None:
    with pytest.raises(UnknownPlatformError, match="not a platform name"):
        engine.query(tiny_model(), "bogus")
    with pytest.raises(UnknownPlatformError, match="platforms available on this host"):
        engine.query(tiny_model(), "fake-fake1.0-fp32-t64")
    assert engine.store.stats().measurements == 0


@pytest.mark.slow
def test_zoo_models_are_stored_with_their_recipe(engine: QueryEngine) -> None:
    family = get_family("nasbench201")
    model = family.model(family.canonical["nb201_all_conv3x3"])
    result = engine.query(model, PLATFORM)
    stored = engine.store.get_model(result.measurement.graph_hash)
    assert stored is not None and stored.family == "nasbench201"
    assert stored.zoo_spec == model.spec


def test_query_many(engine: QueryEngine) -> None:
    results = engine.query_many(
        [tiny_model(), tiny_model(channels=4), tiny_model()], PLATFORM, progress=False
    )
    assert [r.cached for r in results] == [False, False, True]
