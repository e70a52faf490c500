"""Backfill: add onnxruntime's per-node profile to stored measurements, without re-timing.

Datasets measured before profiles existed (or with ``MeasureSpec.profile_runs = 0``) keep
their latencies; :func:`profile_stored` rebuilds each model (its zoo recipe, or its
stored ONNX), profiles it with this host's onnxruntime on the measurement's hardware,
threads and precision, and stores the profile on the measurement
(:meth:`~nnlat.store.Store.add_node_profile`). The runtime version may differ from the
timed platform's (the profile records its own): per-node *shares* of the profiled total
are what the predictor learns from, and they move less between versions than raw times.

It is resumable: a measurement that has a profile, or a note saying why profiling
failed, is skipped; each result is written in its own transaction. The graph rebuilt
for the profile also fills the raw-feature cache (``cache_dir``), so that training on
the profiled records does not export every model again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from nnlat.datasets.training import cache_path, cache_raw, graph_of
from nnlat.errors import NnlatError
from nnlat.measure.backends.onnxruntime import OrtBackend, profile_model
from nnlat.measure.environment import detect_hardware
from nnlat.measure.inputs import random_inputs
from nnlat.measure.node_profile import attribute
from nnlat.measure.runner import pinned_cpus
from nnlat.measure.types import Measurement, MeasureSpec, NodeProfile
from nnlat.platform import Platform, parse_platform_name
from nnlat.store import Store

MAX_NOTE_CHARS = 2000

# Called after each measurement: (done, to do in all, graph hash).
OnProfiled = Callable[[int, int, str], None]


@dataclass
class BackfillReport:
    """What a backfill did.

    Attributes:
        profiled: measurements given a profile now.
        failed: measurements given a note instead (profiling failed).
        skipped: measurements that had a profile or a note already.
        seconds: wall time.
    """

    profiled: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0


def profiling_platform(stored: str) -> Platform:
    """This host's onnxruntime platform that profiles the measurements of ``stored``.

    Same hardware, threads and precision; this host's onnxruntime version.

    Raises:
        NnlatError: ``stored`` is not an onnxruntime platform of this host's hardware.

    Example:
        >>> from nnlat.measure.runner import reference_platform
        >>> profiling_platform(reference_platform().name).threads
        1
    """
    parts = parse_platform_name(stored)
    if parts["runtime"] != "ort":
        raise NnlatError(f"{stored}: only onnxruntime measurements can be profiled")
    here = detect_hardware().hardware
    if parts["hardware"] != here:
        raise NnlatError(
            f"{stored} was measured on {parts['hardware']}, this host is {here}: "
            "profile it on its own hardware"
        )
    threads = parts["threads"]
    return OrtBackend().platform(threads if isinstance(threads, int) else None, str(parts["dtype"]))


def profile_measurement(
    store: Store,
    measurement: Measurement,
    platform: Platform,
    runs: int,
    cache_dir: Path | None = None,
) -> tuple[NodeProfile | None, str | None]:
    """(profile, None), or (None, why) when the model cannot be rebuilt or profiled; the
    rebuilt graph's raw features go to ``cache_dir`` if they are not there yet."""
    try:
        model = store.get_model(measurement.graph_hash)
        if model is None:
            raise NnlatError(f"model {measurement.graph_hash} is not in the store")
        shapes = {name: tuple(shape) for name, shape in measurement.input_shapes.items()}
        graph = graph_of(model, shapes)
        if cache_dir is not None and not cache_path(cache_dir, model.graph_hash, shapes).exists():
            cache_raw(cache_dir, model.graph_hash, shapes, graph)
        spec = MeasureSpec(batch_size=measurement.batch_size, input_shapes=shapes)
        data, _ = OrtBackend().model_bytes(graph, platform, spec)
        with pinned_cpus(platform.threads):
            profile = profile_model(data, platform.threads, random_inputs(graph, spec.seed), runs)
        times = [(t.name, t.op, t.ms) for t in profile.nodes]
        return profile.model_copy(update={"nodes": attribute(graph, times)}), None
    except Exception as exc:  # any failure is recorded, so a resumed backfill skips it
        text = f"profile failed: {type(exc).__name__}: {exc}"
        return None, text[:MAX_NOTE_CHARS]


def profile_stored(
    store: Store,
    platform: str,
    families: Sequence[str] | None = None,
    *,
    limit: int | None = None,
    runs: int = 3,
    cache_dir: Path | None = None,
    on_profiled: OnProfiled | None = None,
) -> BackfillReport:
    """Profile the stored ``ok`` measurements of ``platform`` that have no profile yet.

    Args:
        store: the database.
        platform: the stored platform (an onnxruntime platform of this host's hardware).
        families: only models of these families (default: all).
        limit: profile at most this many now.
        runs: profiled runs per model (after one warm-up run).
        cache_dir: the raw-feature cache to fill on the way (None: not filled).
        on_profiled: progress callback.

    Returns:
        Counts of profiled, failed and skipped measurements.

    Raises:
        NnlatError: ``platform`` cannot be profiled on this host.
    """
    host = profiling_platform(platform)
    start = time.perf_counter()
    found = [
        m
        for family in (families or [None])
        for m in store.list_measurements(platform=platform, family=family)
    ]
    todo = [m for m in found if m.node_profile is None and m.node_profile_note is None]
    report = BackfillReport(skipped=len(found) - len(todo))
    todo = todo[:limit] if limit is not None else todo
    for done, measurement in enumerate(todo, start=1):
        profile, note = profile_measurement(store, measurement, host, runs, cache_dir)
        store.add_node_profile(measurement, profile, note)
        if profile is not None:
            report.profiled += 1
        else:
            report.failed += 1
        if on_profiled is not None:
            on_profiled(done, len(todo), measurement.graph_hash)
    report.seconds = time.perf_counter() - start
    return report
