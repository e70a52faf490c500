"""A real measurement: the tiny model on onnxruntime fp32, one thread (the reference)."""

from __future__ import annotations

import math

from nnlat.graph import graph_key, load
from nnlat.measure.backends import get_backend
from nnlat.measure.runner import measure
from nnlat.measure.types import PROTOCOL_VERSION, MeasureSpec
from nnlat.testing import tiny_model


def test_tiny_model_on_ort_fp32_one_thread() -> None:
    platform = get_backend("ort").platform(1, "fp32")
    spec = MeasureSpec(max_time_s=0.5, warmup_max_s=0.5)
    m = measure(tiny_model(), platform.name, spec)

    assert m.status == "ok", m.error
    assert m.platform == platform.name and m.platform.endswith("-fp32-t1")
    assert m.graph_hash == graph_key(load(tiny_model())).digest
    assert m.protocol_version == PROTOCOL_VERSION
    assert m.input_shapes == {"x": (1, 3, 32, 32)}
    s = m.stats
    assert s is not None
    # Plausible, not fast or slow: ordering and consistency, never wall-clock bounds.
    assert spec.min_runs <= s.n <= spec.max_runs
    assert 0 < s.min_ms <= s.median_ms <= s.p90_ms <= s.p99_ms <= s.max_ms
    assert s.min_ms <= s.mean_ms <= s.max_ms
    assert math.isfinite(s.cv) and s.cv >= 0
    assert 0 <= s.median_ci95_ms < s.max_ms
    assert m.stop_reason in ("ci", "max_runs", "max_time")
    if m.stop_reason == "ci":
        assert s.median_ci95_ms <= spec.target_rel_ci * s.median_ms
    assert m.compile_ms is not None and m.compile_ms > 0
    assert m.cold_ms is not None and m.cold_ms > 0
    assert m.peak_memory_bytes is None or m.peak_memory_bytes >= 0
    assert m.environment["onnxruntime"] == platform.runtime_version
    assert m.environment["inputs"] == "random(seed=0)"
