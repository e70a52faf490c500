"""A deterministic fake backend for unit tests: latency from FLOPs, no real timing.

A run of a graph "takes" ``base_ms + GFLOPs * ms_per_gflop * DTYPE_SPEED[dtype] / threads``
milliseconds. The first (cold) run takes ``cold_factor`` times that and the excess halves
on each following run until it is under 0.1 % (then it is zero), so warm-up has
something to settle; ``noise`` adds
seeded Gaussian jitter (relative standard deviation). Nothing sleeps: the runner sees
the returned latencies, never the wall clock, so tests are fast and exact.

Like a real runtime it rejects operators outside the standard domains (a custom op
fails to "convert"), and ``fail_prepare`` / ``fail_run`` inject failures.

Example:
    >>> from nnlat.graph import load
    >>> from nnlat.measure.types import MeasureSpec
    >>> from nnlat.testing import tiny_model
    >>> backend = FakeBackend()
    >>> prepared = backend.prepare(load(tiny_model()), backend.platform(1, "fp32"), MeasureSpec())
    >>> round(prepared.run({}).latency_ms, 4)  # cold: 3 x (0.05 ms + 0.00047 GFLOP x 1 ms)
    0.1514
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from nnlat.graph.cost import graph_cost
from nnlat.measure.backends.base import Availability, RunResult, graph_for
from nnlat.measure.types import MeasureSpec
from nnlat.platform import Platform, UnknownPlatformError

DTYPE_SPEED = {"fp32": 1.0, "fp16": 0.5, "int8": 0.25}
STANDARD_DOMAINS = {"", "ai.onnx", "ai.onnx.ml", "com.microsoft"}


class FakePrepared:
    """A "compiled" graph whose runs return modelled latencies."""

    def __init__(
        self,
        latency_ms: float,
        output_shapes: list[tuple[int, ...]],
        *,
        threads: int | None,
        noise: float,
        cold_factor: float,
        seed: int,
        fail_run: str | None,
    ) -> None:
        self.latency_ms = latency_ms
        self.output_shapes = output_shapes
        self.threads = threads
        self.noise = noise
        self.cold_factor = cold_factor
        self.fail_run = fail_run
        self.runs = 0
        self._rng = np.random.default_rng(seed)

    def run(self, inputs: Mapping[str, np.ndarray]) -> RunResult:
        """The next modelled latency (no time passes)."""
        if self.fail_run:
            raise RuntimeError(self.fail_run)
        warm_excess = (self.cold_factor - 1.0) * 0.5**self.runs
        if warm_excess < 1e-3:  # warm: exactly the steady latency from here on
            warm_excess = 0.0
        jitter = max(-0.9, self.noise * float(self._rng.standard_normal())) if self.noise else 0.0
        self.runs += 1
        latency = self.latency_ms * (1.0 + warm_excess) * (1.0 + jitter)
        outputs = tuple(np.zeros(shape, np.float32) for shape in self.output_shapes)
        return RunResult(latency, outputs)

    def threads_in_use(self) -> int | None:
        """The platform's thread count."""
        return self.threads

    def close(self) -> None:
        """Nothing to release."""


class FakeBackend:
    """The fake runtime ``"fake"`` on the fake hardware ``"fake"``.

    Args:
        ms_per_gflop: modelled milliseconds per GFLOP at fp32 on one thread.
        base_ms: fixed per-run overhead in milliseconds.
        noise: relative standard deviation of the seeded jitter (0 = none).
        cold_factor: the first run takes this many times the steady latency.
        seed: seed of the jitter.
        fail_prepare: when set, ``prepare`` raises RuntimeError with this message.
        fail_run: when set, every run raises RuntimeError with this message.
        unavailable: when set, the backend reports itself unavailable for this reason.
    """

    name = "fake"
    dtypes = ("fp32", "fp16", "int8")
    runs_zoo_modules = False

    def __init__(
        self,
        *,
        ms_per_gflop: float = 1.0,
        base_ms: float = 0.05,
        noise: float = 0.0,
        cold_factor: float = 3.0,
        seed: int = 0,
        fail_prepare: str | None = None,
        fail_run: str | None = None,
        unavailable: str | None = None,
    ) -> None:
        self.ms_per_gflop = ms_per_gflop
        self.base_ms = base_ms
        self.noise = noise
        self.cold_factor = cold_factor
        self.seed = seed
        self.fail_prepare = fail_prepare
        self.fail_run = fail_run
        self.unavailable = unavailable

    def available(self) -> Availability:
        """Available unless constructed with ``unavailable``."""
        return Availability(self.unavailable is None, self.unavailable or "")

    def platforms(self) -> list[Platform]:
        """Every dtype on 1 thread."""
        return [self.platform(1, dtype) for dtype in self.dtypes] if self.available() else []

    def platform(self, threads: int | None, dtype: str) -> Platform:
        """``fake-fake1.0-DTYPE[-tN]``."""
        if dtype not in self.dtypes:
            raise UnknownPlatformError(f"the fake backend runs {self.dtypes}, not {dtype}")
        return Platform(
            hardware="fake", runtime="fake", runtime_version="1.0", dtype=dtype, threads=threads
        )

    def prepare(self, model: Any, platform: Platform, spec: MeasureSpec) -> FakePrepared:
        """Cost the graph; reject custom-domain operators like a real runtime would."""
        if self.fail_prepare:
            raise RuntimeError(self.fail_prepare)
        graph = graph_for(model, spec)
        for node in graph.nodes:
            if node.domain not in STANDARD_DOMAINS:
                raise RuntimeError(
                    f"fake runtime: no kernel for operator {node.domain}:{node.op_type}"
                )
        gflops = graph_cost(graph).flops / 1e9
        steady = self.base_ms + gflops * self.ms_per_gflop * DTYPE_SPEED[platform.dtype]
        steady /= platform.threads or 1
        shapes = [tuple(d or 1 for d in (s.shape or ())) for s in graph.outputs]
        return FakePrepared(
            steady,
            shapes,
            threads=platform.threads,
            noise=self.noise,
            cold_factor=self.cold_factor,
            seed=self.seed,
            fail_run=self.fail_run,
        )
