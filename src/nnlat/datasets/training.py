"""Training data for predictors: the store's measurements joined with graph features.

Each ``ok`` measurement becomes a :class:`LatencyRecord`: the model's graph hash and
family, the platform, batch size, median latency, memory and energy where measured
(:func:`memory_bytes`), each node's share of the profiled time where the measurement
has a per-node profile, and the raw features of the graph as measured. A zoo model is
regenerated from its stored recipe, any other model is loaded from its stored ONNX (or
its kept TFLite file). Raw features are cached on disk by graph hash and input shapes
(one small ``.npz`` each, under the feature schema version), so a second training run
reads them instead of exporting thousands of models again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import platformdirs

from nnlat.errors import NnlatError
from nnlat.features.raw import RawFeatures, raw_features
from nnlat.features.records import IMPORTED, ONNX, REAL_WORLD, ZOO, LatencyRecord
from nnlat.features.schema import FEATURE_SCHEMA_VERSION
from nnlat.graph.ir import Graph
from nnlat.graph.load import load
from nnlat.measure.node_profile import node_shares
from nnlat.measure.types import Measurement
from nnlat.store import Store
from nnlat.store.keys import canonical_input_shapes, input_shapes_hash
from nnlat.store.records import StoredModel
from nnlat.zoo.registry import get_family

# Called after each record: (records done, records in all).
OnRecord = Callable[[int, int], None]

# The stored form of those tags, kept as it was: a real-world model's family is
# ``realworld:<name>`` and an imported measurement's source ``imported:<file>``. Only
# :func:`record_source` reads them (and scripts/measure_realworld.py writes the first).
REALWORLD_PREFIX = "realworld:"
IMPORTED_PREFIX = "imported:"


def record_source(model: StoredModel, measurement: Measurement) -> tuple[str, str]:
    """A stored measurement's (source, family): the one place that reads the stored tags.

    A real-world model is stored with the family ``realworld:<name>``; its record gets
    the family ``<name>`` and the source :data:`REAL_WORLD`. An imported measurement's
    stored source is ``imported:<file>``.
    """
    family = model.family or "unknown"
    if family.startswith(REALWORLD_PREFIX):
        return REAL_WORLD, family.removeprefix(REALWORLD_PREFIX)
    if measurement.source.startswith(IMPORTED_PREFIX):
        return IMPORTED, family
    return (ZOO if model.zoo_spec is not None else ONNX), family


def memory_bytes(measurement: Measurement) -> float | None:
    """A measurement's memory target: SRAM used on an NPU (Vela's estimate), else the
    peak working memory the backend measured; None when neither is known.

    Example:
        >>> from datetime import UTC, datetime
        >>> m = Measurement(graph_hash="h", platform="p", batch_size=1, input_shapes={},
        ...                 status="ok", created_at=datetime.now(UTC), peak_memory_bytes=4096)
        >>> memory_bytes(m)
        4096.0
    """
    if measurement.npu is not None:
        return float(measurement.npu.sram_used_bytes)
    if measurement.peak_memory_bytes is not None:
        return float(measurement.peak_memory_bytes)
    return None


# How memory was measured (``environment["memory"]``), most meaningful first. The methods'
# figures are not comparable (a heap count is not a resident-set growth), so training
# reads one per platform: the first of these that the platform's measurements have.
MEMORY_METHODS = (
    "npu_sram_used",
    "cuda_max_memory_allocated",
    "heap_freed_on_close",
    "rss_hwm_growth",
    "ru_maxrss_growth",
)


def memory_method(measurement: Measurement) -> str | None:
    """How a measurement's memory was measured; None when it does not say."""
    return (measurement.environment or {}).get("memory")


def memory_methods(measurements: Sequence[Measurement]) -> dict[str, str | None]:
    """Per platform, the memory method training reads (see :data:`MEMORY_METHODS`).

    Example:
        >>> from datetime import UTC, datetime
        >>> def m(method):
        ...     return Measurement(graph_hash="h", platform="p", batch_size=1,
        ...                        input_shapes={}, status="ok", created_at=datetime.now(UTC),
        ...                        environment={"memory": method})
        >>> memory_methods([m("rss_hwm_growth"), m("heap_freed_on_close")])
        {'p': 'heap_freed_on_close'}
    """
    rank = {method: i for i, method in enumerate(MEMORY_METHODS)}
    chosen: dict[str, str | None] = {}
    for measurement in measurements:
        method = memory_method(measurement)
        best = chosen.get(measurement.platform)
        if measurement.platform not in chosen or rank.get(method, len(rank)) < rank.get(
            best, len(rank)
        ):
            chosen[measurement.platform] = method
    return chosen


