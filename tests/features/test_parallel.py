"""Raw features in forked workers: the same arrays, in order, errors and warnings intact.

Also the machinery, :mod:`nnlat.forked`: ordering, the first failure, dead children,
early closing, warnings and torch threads in the children.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

from nnlat import forked
from nnlat.errors import NnlatError
from nnlat.features.parallel import MIN_PARALLEL, iter_raw_features, raw_features_many
from nnlat.features.raw import RawFeatures, raw_features
from nnlat.forked import iter_forked, map_forked
from nnlat.graph import Graph, load
from nnlat.predictor import api
from nnlat.testing import tiny_model
from nnlat.testing.records import toy_predictor
from nnlat.zoo.realworld import REALWORLD_BUILDERS

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="no fork on this platform")

LIGHT_MODELS = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


@functools.cache
def distinct_graphs() -> tuple[Graph, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dynamic dimensions set to defaults
        return (
            *(load(tiny_model(channels=c, side=s)) for c in (2, 4, 8) for s in (8, 16)),
            load(LIGHT_MODELS / "light_shufflenet.onnx"),
            load(REALWORLD_BUILDERS["if_subgraph"]()),
            load(REALWORLD_BUILDERS["custom_domain_op"]()),
        )


def many_graphs() -> list[Graph]:
    """Enough graphs for the worker path, distinct ones at irregular positions."""
    graphs = distinct_graphs()
    return [graphs[(i * 7) % len(graphs)] for i in range(MIN_PARALLEL + 9)]


def assert_same(ours: list[RawFeatures], expected: list[RawFeatures]) -> None:
    assert len(ours) == len(expected)
    for a, b in zip(ours, expected, strict=True):
        assert a.op_types == b.op_types
        for name in ("node_values", "edge_index", "graph_values", "kernel_ids"):
            x, y = getattr(a, name), getattr(b, name)
            assert x.dtype == y.dtype and x.shape == y.shape, name
            assert x.tobytes() == y.tobytes(), name  # bit for bit


def no_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any attempt to start workers fail."""

    def refuse(method: str | None = None) -> None:
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(forked.multiprocessing, "get_context", refuse)


def test_workers_give_the_in_process_features_in_order() -> None:
    graphs = many_graphs()
    expected = [raw_features(g) for g in graphs]
    assert_same(raw_features_many(graphs, workers=2), expected)
    assert_same(raw_features_many(graphs, workers=3), expected)
    assert_same(list(iter_raw_features(graphs, workers=2)), expected)


def test_small_batches_and_one_worker_stay_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    no_pool(monkeypatch)
    graphs = many_graphs()
    expected = [raw_features(g) for g in graphs]
    assert_same(raw_features_many(graphs[: MIN_PARALLEL - 1], workers=2), expected[:-10])
    assert_same(raw_features_many(graphs, workers=1), expected)
    assert raw_features_many([], workers=2) == []


def test_default_workers_follow_the_cpu_affinity() -> None:
    assert forked.default_workers() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failure_names_the_graph(workers: int) -> None:
    graphs: list[object] = list(many_graphs())
    graphs[66] = "not a graph"
    with pytest.raises(AttributeError) as info:
        raw_features_many(graphs, workers=workers)  # type: ignore[arg-type]
    assert info.value.__notes__ == [f"while processing graph 66 of {len(graphs)}: not a graph"]


def fail_at(index: int, item: int) -> int:
    if item == index:
        raise NnlatError(f"item {item} is bad")
    return item


class UnpicklableError(Exception):
    def __reduce__(self) -> tuple:
        raise TypeError("cannot pickle this")


def raise_unpicklable_in_a_child(item: int) -> int:
    if multiprocessing.current_process().daemon:
        raise UnpicklableError("local trouble")
    time.sleep(0.005)  # leave the child time to claim a chunk
    return item


def test_the_first_failure_in_order_propagates_with_its_type() -> None:
    items = list(range(100))
    items[80] = 70  # fails too, after 70
    with pytest.raises(NnlatError, match="item 70 is bad") as info:
        map_forked(functools.partial(fail_at, 70), items, workers=2, min_items=1)
    assert info.value.__notes__ == ["while processing item 70 of 100: int"]
    # Its traceback: its own when this process computed it, else the child's as its cause.
    assert "in fail_at" in "".join(traceback.format_exception(info.value))
    with pytest.raises(RuntimeError, match="UnpicklableError: local trouble"):
        map_forked(raise_unpicklable_in_a_child, items, workers=2, min_items=1)


