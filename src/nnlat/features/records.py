"""A training example: one measured latency (and memory, energy) with the raw features
of its graph.

The type every predictor and study learns from (``fit(records)``), kept here, below both
the store that yields records (:mod:`nnlat.datasets.training`) and the predictor that
consumes them, so that the predictor never imports the store.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nnlat.features.raw import RawFeatures

# Where a record comes from (LatencyRecord.source).
ZOO = "zoo"  # a model of nnlat's zoo, regenerated from its stored recipe
IMPORTED = "imported"  # a published latency table imported into the store
PUBLISHED = "published"  # read straight from a published table, never stored
REAL_WORLD = "real-world"  # the held-out real-world models of scripts/measure_realworld.py
ONNX = "onnx"  # any other stored ONNX model


# The targets a record can carry, and the unit of each (what a predictor's head outputs).
TARGET_UNITS = {"latency": "ms", "memory": "bytes", "energy": "J"}
TARGETS = tuple(TARGET_UNITS)


@dataclass(frozen=True)
class LatencyRecord:
    """One measured latency with the features of the graph that produced it.

    Beside the latency a measurement may carry the two other targets: ``memory_bytes``
    (peak working memory: SRAM used on an NPU, the run's peak memory on a CPU) and
    ``energy_j`` (per inference); None where the platform could not measure them.

    Attributes:
        graph_hash: the model's structural hash.
        family: its family (``"resnet"``, ...), or ``"unknown"``.
        platform: the platform name.
        batch_size: the batch size measured.
        latency_ms: the median latency.
        raw: the graph's raw features, at the measured input shapes.
        source: where the record comes from: :data:`ZOO`, :data:`IMPORTED`,
            :data:`PUBLISHED`, :data:`REAL_WORLD` or :data:`ONNX` (decided once, by
            :func:`nnlat.datasets.training.record_source`).
        memory_bytes: the peak working memory, if measured.
        energy_j: the energy per inference, if measured.
        node_shares: float64 per node of ``raw``: its share of the model's profiled time
            (the runtime's per-node profile, :func:`nnlat.measure.node_profile.node_shares`),
            NaN for nodes no profiled kernel is credited to (fused away, folded, or not
            matched); None without a profile. The auxiliary target of graph networks
            that learn what each node costs.
        hardware: the fingerprint of the host that measured it
            (:func:`nnlat.measure.environment.detect_hardware`), None where not recorded.
    """

    graph_hash: str
    family: str
    platform: str
    batch_size: int
    latency_ms: float
    raw: RawFeatures
    source: str = ZOO
    memory_bytes: float | None = None
    energy_j: float | None = None
    node_shares: np.ndarray | None = None
    hardware: str | None = None

    def target(self, name: str) -> float | None:
        """The value of the target ``name`` (in :data:`TARGET_UNITS`), None if not measured.

        Example:
            >>> import numpy as np
            >>> raw = RawFeatures((), np.zeros((0, 0)), np.zeros((2, 0), np.int64),
            ...                   np.zeros(0), np.zeros(0, np.int64))
            >>> r = LatencyRecord("h", "f", "p", 1, 2.5, raw, memory_bytes=1024.0)
            >>> r.target("latency"), r.target("memory"), r.target("energy")
            (2.5, 1024.0, None)
        """
        if name not in TARGET_UNITS:
            raise ValueError(f"unknown target {name!r}; known: {', '.join(TARGETS)}")
        return {"latency": self.latency_ms, "memory": self.memory_bytes, "energy": self.energy_j}[
            name
        ]