def default_cache_dir() -> Path:
    """Where raw features are cached: the user cache directory, per feature version."""
    root = Path(platformdirs.user_cache_dir("nnlat", appauthor=False))
    return root / "features" / f"v{FEATURE_SCHEMA_VERSION}"


def graph_of(model: StoredModel, input_shapes: dict[str, tuple[int, ...]]) -> Graph:
    """The graph of a stored model at ``input_shapes``: regenerated from its zoo recipe
    (exported as its family's source format: ONNX, or int8 TFLite), or loaded from its
    stored ONNX.

    Raises:
        NnlatError: the store kept neither a recipe nor the ONNX.
    """
    if model.onnx_bytes is not None:
        return load(model.onnx_bytes, input_shapes=input_shapes)
    if model.source_bytes is not None:  # a TFLite file kept as given
        return load(model.source_bytes, input_shapes=input_shapes)
    if model.zoo_spec is not None:
        zoo = get_family(model.zoo_spec["family"]).model(model.zoo_spec["config"])
        if zoo.definition.source_format == "tflite":
            return _tflite_zoo_graph(zoo.to_tflite(), input_shapes)
        return load(zoo.to_onnx(), input_shapes=input_shapes)
    raise NnlatError(f"model {model.graph_hash} has neither ONNX nor a zoo recipe in the store")


def _tflite_zoo_graph(flatbuffer: bytes, input_shapes: dict[str, tuple[int, ...]]) -> Graph:
    """The graph of a TFLite zoo model (PerfSAGE's spaces), checked against the measured
    shapes. It is loaded at its own shapes: the IR may name an input otherwise than the
    file does (``input_0`` for ``x``), so the measured names cannot be passed back.

    Raises:
        NnlatError: the model's input shapes are not the measured ones.
    """
    graph = load(flatbuffer)
    own = sorted(tuple(int(d) for d in spec.shape or ()) for spec in graph.inputs)
    if own != sorted(tuple(shape) for shape in input_shapes.values()):
        raise NnlatError(f"regenerated TFLite inputs {own} differ from the measured {input_shapes}")
    return graph


def cache_path(cache_dir: Path, graph_hash: str, shapes: dict[str, tuple[int, ...]]) -> Path:
    """Where the raw features of ``graph_hash`` at ``shapes`` are cached."""
    key = input_shapes_hash(canonical_input_shapes(shapes))[:12]
    return cache_dir / f"{graph_hash}-{key}.npz"


def cache_raw(
    cache_dir: Path, graph_hash: str, shapes: dict[str, tuple[int, ...]], graph: Graph
) -> RawFeatures:
    """Compute the raw features of ``graph`` (at ``shapes``) and write them to the cache.

    For code that has the graph at hand anyway (an importer building thousands), so
    that :func:`load_records` later reads the features instead of rebuilding the graph.
    """
    raw = raw_features(graph)
    save_raw(cache_path(cache_dir, graph_hash, shapes), raw)
    return raw


