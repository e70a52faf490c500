"""The one place that decides: serve a latency from the database, or measure it.

``QueryEngine.query(model, platform)``: load and hash the model → look the cache key up
in the store → on a hit return the stored measurement; on a miss measure on this host,
store the model, platform and measurement (one transaction each), and return it.
Identical queries running at the same time in one process measure once: the second
waits on a per-key lock and then finds the first one's row.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from nnlat.graph.hashing import graph_key
from nnlat.graph.ir import Graph
from nnlat.graph.load import ModelSource
from nnlat.measure.backends.base import graph_for
from nnlat.measure.backends.registry import BackendFactory
from nnlat.measure.runner import measure, resolve_platform
from nnlat.measure.types import Measurement, MeasureSpec
from nnlat.platform import Platform, parse_platform_name
from nnlat.querying.storable import check_storable
from nnlat.registry import Registry
from nnlat.store import Store
from nnlat.zoo.family import ZooModel

CacheKey = tuple[str, str, int, tuple[tuple[str, tuple[int, ...]], ...]]
InputShapes = dict[str, tuple[int, ...]]
# (resolved path, size, mtime in ns, batch size, shape overrides)
FileKey = tuple[str, int, int, int, tuple[tuple[str, tuple[int, ...]], ...]]

# How many model files an engine remembers the hash of (oldest forgotten first).
MAX_REMEMBERED_FILES = 4096


class QueryResult(BaseModel):
    """The answer to a query.

    Attributes:
        cached: True when served from the database without measuring.
        measurement: the stored or new measurement (``status`` says whether it ran).
    """

    model_config = ConfigDict(frozen=True)

    cached: bool
    measurement: Measurement

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``nnlat query --json``."""
        m = self.measurement
        stats = m.stats
        latency = None
        if stats is not None:
            latency = {
                "median": stats.median_ms,
                "mean": stats.mean_ms,
                "p90": stats.p90_ms,
                "p99": stats.p99_ms,
                "std": stats.std_ms,
                "min": stats.min_ms,
                "n": stats.n,
                "cv": stats.cv,
                "median_ci95": stats.median_ci95_ms,
            }
        return {
            "graph_hash": m.graph_hash,
            "platform": m.platform,
            "batch_size": m.batch_size,
            "input_shapes": {k: list(v) for k, v in m.input_shapes.items()},
            "cached": self.cached,
            "status": m.status,
            "error": m.error,
            "latency_ms": latency,
            "stable": None if stats is None else stats.stable,
            "peak_memory_bytes": m.peak_memory_bytes,
            "memory_method": m.environment.get("memory"),
            "energy_j": m.energy_j,
            "energy_note": m.energy_note,
            "deterministic": m.deterministic,
            "compile_ms": m.compile_ms,
            "cold_ms": m.cold_ms,
            "protocol_version": m.protocol_version,
            "source": m.source,
        }


