"""A training example: one measured latency with the raw features of its graph.

The type every predictor and study learns from (``fit(records)``), kept here, below both
the store that yields records (:mod:`nnlat.datasets.training`) and the predictor that
consumes them, so that the predictor never imports the store.
"""

from __future__ import annotations

from dataclasses import dataclass

from nnlat.features.raw import RawFeatures

# Where a record comes from (LatencyRecord.source).
ZOO = "zoo"  # a model of nnlat's zoo, regenerated from its stored recipe
IMPORTED = "imported"  # a published latency table imported into the store
PUBLISHED = "published"  # read straight from a published table, never stored
REAL_WORLD = "real-world"  # the held-out real-world models of scripts/measure_realworld.py
ONNX = "onnx"  # any other stored ONNX model


@dataclass(frozen=True)
class LatencyRecord:
    """One measured latency with the features of the graph that produced it.

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
    """

    graph_hash: str
    family: str
    platform: str
    batch_size: int
    latency_ms: float
    raw: RawFeatures
    source: str = ZOO