def warn_and_count_threads(item: int) -> tuple[bool, int]:
    warnings.warn(f"warned for {item}", UserWarning, stacklevel=1)
    in_child = multiprocessing.current_process().daemon
    if not in_child:
        time.sleep(0.005)  # leave the child time to claim chunks
    return in_child, torch.get_num_threads()


def test_warnings_come_back_and_workers_run_torch_on_one_thread() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = map_forked(warn_and_count_threads, list(range(20)), workers=2)
    assert {threads for in_child, threads in found if in_child} == {1}
    assert sorted(str(w.message) for w in caught) == sorted(f"warned for {i}" for i in range(20))


@pytest.mark.slow
def test_predict_many_in_workers_equals_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    trained, records = toy_predictor()
    platform = records[0].platform
    models = [g.onnx_bytes for g in distinct_graphs()] + [
        str(LIGHT_MODELS / "light_shufflenet.onnx")
    ]
    monkeypatch.setattr(api, "MIN_PARALLEL_MODELS", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unseen operators
        forked = api.predict_many(models, platform, predictor=trained, workers=2)
        alone = api.predict_many(models, platform, predictor=trained, workers=1)
    assert [p.model_copy(update={"latency_ms": 0}) for p in forked] == [
        p.model_copy(update={"latency_ms": 0}) for p in alone
    ]
    np.testing.assert_allclose(  # torch's thread count may change the last bits
        [p.latency_ms for p in forked], [p.latency_ms for p in alone], rtol=1e-5
    )
    with pytest.warns(match="operators never seen in training"):
        api.predict_many(models, platform, predictor=trained, workers=2)
    with pytest.raises(NnlatError) as info:
        api.predict_many([*models[:3], b"not onnx"], platform, predictor=trained, workers=2)
    assert info.value.__notes__ == ["while processing model 3 of 4: 8 bytes"]


def die_in_a_child(item: int) -> int:
    if multiprocessing.current_process().daemon:
        os._exit(3)
    time.sleep(0.005)  # leave the child time to claim a chunk
    return item


def test_a_child_that_dies_is_an_error_not_a_hang() -> None:
    with pytest.raises(RuntimeError, match=r"worker process ended .*exit codes \[3\]"):
        map_forked(die_in_a_child, list(range(100)), workers=2, min_items=1)


def slow_str(item: int) -> str:
    time.sleep(0.002)
    return str(item)


def test_closing_the_iterator_early_ends_the_children() -> None:
    results = iter_forked(slow_str, list(range(1000)), workers=3)
    assert next(results) == "0"
    assert len(multiprocessing.active_children()) == 2
    results.close()
    assert multiprocessing.active_children() == []


def test_the_childrens_result_files_are_gone_after_every_kind_of_end(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(forked, "_spool_parent", lambda: str(tmp_path))
    assert map_forked(slow_str, list(range(100)), workers=2) == [str(i) for i in range(100)]
    with pytest.raises(NnlatError):
        map_forked(functools.partial(fail_at, 70), list(range(100)), workers=2)
    results = iter_forked(slow_str, list(range(1000)), workers=2)
    next(results)
    assert len(list(tmp_path.iterdir())) == 1  # this call's, while it runs
    results.close()
    assert list(tmp_path.iterdir()) == []


def computed_where(item: int) -> tuple[int, bool]:
    in_child = multiprocessing.current_process().daemon
    if not in_child:
        time.sleep(0.005)  # leave the child time to claim chunks
    return item, in_child


def test_results_come_through_the_pipe_where_the_spool_has_no_room(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def full(self: Path, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(forked, "_spool_parent", lambda: str(tmp_path))
    monkeypatch.setattr(Path, "write_bytes", full)  # the children inherit it
    found = map_forked(computed_where, list(range(100)), workers=2)
    assert [item for item, _ in found] == list(range(100))
    assert any(in_child for _, in_child in found)
    assert list(tmp_path.iterdir()) == []


def test_predict_graphs_equals_features_then_network() -> None:
    trained, records = toy_predictor()
    graphs = many_graphs()
    expected = trained.predict_raw([raw_features(g) for g in graphs], records[0].platform)
    for workers in (1, 2):
        threads = torch.get_num_threads()
        got = trained.predict_graphs(graphs, records[0].platform, workers=workers)
        np.testing.assert_allclose(got, expected, rtol=1e-6)
        assert torch.get_num_threads() == threads  # restored
