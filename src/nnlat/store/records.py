"""Values the store hands out besides :class:`~nnlat.measure.types.Measurement`.

They are frozen pydantic models, safe to pass across processes; ORM rows never leave
``nnlat.store``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from nnlat.platform import Platform


class StoredModel(BaseModel):
    """A model as the store knows it, keyed by its graph hash.

    Attributes:
        graph_hash: the structural hash (16 hex characters).
        hash_scheme: the hashing scheme version that produced it.
        family: the model family (``"resnet"``, ...), if known.
        tags: free labels, sorted.
        zoo_spec: ``{"family": ..., "config": {...}}`` when the zoo can regenerate it.
        onnx_bytes: the weight-free ONNX, or None when only ``zoo_spec`` is kept.
        onnx_size: size of the weight-free ONNX in bytes, stored or not.
        source_format: the format of the original file when it is not ONNX
            (``"tflite"``), else None.
        source_bytes: that original file, weights included (what LiteRT and Vela run);
            None for ONNX models and in listings.
        flops: 2 × MACs of the linear-algebra ops plus other arithmetic.
        macs: multiply-accumulates of the linear-algebra ops.
        params: constant tensor elements.
        bytes_moved: bytes read and written by all nodes.
        nodes: operator count, sub-graphs included.
        kernels: fused kernel count.
        op_counts: op name → count.
        unknown_ops: op name → count of ops without a cost model (FLOPs understated).
        created_at: when the store first saw it (UTC).
    """

    model_config = ConfigDict(frozen=True)

    graph_hash: str
    hash_scheme: int
    family: str | None = None
    tags: tuple[str, ...] = ()
    zoo_spec: dict[str, Any] | None = None
    onnx_bytes: bytes | None = None
    onnx_size: int
    source_format: str | None = None
    source_bytes: bytes | None = None
    flops: int
    macs: int
    params: int
    bytes_moved: int
    nodes: int
    kernels: int
    op_counts: dict[str, int]
    unknown_ops: dict[str, int]
    created_at: datetime


class PlatformRecord(BaseModel):
    """A stored platform and its hardware descriptor (counters, primitive latencies)."""

    model_config = ConfigDict(frozen=True)

    platform: Platform
    descriptor: dict[str, Any] = Field(default_factory=dict)


class StoreStats(BaseModel):
    """What ``nnlat db stats`` prints.

    Attributes:
        url: the database URL, password masked.
        models, platforms, measurements: row counts.
        measurements_by_status: ``"ok"`` / ``"failed"`` / ``"unsupported"`` → count.
        measurements_by_platform: platform name → count.
        lookup_hits, lookup_misses: cache lookups recorded by :meth:`Store.record_lookup`.
    """

    model_config = ConfigDict(frozen=True)

    url: str
    models: int
    platforms: int
    measurements: int
    measurements_by_status: dict[str, int]
    measurements_by_platform: dict[str, int]
    lookup_hits: int
    lookup_misses: int

    @computed_field  # type: ignore[prop-decorator]  # part of model_dump and the JSON
    @property
    def hit_ratio(self) -> float | None:
        """Hits over all lookups, or None before the first lookup.

        Example:
            >>> StoreStats(url="sqlite://", models=0, platforms=0, measurements=0,
            ...            measurements_by_status={}, measurements_by_platform={},
            ...            lookup_hits=3, lookup_misses=1).hit_ratio
            0.75
        """
        lookups = self.lookup_hits + self.lookup_misses
        return self.lookup_hits / lookups if lookups else None


class ImportReport(BaseModel):
    """What :meth:`Store.import_` read and what it added (zero added: already there)."""

    model_config = ConfigDict(frozen=True)

    models_read: int
    models_added: int
    measurements_read: int
    measurements_added: int


JobState = Literal["queued", "running", "done", "failed"]


class Job(BaseModel):
    """A measurement asked of the device farm: what to measure, where, and how it went.

    Attributes:
        id: 32 hex characters, the handle a client polls.
        graph_hash, platform, batch_size, input_shapes, protocol_version: the cache key.
        refresh: measure even if a result is stored, and replace it.
        state: ``queued`` → ``running`` → ``done`` (a measurement is stored, whatever its
            status) or ``failed`` (nothing stored: timeout, retries used up, ...).
        attempts: how many times a worker started it (more than one after a lost worker).
        error: why it failed, for ``failed``.
        worker: the worker that ran it last.
        measurement_status: ``ok`` / ``failed`` / ``unsupported`` of the stored result.
        measure_seconds: the worker's time on the device (load, measure, store).
        created_at, started_at, finished_at: UTC.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    graph_hash: str
    platform: str
    batch_size: int
    input_shapes: dict[str, tuple[int, ...]]
    protocol_version: int
    refresh: bool = False
    state: JobState
    attempts: int = 0
    error: str | None = None
    worker: str | None = None
    measurement_status: str | None = None
    measure_seconds: float | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def finished(self) -> bool:
        """True once the job is ``done`` or ``failed``."""
        return self.state in ("done", "failed")
