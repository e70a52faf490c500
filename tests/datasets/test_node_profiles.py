"""The profile backfill: stored onnxruntime results get per-node times without being
timed again, resumably; training records then carry each node's share."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nnlat.datasets.node_profiles import profile_stored, profiling_platform
from nnlat.datasets.training import cache_path, load_records
from nnlat.errors import NnlatError
from nnlat.graph import graph_key, load
from nnlat.measure.runner import measure, reference_platform
from nnlat.measure.types import MeasureSpec
from nnlat.store import Store
from nnlat.testing import tiny_model

UNPROFILED = MeasureSpec(min_runs=3, max_time_s=0.05, warmup_max_s=0.05, profile_runs=0)


def _store_with_one_result(tmp_path: Path) -> tuple[Store, str]:
    store = Store.open(f"sqlite:///{tmp_path}/nnlat.db")
    graph = load(tiny_model())
    platform = reference_platform()
    store.upsert_model(graph, family="tiny")
    store.upsert_platform(platform)
    result = measure(graph, platform, UNPROFILED)
    assert result.status == "ok" and result.node_profile is None
    store.add_measurement(result)
    return store, platform.name


def test_backfill_profiles_once_and_fills_the_feature_cache(tmp_path: Path) -> None:
    store, platform = _store_with_one_result(tmp_path)
    before = store.list_measurements(platform)[0]
    cache = tmp_path / "features"
    report = profile_stored(store, platform, runs=2, cache_dir=cache)
    assert (report.profiled, report.failed, report.skipped) == (1, 0, 0)
    after = store.list_measurements(platform)[0]
    assert after.node_profile is not None and after.node_profile.runs == 2
    assert after.stats == before.stats  # the latency is not timed again
    digest = graph_key(load(tiny_model())).digest
    assert cache_path(cache, digest, dict(after.input_shapes)).exists()

    again = profile_stored(store, platform, runs=2)
    assert (again.profiled, again.skipped) == (0, 1)

    record = load_records(store, [platform], cache_dir=cache)[0]
    assert record.node_shares is not None and len(record.node_shares) == 2
    assert 0 < np.nansum(record.node_shares) <= 1 + 1e-9


def test_only_this_hosts_onnxruntime_results_can_be_profiled() -> None:
    with pytest.raises(NnlatError, match="only onnxruntime"):
        profiling_platform("epyc-openvino2026.4-fp32-t1")
    with pytest.raises(NnlatError, match="profile it on its own hardware"):
        profiling_platform("elsewhere-ort1.31-fp32-t1")
    assert profiling_platform(reference_platform().name) == reference_platform()