class QueryEngine:
    """Cache-or-measure over one store.

    Args:
        store: where measurements are looked up and kept.
        spec: the measurement protocol settings (batch size and shapes come per query).
        backends: the backend registry; by default the real backends.

    Example:
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> from nnlat.testing import tiny_model
        >>> engine = QueryEngine(Store.open("sqlite://"), MeasureSpec(max_time_s=0.2),
        ...                      backends=backend_registry({"fake": FakeBackend}))
        >>> [engine.query(tiny_model(), "fake-fake1.0-fp32-t1").cached for _ in range(2)]
        [False, True]
    """

    def __init__(
        self,
        store: Store,
        spec: MeasureSpec | None = None,
        *,
        backends: Registry[BackendFactory] | None = None,
    ) -> None:
        self.store = store
        self.spec = spec or MeasureSpec()
        self.backends = backends
        self._guard = threading.Lock()
        self._locks: dict[CacheKey, threading.Lock] = {}
        self._identities: dict[FileKey, tuple[str, InputShapes]] = {}

    def _lock(self, key: CacheKey) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def query(
        self,
        model: ModelSource | ZooModel | Any,
        platform: Platform | str,
        batch_size: int = 1,
        input_shapes: Mapping[str, Sequence[int]] | None = None,
        *,
        refresh: bool = False,
        inputs: Mapping[str, np.ndarray] | str | Path | None = None,
        family: str | None = None,
    ) -> QueryResult:
        """The latency of ``model`` on ``platform``: from the database, or measured now.

        Args:
            model: anything :func:`nnlat.graph.load` accepts, or a zoo model.
            platform: a platform name such as ``epyc-ort1.31-fp32-t1``.
            batch_size: dimension 0 of every input.
            input_shapes: input name → shape overrides (fix dynamic dimensions).
            refresh: measure again even on a hit, replacing the stored measurement.
            inputs: real input arrays (or an .npz path) instead of random data.
            family: a family label stored with the model.

        Raises:
            UnknownPlatformError: the platform name is malformed, or it must be measured
                and is not a platform of this host.
            NnlatError: the model or the shapes are bad.
        """
        name = platform if isinstance(platform, str) else platform.name
        parse_platform_name(name)  # a malformed name is an error even on a cache hit
        spec = self.spec.model_copy(
            update={
                "batch_size": batch_size,
                "input_shapes": {
                    k: tuple(int(d) for d in v) for k, v in (input_shapes or {}).items()
                },
            }
        )
        graph, digest, shapes = self._identify(model, spec)
        key: CacheKey = (digest, name, batch_size, tuple(sorted(shapes.items())))
        with self._lock(key):
            if not refresh:
                found = self.store.find_measurement(digest, name, batch_size, shapes)
                if found is not None:
                    self.store.record_lookup(hit=True)
                    return QueryResult(cached=True, measurement=found)
            self.store.record_lookup(hit=False)
            graph = graph or graph_for(model, spec)
            _, resolved, _ = resolve_platform(name, self.backends)  # fail before storing
            # A zoo model goes as itself (the torch backend runs its own module); anything
            # else goes as the graph already loaded, so it is not loaded twice.
            subject = model if isinstance(model, ZooModel) else graph
            measurement = measure(subject, name, spec, inputs=inputs, backends=self.backends)
            if measurement.status == "unsupported":
                # This host lacks the runtime; another host (or a later install) may not:
                # nothing is cached.
                return QueryResult(cached=False, measurement=measurement)
            zoo = model if isinstance(model, ZooModel) else None
            check_storable(graph)
            self.store.upsert_model(
                graph,
                family=family or (zoo.family if zoo else None),
                zoo_spec=zoo.spec if zoo else None,
            )
            self.store.upsert_platform(resolved or _platform_from_name(name))
            self.store.add_measurement(measurement, replace=refresh)
            return QueryResult(cached=False, measurement=measurement)

    def _identify(self, model: Any, spec: MeasureSpec) -> tuple[Graph | None, str, InputShapes]:
        """(graph, graph hash, input shapes) of ``model`` under ``spec``.

        A model file seen before by this engine, unchanged since (same size and
        modification time) and asked for with the same shapes, is not loaded again: its
        hash comes from a memo and the graph is None (loaded later only if it must be
        measured). Loading is most of a cache hit's time; the memo makes repeated
        queries of one file cost a database lookup.
        """
        memo_key = _file_key(model, spec)
        if memo_key is not None and memo_key in self._identities:
            digest, shapes = self._identities[memo_key]
            return None, digest, shapes
        graph = graph_for(model, spec)
        digest = graph_key(graph).digest
        shapes = {s.name: tuple(int(d) for d in s.shape or ()) for s in graph.inputs}
        if memo_key is not None:
            with self._guard:
                if len(self._identities) >= MAX_REMEMBERED_FILES:
                    self._identities.pop(next(iter(self._identities)))
                self._identities[memo_key] = (digest, shapes)
        return graph, digest, shapes

    def query_many(
        self,
        models: Iterable[Any],
        platform: Platform | str,
        batch_size: int = 1,
        *,
        progress: bool = True,
    ) -> list[QueryResult]:
        """Query every model in turn, with a progress bar on stderr.

        Example:
            >>> from nnlat.measure.backends.fake import FakeBackend
            >>> from nnlat.measure.backends.registry import backend_registry
            >>> from nnlat.testing import tiny_model
            >>> engine = QueryEngine(Store.open("sqlite://"), MeasureSpec(max_time_s=0.2),
            ...                      backends=backend_registry({"fake": FakeBackend}))
            >>> rs = engine.query_many([tiny_model(), tiny_model(channels=4)],
            ...                        "fake-fake1.0-fp32-t1", progress=False)
            >>> [r.measurement.status for r in rs]
            ['ok', 'ok']
        """
        from rich.progress import track

        items = list(models)
        iterator = track(items, description="querying", disable=not progress, transient=True)
        return [self.query(m, platform, batch_size) for m in iterator]


def _file_key(model: Any, spec: MeasureSpec) -> FileKey | None:
    """The memo key of a model file, or None for anything that is not a readable path."""
    if not isinstance(model, str | Path):
        return None
    try:
        path = Path(model).resolve()
        stat = path.stat()
    except OSError:
        return None  # the loader reports a missing file properly
    overrides = tuple(sorted(spec.input_shapes.items()))
    return (str(path), stat.st_size, stat.st_mtime_ns, spec.batch_size, overrides)


def _platform_from_name(name: str) -> Platform:
    """A Platform record for a name not available on this host (an unsupported result)."""
    parts = parse_platform_name(name)
    return Platform(
        hardware=str(parts["hardware"]),
        runtime=str(parts["runtime"]),
        runtime_version=str(parts["version"]),
        dtype=str(parts["dtype"]),
        threads=parts["threads"] if isinstance(parts["threads"], int) else None,
    )
