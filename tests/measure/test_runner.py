"""The measurement protocol, driven by the fake backend (no real timing involved)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from nnlat.graph import graph_key, load
from nnlat.measure.backends.fake import FakeBackend
from nnlat.measure.backends.registry import backend_registry
from nnlat.measure.inputs import InputDataError
from nnlat.measure.runner import available_platforms, measure, resolve_platform, time_runs
from nnlat.measure.types import Measurement, MeasureSpec
from nnlat.platform import Platform, UnknownPlatformError
from nnlat.registry import Registry
from nnlat.testing import tiny_model
from nnlat.zoo.realworld import custom_domain_op

FAST = MeasureSpec(max_time_s=0.5)
PLATFORM = "fake-fake1.0-fp32-t1"


def _registry(**options: object) -> Registry:
    registry: Registry = Registry("backend")
    registry.register("fake", lambda: FakeBackend(**options))  # type: ignore[arg-type]
    return registry


def _measure(spec: MeasureSpec = FAST, model: object = None, **options: object) -> Measurement:
    return measure(model or tiny_model(), PLATFORM, spec, backends=_registry(**options))


def test_noiseless_runs_stop_on_the_ci_target_after_min_runs() -> None:
    m = _measure()
    assert m.status == "ok" and m.error is None
    assert m.stop_reason == "ci"
    assert m.stats is not None
    assert m.stats.n == FAST.min_runs
    assert m.stats.median_ci95_ms == 0 and m.stats.cv == pytest.approx(0, abs=1e-9)
    assert m.stats.stable
    steady = m.stats.median_ms
    assert m.cold_ms == pytest.approx(3 * steady)  # the fake's cold factor
    assert m.warmup_settled is True
    assert m.compile_ms is not None and m.compile_ms >= 0


def test_latency_follows_the_flops() -> None:
    small = _measure(model=tiny_model(channels=8), base_ms=0.0)
    big = _measure(model=tiny_model(channels=64), base_ms=0.0)
    assert big.stats.median_ms / small.stats.median_ms == pytest.approx(8, rel=0.05)


def test_noisy_runs_need_more_samples_to_reach_the_target() -> None:
    m = _measure(MeasureSpec(max_time_s=60, target_rel_ci=0.01), noise=0.05)
    assert m.stop_reason == "ci"
    assert m.stats.n > FAST.min_runs
    assert m.stats.median_ci95_ms <= 0.01 * m.stats.median_ms


def test_unreachable_target_stops_at_the_run_budget() -> None:
    spec = MeasureSpec(max_runs=50, max_time_s=60, target_rel_ci=1e-6)
    m = _measure(spec, noise=0.2)
    assert m.stop_reason == "max_runs"
    assert m.stats.n == 50
    assert m.stats.median_ci95_ms > 1e-6 * m.stats.median_ms


def test_noisy_results_are_flagged_unstable() -> None:
    m = _measure(MeasureSpec(max_runs=60, unstable_cv=0.1), noise=0.5)
    assert m.stats.cv > 0.1
    assert not m.stats.stable


class _Clock:
    """A fake clock: each reading is ``step`` seconds after the previous one."""

    def __init__(self, step: float) -> None:
        self._ticks = itertools.count()
        self.step = step

    def __call__(self) -> float:
        return next(self._ticks) * self.step


def _prepared(**options: object):
    backend = FakeBackend(**options)  # type: ignore[arg-type]
    return backend.prepare(load(tiny_model()), backend.platform(1, "fp32"), MeasureSpec())


def test_time_budget_stops_timing() -> None:
    spec = MeasureSpec(min_runs=5, max_time_s=1.0, target_rel_ci=1e-9)
    timing = time_runs(_prepared(noise=0.2), {}, spec, clock=_Clock(0.1))
    assert timing.stop_reason == "max_time"
    # The clock is read once per run from min_runs on: ten readings reach one second.
    assert spec.min_runs < len(timing.samples.latencies_ms) < 20


def test_min_runs_are_taken_even_over_the_time_budget() -> None:
    spec = MeasureSpec(min_runs=10, max_time_s=0.01, target_rel_ci=1e-9)
    timing = time_runs(_prepared(noise=0.2), {}, spec, clock=_Clock(1.0))
    assert len(timing.samples.latencies_ms) == 10


def test_warmup_runs_until_settled() -> None:
    spec = MeasureSpec(warmup_min_runs=2)
    timing = time_runs(_prepared(cold_factor=50.0), {}, spec, clock=_Clock(0.0))
    warmup = timing.samples.warmup_ms
    assert timing.warmup_settled
    assert warmup[0] == max(warmup)  # the cold run comes first
    assert len(warmup) > 11  # a 50x cold start takes more than two windows to fade


def test_warmup_gives_up_at_its_time_limit() -> None:
    spec = MeasureSpec(warmup_min_runs=1, warmup_max_s=1.0)
    timing = time_runs(_prepared(noise=0.5), {}, spec, clock=_Clock(0.25))
    assert not timing.warmup_settled
    assert len(timing.samples.warmup_ms) <= 5


def test_failed_conversion_is_a_failed_measurement_with_the_message() -> None:
    m = _measure(fail_prepare="no kernel for Conv with 7 groups")
    assert m.status == "failed"
    assert "no kernel for Conv with 7 groups" in m.error
    assert m.stats is None and m.compile_ms is None
    assert m.graph_hash == graph_key(load(tiny_model())).digest


def test_failed_run_is_a_failed_measurement_that_keeps_the_compile_time() -> None:
    m = _measure(fail_run="out of memory")
    assert m.status == "failed" and "run failed" in m.error and "out of memory" in m.error
    assert m.compile_ms is not None


def test_unsupported_operator_is_a_failed_measurement() -> None:
    m = _measure(FAST.model_copy(update={"batch_size": 2}), model=custom_domain_op())
    assert m.status == "failed"
    assert "my.custom:FancyActivation" in m.error


def test_unavailable_backend_gives_an_unsupported_measurement() -> None:
    m = _measure(unavailable="the fake runtime is not installed")
    assert m.status == "unsupported"
    assert m.error == "the fake runtime is not installed"
    assert m.platform == PLATFORM


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("not a platform", "is not a platform name"),
        ("fake-tvm0.1-fp32-t1", "no backend runs 'tvm'"),
        ("xeon-fake1.0-fp32-t1", "not a platform of this host"),
        ("fake-fake2.0-fp32-t1", "not a platform of this host"),
        ("fake-fake1.0-fp64-t1", "not fp64"),
        ("fake-fake1.0-fp32-t4096", "4096 threads"),
    ],
)
def test_unknown_platforms_raise_listing_the_available_ones(name: str, message: str) -> None:
    with pytest.raises(UnknownPlatformError, match=message) as info:
        measure(tiny_model(), name, FAST, backends=_registry())
    if "platform name" not in message:
        assert "available on this host: fake-fake1.0-fp32-t1" in str(info.value)


def test_platform_objects_and_default_threads_resolve() -> None:
    backend, platform, name = resolve_platform(
        Platform(hardware="fake", runtime="fake", runtime_version="1.0.3", dtype="int8"),
        _registry(),
    )
    assert backend.name == "fake" and platform is not None and platform.threads is None
    assert name == "fake-fake1.0-int8"


@pytest.mark.slow
def test_available_platforms_of_a_registry() -> None:
    names = [p.name for p in available_platforms(_registry())]
    assert names == ["fake-fake1.0-fp32-t1", "fake-fake1.0-fp16-t1", "fake-fake1.0-int8-t1"]
    assert available_platforms(_registry(unavailable="no")) == []
    real = available_platforms(backend_registry())
    assert any(p.runtime == "ort" and p.threads == 1 and p.dtype == "fp32" for p in real)


def test_user_inputs(tmp_path: Path) -> None:
    good = {"x": np.ones((1, 3, 32, 32), np.float32)}
    m = measure(tiny_model(), PLATFORM, FAST, inputs=good, backends=_registry())
    assert m.status == "ok" and m.environment["inputs"].startswith("user:")
    path = tmp_path / "bad.npz"
    np.savez(path, x=np.ones((1, 3, 8, 8), np.float32))
    with pytest.raises(InputDataError, match="expects"):
        measure(tiny_model(), PLATFORM, FAST, inputs=path, backends=_registry())


def test_spec_shapes_are_applied_and_recorded() -> None:
    m = _measure(FAST.model_copy(update={"batch_size": 4}))
    assert m.batch_size == 4
    assert m.input_shapes == {"x": (4, 3, 32, 32)}
    graph = load(tiny_model(), batch_size=4)
    assert m.graph_hash == graph_key(graph).digest


def test_measurement_round_trips_through_json() -> None:
    m = _measure(noise=0.1)
    again = Measurement.model_validate_json(m.model_dump_json())
    assert again == m
    assert m.environment["hardware_fingerprint"]
    assert m.environment["memory"] in ("rss_hwm_growth", "ru_maxrss_growth")
