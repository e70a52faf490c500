"""COBRA's campaigns: resumable, crash-tolerant files; distinct networks; real torch timing."""

from __future__ import annotations

from pathlib import Path

import pytest

from nnlat.datasets.cobra import (
    append_records,
    measure_layers,
    measure_networks,
    read_records,
)
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.types import MeasureSpec

FAKE = "fake-fake1.0-fp32-t1"
FAST = MeasureSpec(warmup_min_runs=1, warmup_max_s=0.05, min_runs=3, max_time_s=0.05)


def test_a_member_cut_short_by_a_crash_is_dropped_and_the_file_repaired(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl.gz"
    append_records(path, [{"index": 0}, {"index": 1}])
    whole = path.stat().st_size
    append_records(path, [{"index": 2}])
    with path.open("r+b") as handle:  # a crash in the middle of the last write
        handle.truncate(path.stat().st_size - 5)
    assert [r["index"] for r in read_records(path)] == [0, 1]
    assert path.stat().st_size == whole
    append_records(path, [{"index": 2}])
    assert [r["index"] for r in read_records(path)] == [0, 1, 2]


def test_a_resumed_layer_campaign_measures_only_what_is_missing(tmp_path: Path) -> None:
    path, reg = tmp_path / "layers.jsonl.gz", backend_registry({"fake": FakeBackend})
    assert measure_layers(path, 3, FAKE, spec=FAST, backends=reg, batch=2) == 3
    first = read_records(path)
    assert measure_layers(path, 5, FAKE, spec=FAST, backends=reg) == 2
    records = read_records(path)
    assert [r["index"] for r in records] == [0, 1, 2, 3, 4]
    assert records[:3] == first
    assert all(r["status"] == "ok" and r["latency_ms"] > 0 for r in records)
    assert all(r["snippet"].startswith(("layer=", "x0=")) for r in records)


def test_networks_are_distinct_by_graph_hash_and_resume_after_the_last_draw(
    tmp_path: Path,
) -> None:
    path, reg = tmp_path / "networks.jsonl.gz", backend_registry({"fake": FakeBackend})
    assert measure_networks(path, 2, FAKE, spec=FAST, backends=reg) == 2
    assert measure_networks(path, 3, FAKE, spec=FAST, backends=reg) == 1
    records = read_records(path)
    assert len({r["graph_hash"] for r in records}) == 3
    assert [r["draw"] for r in records] == sorted(r["draw"] for r in records)
    assert all("class Net(nn.Module)" in r["source"] for r in records)


@pytest.mark.slow
def test_a_layer_is_timed_by_the_torch_backend_from_its_snippet(tmp_path: Path) -> None:
    from nnlat.measure.runner import available_platforms

    torch_platforms = [p.name for p in available_platforms() if p.runtime == "torch"]
    if not torch_platforms:
        pytest.skip("no torch platform on this host")
    path = tmp_path / "layers.jsonl.gz"
    measure_layers(path, 2, torch_platforms[0], spec=FAST)
    records = read_records(path)
    assert [r["status"] for r in records] == ["ok", "ok"]
    assert all(r["latency_ms"] > 0 for r in records)


def test_the_per_layer_pass_times_each_distinct_snippet_of_the_networks_once(
    tmp_path: Path,
) -> None:
    from nnlat.datasets.cobra import measure_snippets, snippet_key
    from nnlat.zoo.cobra.networks import code_graph

    reg = backend_registry({"fake": FakeBackend})
    networks, snippets = tmp_path / "networks.jsonl.gz", tmp_path / "snippets.jsonl.gz"
    measure_networks(networks, 2, FAKE, spec=FAST, backends=reg)
    first = measure_snippets(networks, snippets, FAKE, spec=FAST, backends=reg, max_networks=1)
    rest = measure_snippets(networks, snippets, FAKE, spec=FAST, backends=reg)
    records = read_records(snippets)
    keys = [r["key"] for r in records]
    assert len(keys) == len(set(keys)) == first + rest and first > 0
    wanted = {
        snippet_key(s.text)
        for r in read_records(networks)
        for s in code_graph(r["source"], r["config"]["resolution"]).snippets
    }
    assert set(keys) == wanted
    assert measure_snippets(networks, snippets, FAKE, spec=FAST, backends=reg) == 0