def save_raw(path: Path, raw: RawFeatures) -> None:
    """Write ``raw`` to the ``.npz`` file ``path`` (its folder made if need be), whole or
    not at all: readers never see half a file, and a stopped writer leaves none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")
    np.savez(tmp, **raw.to_arrays())
    os.replace(tmp, path)


def read_raw(path: Path) -> RawFeatures:
    """The raw features :func:`save_raw` wrote to ``path``."""
    with np.load(path) as arrays:
        return RawFeatures.from_arrays(dict(arrays))


def _cached_raw(
    model: StoredModel, measurement: Measurement, cache_dir: Path | None
) -> RawFeatures:
    shapes = dict(measurement.input_shapes)
    if cache_dir is None:
        return raw_features(graph_of(model, shapes))
    path = cache_path(cache_dir, measurement.graph_hash, shapes)
    if path.exists():
        return read_raw(path)
    return cache_raw(cache_dir, measurement.graph_hash, shapes, graph_of(model, shapes))


def _model(store: Store, graph_hash: str) -> StoredModel:
    model = store.get_model(graph_hash)
    if model is None:  # the store's foreign key makes this impossible; say so if not
        raise NnlatError(f"measurement of unknown model {graph_hash}")
    return model


def load_records(
    store: Store,
    platforms: Sequence[str] | None = None,
    families: Sequence[str] | None = None,
    *,
    cache_dir: Path | None = None,
    on_record: OnRecord | None = None,
    cached_only: bool = False,
    profiled_only: bool = False,
) -> list[LatencyRecord]:
    """Every ``ok`` measurement of the store (optionally filtered) as a training record.

    Args:
        store: the measurement database.
        platforms: only these platforms (default: all).
        families: only models of these families (default: all).
        cache_dir: the raw-feature cache; None disables caching.
        on_record: progress callback.
        cached_only: leave out the measurements whose features are not in ``cache_dir``
            yet, instead of rebuilding their graphs (a TFLite zoo model is exported again:
            seconds each); ``scripts/cache_features.py`` fills the cache in the background.
        profiled_only: leave out the measurements without a per-node profile, before
            their features are read or built.

    Returns:
        Records in the store's order (oldest measurement first). A record's memory is
        None where its measurement used another memory method than the platform's
        others (:func:`memory_methods`).

    Example:
        >>> from nnlat.datasets.campaign import build_dataset
        >>> from nnlat.measure.backends.fake import FakeBackend
        >>> from nnlat.measure.backends.registry import backend_registry
        >>> from nnlat.measure.types import MeasureSpec
        >>> store = Store.open("sqlite://")
        >>> _ = build_dataset(store, ["alexnet"], 2, ["fake-fake1.0-fp32-t1"],
        ...                   spec=MeasureSpec(min_runs=3, max_time_s=0.05),
        ...                   backends=backend_registry({"fake": FakeBackend}))
        >>> [(r.family, r.platform) for r in load_records(store)]
        [('alexnet', 'fake-fake1.0-fp32-t1'), ('alexnet', 'fake-fake1.0-fp32-t1')]
    """
    measurements = [
        m
        for platform in (platforms or [None])
        for family in (families or [None])
        for m in store.list_measurements(platform=platform, family=family)
    ]
    if profiled_only:
        measurements = [m for m in measurements if m.node_profile is not None]
    if cached_only and cache_dir is not None:
        measurements = [
            m
            for m in measurements
            if cache_path(cache_dir, m.graph_hash, dict(m.input_shapes)).exists()
        ]
    methods = memory_methods(measurements)
    records = []
    models: dict[str, StoredModel] = {}  # a model measured on several platforms: one read
    for done, measurement in enumerate(measurements, start=1):
        assert measurement.stats is not None  # "ok" measurements carry statistics
        digest = measurement.graph_hash
        model = models[digest] = models.get(digest) or _model(store, digest)
        raw = _cached_raw(model, measurement, cache_dir)
        source, family = record_source(model, measurement)
        records.append(
            LatencyRecord(
                graph_hash=measurement.graph_hash,
                family=family,
                platform=measurement.platform,
                batch_size=measurement.batch_size,
                latency_ms=measurement.stats.median_ms,
                raw=raw,
                source=source,
                memory_bytes=(
                    memory_bytes(measurement)
                    if memory_method(measurement) == methods[measurement.platform]
                    else None
                ),
                energy_j=measurement.energy_j,
                node_shares=_shares(measurement, len(raw.op_types)),
                hardware=(measurement.environment or {}).get("hardware_fingerprint"),
            )
        )
        if on_record is not None:
            on_record(done, len(measurements))
    return records


def _shares(measurement: Measurement, nodes: int) -> np.ndarray | None:
    if measurement.node_profile is None:
        return None
    return node_shares(measurement.node_profile, nodes)


def without_realworld(records: Sequence[LatencyRecord]) -> list[LatencyRecord]:
    """``records`` less the held-out real-world models (source :data:`REAL_WORLD`).

    Example:
        >>> from nnlat.testing.records import toy_records
        >>> len(without_realworld(toy_records()))
        12
    """
    return [r for r in records if r.source != REAL_WORLD]
